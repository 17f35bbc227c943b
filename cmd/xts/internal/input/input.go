// Package input opens what an xts command reads: a file or device by
// name, or standard input ("-"), and says how long it is where that can
// be known before reading it.
package input

import (
	"fmt"
	"io"
	"os"

	"github.com/fastxts/xts/cmd/xts/internal/exit"
)

// Input is a command's input, read in order from R.
type Input struct {
	Name string      // the path, or "standard input"
	R    io.Reader   // the data, from the current position on
	Info os.FileInfo // what the input is, so that no output overwrites it; nil when unknown
	// Size is how many bytes are left from the current position: known
	// for a regular file or a device opened by name, -1 for standard input
	// and pipes, which are read to their end.
	Size int64
	f    *os.File // what Close closes; nil for standard input
}

// Open opens path for reading, or stdin for "-" (never closed). A
// directory is refused (exit status 4); other errors say "input: ...".
func Open(path string, stdin io.Reader) (*Input, error) {
	if path == "-" {
		in := &Input{Name: "standard input", R: stdin, Size: -1}
		if f, ok := stdin.(*os.File); ok {
			in.Info, _ = f.Stat()
		}
		return in, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("input: %w", err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("input: %w", err)
	}
	if info.IsDir() {
		f.Close()
		return nil, exit.Errorf(exit.WrongDevice, "input %s is a directory", path)
	}
	in := &Input{Name: path, R: f, Info: info, Size: -1, f: f}
	// Regular files and block devices can say how long they are.
	size, err := f.Seek(0, io.SeekEnd)
	if err == nil && (info.Mode().IsRegular() || info.Mode()&os.ModeDevice != 0) {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			f.Close()
			return nil, fmt.Errorf("input: %w", err)
		}
		in.Size = size
		return in, nil
	}
	f.Seek(0, io.SeekStart) // a pipe or character device: undo the probe where seeking worked at all
	return in, nil
}

// Skip leaves out the next n bytes: a seek when the size is known (n
// must not exceed it), else they are read and dropped. It returns how
// many bytes it skipped, fewer than n only with an error: io.EOF or
// io.ErrUnexpectedEOF when the input ended first.
func (in *Input) Skip(n int64) (int64, error) {
	if n == 0 {
		return 0, nil
	}
	if in.Size < 0 {
		return io.CopyN(io.Discard, in.R, n)
	}
	if n > in.Size {
		return 0, io.ErrUnexpectedEOF
	}
	if _, err := in.f.Seek(n, io.SeekCurrent); err != nil {
		return 0, err
	}
	in.Size -= n
	return n, nil
}

// Close closes the file; standard input stays open.
func (in *Input) Close() error {
	if in.f == nil {
		return nil
	}
	return in.f.Close()
}
