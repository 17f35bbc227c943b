package input

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fastxts/xts/cmd/xts/internal/exit"
)

// TestOpen: a file says its size and what it is; standard input is a
// stream of unknown size (its FileInfo known when it is a file); Skip
// seeks in a file and reads and drops from a stream, and says when the
// input ends first.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	data := []byte("0123456789abcdefghij")
	path := filepath.Join(dir, "in")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	stdinFile, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer stdinFile.Close()
	cases := []struct {
		name     string
		path     string
		stdin    io.Reader
		size     int64 // Size after Open
		info     bool  // Info is set
		skip     int64
		skipErr  error // nil, or what Skip returns
		skipped  int64
		sizeLeft int64
		rest     string // what R reads after the skip
	}{
		{"file", path, nil, 20, true, 5, nil, 5, 15, "56789abcdefghij"},
		{"file, all skipped", path, nil, 20, true, 20, nil, 20, 0, ""},
		{"file, skip past the end", path, nil, 20, true, 21, io.ErrUnexpectedEOF, 0, 20, string(data)},
		{"stdin", "-", bytes.NewReader(data), -1, false, 5, nil, 5, -1, "56789abcdefghij"},
		{"stdin, skip past the end", "-", bytes.NewReader(data), -1, false, 25, io.EOF, 20, -1, ""},
		{"stdin is a file", "-", stdinFile, -1, true, 0, nil, 0, -1, string(data)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in, err := Open(c.path, c.stdin)
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			if in.Size != c.size || (in.Info != nil) != c.info {
				t.Fatalf("Size %d, Info %v; want %d, set %v", in.Size, in.Info, c.size, c.info)
			}
			n, err := in.Skip(c.skip)
			if !errors.Is(err, c.skipErr) || (c.skipErr == nil) != (err == nil) || n != c.skipped || in.Size != c.sizeLeft {
				t.Fatalf("Skip(%d) = %d, %v, Size %d; want %d, %v, Size %d", c.skip, n, err, in.Size, c.skipped, c.skipErr, c.sizeLeft)
			}
			rest, err := io.ReadAll(in.R)
			if err != nil || string(rest) != c.rest {
				t.Fatalf("read %q, %v; want %q", rest, err, c.rest)
			}
		})
	}
}

// TestOpenErrors: a directory or a missing file is the wrong file (exit
// status 4), with a message naming the input.
func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ path, msg string }{
		{dir, "input " + dir + " is a directory"},
		{filepath.Join(dir, "none"), "input: open " + filepath.Join(dir, "none")},
	} {
		in, err := Open(c.path, nil)
		if err == nil {
			in.Close()
			t.Fatalf("Open(%s) succeeded", c.path)
		}
		if exit.Code(err) != exit.WrongDevice || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Open(%s): %v (exit %d), want exit 4 and %q", c.path, err, exit.Code(err), c.msg)
		}
	}
}
