package guard

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"

	"github.com/fastxts/xts/cmd/xts/internal/exit"
)

// Spec says where a command writes.
type Spec struct {
	Path   string      // a file path, or "-" for standard output
	Force  bool        // replace an existing file
	Input  os.FileInfo // the input, if it is a file: never overwritten (may be nil)
	Stdout io.Writer   // standard output, written when Path is "-"
	Mode   os.FileMode // a new file's permissions; 0: 0600 (a replaced file's own with Force)
}

// Output is one output of a command: a file that appears only when the
// guard commits it, or standard output. Write it from one goroutine.
type Output struct {
	g       *Guard
	f       *os.File  // the unnamed or temporary file; nil for standard output
	stdout  io.Writer // standard output when Path is "-"
	path    string    // the output file, symbolic links resolved; "" for standard output
	tmp     string    // the temporary file's name; "" when f is unnamed (O_TMPFILE)
	force   bool
	written atomic.Int64 // read by the signal goroutine
	pending atomic.Int64 // bytes of a write to standard output in progress
	closed  bool
}

// Create checks spec and opens the output; the guard commits or discards
// it with the others. Errors carry their exit status: 1 when the output
// is the input, 4 when it is not a regular file, 5 when it exists
// (without Force).
func (g *Guard) Create(spec Spec) (*Output, error) {
	var o *Output
	if spec.Path == "-" {
		if f, ok := spec.Stdout.(*os.File); ok && spec.Input != nil {
			if fi, err := f.Stat(); err == nil && os.SameFile(fi, spec.Input) {
				return nil, exit.Errorf(exit.Usage, "input and output are the same file (standard output is the input)")
			}
		}
		o = &Output{g: g, stdout: spec.Stdout}
	} else {
		path, err := checkOutput(spec.Path, spec.Force, spec.Input)
		if err != nil {
			return nil, err
		}
		if o, err = g.createFile(path, spec.Force, spec.Mode); err != nil {
			return nil, err
		}
	}
	g.omu.Lock()
	g.open = append(g.open, o)
	g.omu.Unlock()
	return o, nil
}

// checkOutput decides whether path may be written: not the input (in may
// be nil when the input is not a file), not an existing file unless force,
// and never anything but a regular file. It returns the path to write,
// with symbolic links resolved so that --force replaces the file the link
// names rather than the link. The final link repeats the existence check
// atomically; this one only fails early, before any work.
func checkOutput(path string, force bool, in os.FileInfo) (string, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := os.Lstat(path); lerr == nil {
			return "", exit.Errorf(exit.WrongDevice, "output %s is a dangling symbolic link", path)
		}
		return path, nil
	}
	if err != nil {
		return "", fmt.Errorf("output: %w", err)
	}
	if in != nil && os.SameFile(fi, in) {
		return "", exit.Errorf(exit.Usage, "input and output are the same file (%s)", path)
	}
	if !fi.Mode().IsRegular() {
		return "", exit.Errorf(exit.WrongDevice, "output %s exists and is not a regular file (write to - and redirect to write a device)", path)
	}
	if !force {
		return "", exit.Errorf(exit.Busy, "output %s already exists (use --force to replace it)", path)
	}
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("output: %w", err)
	}
	return resolved, nil
}

// createFile opens the file that becomes path: unnamed where the system
// allows it, so that a crash or SIGKILL leaves nothing at all, else a
// hidden temporary file beside path (the same directory, so that the final
// link or rename cannot cross file systems). It is created with mode 0600:
// a decrypted image is as secret as the key. When force replaces an
// existing file, the new one gets the old one's mode.
func (g *Guard) createFile(path string, force bool, mode os.FileMode) (*Output, error) {
	dir := filepath.Dir(path)
	o := &Output{g: g, path: path, force: force}
	f, err := openUnnamed(dir)
	if g.cfg.NoUnnamed {
		if err == nil {
			f.Close()
		}
		err = errNoUnnamed
	}
	if err != nil && !errors.Is(err, errNoUnnamed) {
		return nil, fmt.Errorf("creating the output beside %s: %w", path, err)
	}
	if err != nil {
		f, err = os.CreateTemp(dir, "."+filepath.Base(path)+".xts-*.tmp")
		if err != nil {
			return nil, fmt.Errorf("creating the output beside %s: %w", path, err)
		}
		o.tmp = f.Name()
		g.addTemp(o.tmp)
	}
	o.f = f
	if mode != 0 {
		if err := f.Chmod(mode); err != nil {
			o.discard()
			return nil, fmt.Errorf("output: %w", err)
		}
	}
	if fi, err := os.Stat(path); err == nil && force && mode == 0 {
		if err := f.Chmod(fi.Mode().Perm()); err != nil {
			o.discard()
			return nil, fmt.Errorf("output: %w", err)
		}
	}
	return o, nil
}

// Write writes p to the output. Errors name the output once ("standard
// output" or the path) and a closed pipe on standard output says so.
func (o *Output) Write(p []byte) (int, error) {
	var n int
	var err error
	if o.f != nil {
		n, err = o.f.Write(p)
	} else {
		o.pending.Store(int64(len(p)))
		n, err = o.stdout.Write(p)
		o.pending.Store(0)
	}
	o.written.Add(int64(n))
	if err == nil {
		return n, nil
	}
	err = unwrapPath(err)
	if o.f == nil && errors.Is(err, syscall.EPIPE) {
		return n, fmt.Errorf("standard output was closed (broken pipe) after %d bytes; what went out is incomplete", o.written.Load())
	}
	return n, fmt.Errorf("%s: %w", o.name(), err)
}

