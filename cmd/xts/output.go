package main

// The output layer: how every command that writes data (encrypt, decrypt,
// the luks commands) creates its output, so that nothing is ever lost or
// left behind. A command uses it like this:
//
//	g := watchSignals(e.stderr, "encrypt") // first thing; catches SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE
//	defer g.stop()
//	out, err := openOutput(outputSpec{Path: path, Force: force, Input: inInfo, Stdout: e.stdout})
//	if err != nil {
//		return err                      // already carries its exit code
//	}
//	err = work(g.ctx, out)              // out is an io.Writer; g.ctx is cancelled by a signal
//	if err != nil {
//		return g.abort(out, err)        // discards the output; a signal's error wins
//	}
//	return g.commit(out)                // flush, then link into place unless a signal came first
//
// Several outputs (an image and its detached header) go to one
// g.commit(a, b): all appear or, after a signal, none. Once a commit
// starts linking, the command is past the point of no return and later
// signals are ignored. Errors returned by all of these carry their exit
// status; return them as they are and report in main.go prints them.
//
// The pieces:
//   - openOutput (this file) opens a file OUTPUT as an unnamed file in its
//     directory (O_TMPFILE on Linux; elsewhere, or where the file system
//     cannot, a hidden temporary file that abort and every signal remove),
//     or standard output for "-". An existing OUTPUT is refused (exit 5)
//     unless Force; the final link is atomic, so a file that appears while
//     the command works is never clobbered.
//   - (*output).Write writes; bytesWritten and partial say how much went
//     out and whether any of it went irrevocably to standard output.
//     (*output).abort alone discards an output no guard has seen.
//   - watchSignals, (*signalGuard).commit and .abort (signals.go) turn a
//     received signal into an aborted output and an *interruptedError
//     (exit status 128 + the signal number, a message saying whether
//     partial output already went to standard output). A second signal
//     while the command finishes (a long final fsync) exits at once.
//   - exitError, exitErrorf and exitCode (exitcode.go) carry cryptsetup's
//     exit codes: 0 success, 1 wrong parameters, 2 no permission (bad
//     passphrase), 3 out of memory, 4 wrong device or file, 5 exists or
//     busy. report in main.go prints the one-line message and returns the
//     status.

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
)

// outputSpec says where a command writes.
type outputSpec struct {
	Path   string      // a file path, or "-" for standard output
	Force  bool        // replace an existing file
	Input  os.FileInfo // the input, if it is a file: never overwritten (may be nil)
	Stdout io.Writer   // standard output, written when Path is "-"
}

// output is a command's output: a file that appears only when complete,
// or standard output.
type output struct {
	f       *os.File  // the unnamed or temporary file; nil for standard output
	stdout  io.Writer // standard output when Path is "-"
	path    string    // the output file, symbolic links resolved; "" for standard output
	tmp     string    // the temporary file's name; "" when f is unnamed (O_TMPFILE)
	force   bool
	written atomic.Int64 // read by the signal goroutine
	pending atomic.Int64 // bytes of a write to standard output in progress
	closed  bool
}

// current is the output most recently opened and not yet committed or
// aborted: what a second signal's message talks about.
var current atomic.Pointer[output]

// openOutput checks spec and opens the output. Errors carry their exit
// codes.
func openOutput(spec outputSpec) (*output, error) {
	if spec.Path == "-" {
		if f, ok := spec.Stdout.(*os.File); ok && spec.Input != nil {
			if fi, err := f.Stat(); err == nil && os.SameFile(fi, spec.Input) {
				return nil, exitErrorf(exitUsage, "input and output are the same file (standard output is the input)")
			}
		}
		o := &output{stdout: spec.Stdout}
		current.Store(o)
		return o, nil
	}
	path, err := checkOutput(spec.Path, spec.Force, spec.Input)
	if err != nil {
		return nil, err
	}
	o, err := createOutput(path, spec.Force)
	if err == nil {
		current.Store(o)
	}
	return o, err
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
			return "", exitErrorf(exitWrongDevice, "output %s is a dangling symbolic link", path)
		}
		return path, nil
	}
	if err != nil {
		return "", fmt.Errorf("output: %w", err)
	}
	if in != nil && os.SameFile(fi, in) {
		return "", exitErrorf(exitUsage, "input and output are the same file (%s)", path)
	}
	if !fi.Mode().IsRegular() {
		return "", exitErrorf(exitWrongDevice, "output %s exists and is not a regular file (write to - and redirect to write a device)", path)
	}
	if !force {
		return "", exitErrorf(exitBusy, "output %s already exists (use --force to replace it)", path)
	}
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("output: %w", err)
	}
	return resolved, nil
}

