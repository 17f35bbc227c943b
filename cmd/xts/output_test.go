//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// bothOutputKinds runs f with unnamed (O_TMPFILE) outputs, where this
// system has them, and with the hidden temporary file other systems use.
func bothOutputKinds(t *testing.T, f func(t *testing.T)) {
	for _, unnamed := range []bool{true, false} {
		name := "temp-file"
		if unnamed {
			name = "unnamed"
		}
		t.Run(name, func(t *testing.T) {
			if unnamed {
				if _, err := openUnnamed(t.TempDir()); err != nil {
					t.Skipf("no unnamed files here: %v", err)
				}
			}
			old := unnamedOutputs
			unnamedOutputs = unnamed
			t.Cleanup(func() { unnamedOutputs = old })
			f(t)
		})
	}
}

// withSync replaces the fsync of outputs for one test.
func withSync(t *testing.T, f func(*os.File) error) {
	old := syncFile
	syncFile = f
	t.Cleanup(func() { syncFile = old })
}

// testGuard is a signalGuard whose second-signal exit is recorded, not
// taken.
func testGuard(t *testing.T, stderr *bytes.Buffer) (*signalGuard, *[]int) {
	g := watchSignals(stderr, "encrypt")
	t.Cleanup(g.stop)
	var exits []int
	g.exit = func(code int) { exits = append(exits, code) }
	return g, &exits
}

// TestSignalDuringFinalSync: a signal that comes while the output is
// flushed to disk still aborts it (nothing at the path, status 130); a
// second one exits at once, removing any temporary file.
func TestSignalDuringFinalSync(t *testing.T) {
	for _, signals := range []int{1, 2} {
		t.Run([]string{"", "one signal", "two signals"}[signals], func(t *testing.T) {
			bothOutputKinds(t, func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "out")
				var stderr bytes.Buffer
				g, exits := testGuard(t, &stderr)
				out, err := openOutput(outputSpec{Path: path})
				if err != nil {
					t.Fatal(err)
				}
				out.Write(make([]byte, 4096))
				withSync(t, func(f *os.File) error {
					for range signals {
						g.received(syscall.SIGINT)
					}
					return f.Sync()
				})
				err = g.commit(out)
				var ie *interruptedError
				if !errors.As(err, &ie) || exitCode(err) != 130 || err.Error() != "interrupted by SIGINT; no output written" {
					t.Errorf("commit: %v (exit %d), want interrupted by SIGINT, 130", err, exitCode(err))
				}
				if signals == 2 {
					if !slices.Equal(*exits, []int{130}) || stderr.String() != "xts encrypt: interrupted by SIGINT; no output written (a second signal while finishing)\n" {
						t.Errorf("second signal: exits %v, stderr %q", *exits, stderr.String())
					}
				} else if len(*exits) != 0 {
					t.Errorf("one signal exited %v", *exits)
				}
				if names := dirNames(t, dir); len(names) != 0 {
					t.Errorf("directory holds %v, want nothing", names)
				}
			})
		})
	}
}

// TestNoClobber: a file that appears at the output path while the command
// works survives (exit 5, the link is refused atomically); --force
// replaces it and keeps its mode.
func TestNoClobber(t *testing.T) {
	bothOutputKinds(t, func(t *testing.T) {
		for _, force := range []bool{false, true} {
			dir := t.TempDir()
			path := filepath.Join(dir, "out")
			var stderr bytes.Buffer
			g, _ := testGuard(t, &stderr)
			out, err := openOutput(outputSpec{Path: path, Force: force})
			if err != nil {
				t.Fatal(err)
			}
			out.Write([]byte("new data"))
			if err := os.WriteFile(path, []byte("someone else's"), 0o640); err != nil {
				t.Fatal(err)
			}
			err = g.commit(out)
			got := readFile(t, path)
			if force {
				if err != nil || string(got) != "new data" {
					t.Errorf("--force: commit %v, file %q", err, got)
				}
			} else if exitCode(err) != exitBusy || !strings.Contains(err.Error(), "appeared while writing") || string(got) != "someone else's" {
				t.Errorf("commit: %v (exit %d), file %q; want exit 5 and the file kept", err, exitCode(err), got)
			}
			if names := dirNames(t, dir); !slices.Equal(names, []string{"out"}) {
				t.Errorf("force %v: directory holds %v", force, names)
			}
		}
	})
}