// Positional reports whether the output takes WriteAt: a file, not
// standard output.
func (o *Output) Positional() bool { return o.f != nil }

// WriteAt writes p at offset off of a file output. Unlike Write it may be
// called from several goroutines at once, for ranges that do not overlap.
// Standard output has no offsets: there it is an error (see Positional).
func (o *Output) WriteAt(p []byte, off int64) (int, error) {
	if o.f == nil {
		return 0, errors.New("standard output cannot be written at an offset")
	}
	n, err := o.f.WriteAt(p, off)
	o.written.Add(int64(n))
	if err != nil {
		return n, fmt.Errorf("%s: %w", o.name(), unwrapPath(err))
	}
	return n, nil
}

// Written is how many bytes have been written so far.
func (o *Output) Written() int64 { return o.written.Load() }

// name is how messages call the output.
func (o *Output) name() string {
	if o.f == nil {
		return "standard output"
	}
	return o.path
}

// sync flushes the output to disk: the file, or standard output when it
// is a regular file or a block device (`xts ... - > /dev/sdX`). Pipes,
// terminals and character devices have nothing to flush.
func (o *Output) sync() error {
	if o.f != nil {
		if err := o.g.cfg.Sync(o.f); err != nil {
			return fmt.Errorf("flushing %s to disk: %w", o.path, err)
		}
		return nil
	}
	f, ok := o.stdout.(*os.File)
	if !ok {
		return nil
	}
	fi, err := f.Stat()
	if err != nil || !(fi.Mode().IsRegular() || fi.Mode()&fs.ModeDevice != 0 && fi.Mode()&fs.ModeCharDevice == 0) {
		return nil
	}
	if err := o.g.cfg.Sync(f); err != nil {
		return fmt.Errorf("flushing standard output to disk: %w", unwrapPath(err))
	}
	return nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// link puts the flushed file at its path: atomically refused if the path
// exists (someone created it while we worked) unless force, which
// replaces it. Standard output has nothing to link.
func (o *Output) link() error {
	if o.f == nil {
		return nil
	}
	var err error
	if o.tmp == "" {
		err = o.linkUnnamed()
	} else {
		err = o.linkTemp()
	}
	if err != nil {
		return err
	}
	o.close()
	// Make the new name itself durable. Some file systems cannot sync a
	// directory; the data is already on disk, so that is not an error.
	if d, err := os.Open(filepath.Dir(o.path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

func (o *Output) linkUnnamed() error {
	err := linkUnnamed(o.f, o.path)
	if err == nil {
		return nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("linking the output into place: %w", err)
	}
	if !o.force {
		return o.appeared()
	}
	// --force: give the file a temporary name, then rename it over the
	// old one, which stays whole until the rename.
	for range 100 {
		tmp := filepath.Join(filepath.Dir(o.path), fmt.Sprintf(".%s.xts-%d.tmp", filepath.Base(o.path), rand.Uint32()))
		err := linkUnnamed(o.f, tmp)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("linking the output into place: %w", err)
		}
		o.g.addTemp(tmp)
		err = os.Rename(tmp, o.path)
		if err != nil {
			os.Remove(tmp)
		}
		o.g.dropTemp(tmp)
		if err != nil {
			return fmt.Errorf("renaming the output into place: %w", err)
		}
		return nil
	}
	return errors.New("linking the output into place: no free temporary name")
}

func (o *Output) linkTemp() error {
	if o.force {
		if err := os.Rename(o.tmp, o.path); err != nil {
			return fmt.Errorf("renaming the output into place: %w", err)
		}
		o.g.dropTemp(o.tmp)
		o.tmp = ""
		return nil
	}
	// A hard link fails if the name exists: the no-clobber check and the
	// link are one step.
	err := os.Link(o.tmp, o.path)
	if errors.Is(err, fs.ErrExist) {
		return o.appeared()
	}
	if err != nil {
		return fmt.Errorf("linking the output into place: %w", err)
	}
	os.Remove(o.tmp)
	o.g.dropTemp(o.tmp)
	o.tmp = ""
	return nil
}

func (o *Output) appeared() error {
	return exit.Errorf(exit.Busy, "output %s appeared while writing (use --force to replace it)", o.path)
}

// close closes the file once.
func (o *Output) close() {
	if o.f != nil && !o.closed {
		o.f.Close()
		o.closed = true
	}
}

// discard closes the file and removes its temporary name, if it has one.
// Standard output cannot be taken back. Discarding after a successful
// link does nothing.
func (o *Output) discard() {
	o.close()
	if o.tmp != "" {
		os.Remove(o.tmp)
		o.g.dropTemp(o.tmp)
		o.tmp = ""
	}
}

// errNoUnnamed: unnamed files (O_TMPFILE) are not available here.
var errNoUnnamed = errors.New("unnamed files are not supported here")

// Unnamed returns nil if directory dir can hold unnamed files (O_TMPFILE),
// which nothing can leave behind, not even SIGKILL; else why not.
func Unnamed(dir string) error {
	f, err := openUnnamed(dir)
	if err == nil {
		f.Close()
	}
	return err
}