// createOutput opens the file that becomes path: unnamed where the system
// allows it, so that a crash or SIGKILL leaves nothing at all, else a
// hidden temporary file beside path (the same directory, so that the final
// link or rename cannot cross file systems). It is created with mode 0600:
// a decrypted image is as secret as the key. When force replaces an
// existing file, the new one gets the old one's mode.
func createOutput(path string, force bool) (*output, error) {
	dir := filepath.Dir(path)
	o := &output{path: path, force: force}
	f, err := openUnnamed(dir)
	if !unnamedOutputs {
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
		registerTemp(o.tmp)
	}
	o.f = f
	if fi, err := os.Stat(path); err == nil && force {
		if err := f.Chmod(fi.Mode().Perm()); err != nil {
			o.abort()
			return nil, fmt.Errorf("output: %w", err)
		}
	}
	return o, nil
}

// Write writes p to the output. Errors name the output once ("standard
// output" or the path) and a closed pipe on standard output says so.
func (o *output) Write(p []byte) (int, error) {
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
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if o.f == nil && errors.Is(err, syscall.EPIPE) {
		return n, fmt.Errorf("standard output was closed (broken pipe) after %d bytes; what went out is incomplete", o.written.Load())
	}
	return n, fmt.Errorf("%s: %w", o.name(), err)
}

// name is how messages call the output.
func (o *output) name() string {
	if o.f == nil {
		return "standard output"
	}
	return o.path
}

// written is how many bytes have been written so far.
func (o *output) bytesWritten() int64 { return o.written.Load() }

// sync flushes the output to disk: the file, or standard output when it
// is a regular file or a block device (`xts ... - > /dev/sdX`). Pipes,
// terminals and character devices have nothing to flush.
func (o *output) sync() error {
	if o.f != nil {
		if err := syncFile(o.f); err != nil {
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
	if err := syncFile(f); err != nil {
		return fmt.Errorf("flushing standard output to disk: %w", unwrapPath(err))
	}
	return nil
}

// unnamedOutputs says to use unnamed files where possible; tests turn it
// off to check the hidden temporary file that other systems get.
var unnamedOutputs = true

// syncFile is f.Sync; tests replace it to see that it is called and to
// make it fail.
var syncFile = func(f *os.File) error { return f.Sync() }

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
func (o *output) link() error {
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
	current.CompareAndSwap(o, nil)
	// Make the new name itself durable. Some file systems cannot sync a
	// directory; the data is already on disk, so that is not an error.
	if d, err := os.Open(filepath.Dir(o.path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

func (o *output) linkUnnamed() error {
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
		tmp := filepath.Join(filepath.Dir(o.path), fmt.Sprintf(".%s.xts-%d.tmp", filepath.Base(o.path), randomSuffix()))
		err := linkUnnamed(o.f, tmp)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("linking the output into place: %w", err)
		}
		registerTemp(tmp)
		err = os.Rename(tmp, o.path)
		if err != nil {
			os.Remove(tmp)
		}
		unregisterTemp(tmp)
		if err != nil {
			return fmt.Errorf("renaming the output into place: %w", err)
		}
		return nil
	}
	return errors.New("linking the output into place: no free temporary name")
}

func (o *output) linkTemp() error {
	if o.force {
		if err := os.Rename(o.tmp, o.path); err != nil {
			return fmt.Errorf("renaming the output into place: %w", err)
		}
		unregisterTemp(o.tmp)
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
	unregisterTemp(o.tmp)
	o.tmp = ""
	return nil
}

func (o *output) appeared() error {
	return exitErrorf(exitBusy, "output %s appeared while writing (use --force to replace it)", o.path)
}

// close closes the file once.
func (o *output) close() {
	if o.f != nil && !o.closed {
		o.f.Close()
		o.closed = true
	}
}

// abort discards the output: the file is closed and its temporary name,
// if it has one, removed. Standard output cannot be taken back (partial
// says whether anything went out). Abort after a successful link does
// nothing.
func (o *output) abort() {
	current.CompareAndSwap(o, nil)
	o.close()
	if o.tmp != "" {
		os.Remove(o.tmp)
		unregisterTemp(o.tmp)
		o.tmp = ""
	}
}

// randomSuffix names a temporary file.
func randomSuffix() uint32 { return rand.Uint32() }