// TestForceKeepsMode: --force over an existing file gives the new file
// the old one's mode; a new file is 0600.
func TestForceKeepsMode(t *testing.T) {
	bothOutputKinds(t, func(t *testing.T) {
		dir := t.TempDir()
		var stderr bytes.Buffer
		g, _ := testGuard(t, &stderr)
		old := writeFile(t, dir, "old", []byte("x"))
		os.Chmod(old, 0o640)
		for _, c := range []struct {
			path string
			mode os.FileMode
		}{{old, 0o640}, {filepath.Join(dir, "new"), 0o600}} {
			out, err := openOutput(outputSpec{Path: c.path, Force: true})
			if err != nil {
				t.Fatal(err)
			}
			out.Write([]byte("data"))
			if err := g.commit(out); err != nil {
				t.Fatal(err)
			}
			want := c.mode
			if c.path != old {
				want &^= umask() // a new file is created 0600, through the umask
			}
			if fi, _ := os.Stat(c.path); fi.Mode().Perm() != want {
				t.Errorf("%s: mode %v, want %v", c.path, fi.Mode().Perm(), want)
			}
		}
	})
}

func umask() os.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return os.FileMode(m)
}

// TestStdoutSynced (item 11): standard output that is a regular file is
// flushed to disk before exit 0, and a failed flush (EIO) is exit 1 with
// one line; a pipe is not flushed.
func TestStdoutSynced(t *testing.T) {
	dir := t.TempDir()
	key := writeFile(t, dir, "key", randBytes(t, 64))
	stdout, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer stdout.Close()
	var synced []string
	withSync(t, func(f *os.File) error { synced = append(synced, f.Name()); return nil })
	var se bytes.Buffer
	code := run([]string{"encrypt", "-d", key, "-", "-"}, bytes.NewReader(make([]byte, 8192)), stdout, &se)
	if code != 0 || !slices.Equal(synced, []string{stdout.Name()}) {
		t.Errorf("exit %d (%s), synced %v; want 0 and standard output synced", code, se.String(), synced)
	}
	if fi, _ := stdout.Stat(); fi.Size() != 8192 {
		t.Errorf("standard output holds %d bytes", fi.Size())
	}

	withSync(t, func(*os.File) error { return &os.PathError{Op: "sync", Path: "/dev/stdout", Err: syscall.EIO} })
	se.Reset()
	code = run([]string{"encrypt", "-d", key, "-", "-"}, bytes.NewReader(make([]byte, 8192)), stdout, &se)
	if want := "xts encrypt: flushing standard output to disk: input/output error; 8192 bytes of output already went to standard output\n"; code != exitFailure || se.String() != want {
		t.Errorf("EIO: exit %d, stderr %q; want 1 and %q", code, se.String(), want)
	}

	// A file OUTPUT whose flush fails leaves nothing.
	withSync(t, func(*os.File) error { return syscall.ENOSPC })
	se.Reset()
	code = run([]string{"encrypt", "-d", key, "-", filepath.Join(dir, "out")}, bytes.NewReader(make([]byte, 8192)), &bytes.Buffer{}, &se)
	if code != exitFailure || strings.Count(se.String(), "\n") != 1 || !strings.Contains(se.String(), "no space left on device") {
		t.Errorf("ENOSPC: exit %d, stderr %q", code, se.String())
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{"key", "stdout"}) {
		t.Errorf("directory holds %v", names)
	}

	// A pipe has nothing to flush.
	synced = nil
	withSync(t, func(f *os.File) error { synced = append(synced, f.Name()); return nil })
	r, w, _ := os.Pipe()
	defer r.Close()
	go func() {
		b := make([]byte, 1<<16)
		for {
			if _, err := r.Read(b); err != nil {
				return
			}
		}
	}()
	code = run([]string{"encrypt", "-d", key, "-", "-"}, bytes.NewReader(make([]byte, 8192)), w, &se)
	w.Close()
	if code != 0 || len(synced) != 0 {
		t.Errorf("pipe: exit %d, synced %v", code, synced)
	}
}

// TestCommitSeveral: outputs committed together appear together, or, after
// a signal during their flush, none of them does.
func TestCommitSeveral(t *testing.T) {
	for _, signal := range []bool{false, true} {
		dir := t.TempDir()
		var stderr bytes.Buffer
		g, _ := testGuard(t, &stderr)
		a, err := openOutput(outputSpec{Path: filepath.Join(dir, "image")})
		if err != nil {
			t.Fatal(err)
		}
		b, err := openOutput(outputSpec{Path: filepath.Join(dir, "header")})
		if err != nil {
			t.Fatal(err)
		}
		a.Write([]byte("data"))
		b.Write([]byte("header"))
		n := 0
		withSync(t, func(f *os.File) error {
			if n++; n == 2 && signal {
				g.received(syscall.SIGTERM)
			}
			return f.Sync()
		})
		err = g.commit(a, b)
		names := dirNames(t, dir)
		if signal {
			if exitCode(err) != 143 || len(names) != 0 {
				t.Errorf("signal: commit %v, directory %v; want 143 and nothing", err, names)
			}
		} else if err != nil || !slices.Equal(names, []string{"header", "image"}) {
			t.Errorf("commit %v, directory %v", err, names)
		}
	}
}
