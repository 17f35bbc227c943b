//go:build unix

package guard

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/fastxts/xts/cmd/xts/internal/exit"
)

// bothOutputKinds runs f with unnamed (O_TMPFILE) outputs, where this
// system has them, and with the hidden temporary file other systems use;
// f gets the Config.NoUnnamed to use.
func bothOutputKinds(t *testing.T, f func(t *testing.T, noUnnamed bool)) {
	for _, unnamed := range []bool{true, false} {
		name := "temp-file"
		if unnamed {
			name = "unnamed"
		}
		t.Run(name, func(t *testing.T) {
			if unnamed {
				if err := Unnamed(t.TempDir()); err != nil {
					t.Skipf("no unnamed files here: %v", err)
				}
			}
			f(t, !unnamed)
		})
	}
}

// testGuard starts a Guard for command "encrypt" whose second-signal exit
// is recorded, not taken. sync, if not nil, replaces the fsync of
// outputs; it gets the guard, so that it can send it signals.
func testGuard(t *testing.T, stderr *bytes.Buffer, noUnnamed bool, sync func(*Guard, *os.File) error) (*Guard, *[]int) {
	var exits []int
	var g *Guard
	cfg := Config{Stderr: stderr, Command: "encrypt", NoUnnamed: noUnnamed, Exit: func(code int) { exits = append(exits, code) }}
	if sync != nil {
		cfg.Sync = func(f *os.File) error { return sync(g, f) }
	}
	g = Start(cfg)
	t.Cleanup(g.Stop)
	return g, &exits
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSignalDuringFinalSync: a signal that comes while the output is
// flushed to disk still aborts it (nothing at the path, status 130); a
// second one exits at once, removing any temporary file.
func TestSignalDuringFinalSync(t *testing.T) {
	for _, signals := range []int{1, 2} {
		t.Run([]string{"", "one signal", "two signals"}[signals], func(t *testing.T) {
			bothOutputKinds(t, func(t *testing.T, noUnnamed bool) {
				dir := t.TempDir()
				path := filepath.Join(dir, "out")
				var stderr bytes.Buffer
				g, exits := testGuard(t, &stderr, noUnnamed, func(g *Guard, f *os.File) error {
					for range signals {
						g.received(syscall.SIGINT)
					}
					return f.Sync()
				})
				out, err := g.Create(Spec{Path: path})
				if err != nil {
					t.Fatal(err)
				}
				out.Write(make([]byte, 4096))
				err = g.Commit()
				var ie *Interrupted
				if !errors.As(err, &ie) || exit.Code(err) != 130 || err.Error() != "interrupted by SIGINT; no output written" {
					t.Errorf("commit: %v (exit %d), want interrupted by SIGINT, 130", err, exit.Code(err))
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
	bothOutputKinds(t, func(t *testing.T, noUnnamed bool) {
		for _, force := range []bool{false, true} {
			dir := t.TempDir()
			path := filepath.Join(dir, "out")
			var stderr bytes.Buffer
			g, _ := testGuard(t, &stderr, noUnnamed, nil)
			out, err := g.Create(Spec{Path: path, Force: force})
			if err != nil {
				t.Fatal(err)
			}
			out.Write([]byte("new data"))
			if err := os.WriteFile(path, []byte("someone else's"), 0o640); err != nil {
				t.Fatal(err)
			}
			err = g.Commit()
			got := readFile(t, path)
			if force {
				if err != nil || string(got) != "new data" {
					t.Errorf("--force: commit %v, file %q", err, got)
				}
			} else if exit.Code(err) != exit.Busy || !strings.Contains(err.Error(), "appeared while writing") || string(got) != "someone else's" {
				t.Errorf("commit: %v (exit %d), file %q; want exit 5 and the file kept", err, exit.Code(err), got)
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
	bothOutputKinds(t, func(t *testing.T, noUnnamed bool) {
		dir := t.TempDir()
		var stderr bytes.Buffer
		g, _ := testGuard(t, &stderr, noUnnamed, nil)
		old := filepath.Join(dir, "old")
		if err := os.WriteFile(old, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chmod(old, 0o640)
		for _, c := range []struct {
			path string
			mode os.FileMode
		}{{old, 0o640}, {filepath.Join(dir, "new"), 0o600}} {
			out, err := g.Create(Spec{Path: c.path, Force: true})
			if err != nil {
				t.Fatal(err)
			}
			out.Write([]byte("data"))
			if err := g.Commit(); err != nil {
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

// TestCommitSeveral: outputs committed together appear together, or, after
// a signal during their flush, none of them does.
func TestCommitSeveral(t *testing.T) {
	for _, signal := range []bool{false, true} {
		dir := t.TempDir()
		var stderr bytes.Buffer
		n := 0
		g, _ := testGuard(t, &stderr, false, func(g *Guard, f *os.File) error {
			if n++; n == 2 && signal {
				g.received(syscall.SIGTERM)
			}
			return f.Sync()
		})
		a, err := g.Create(Spec{Path: filepath.Join(dir, "image")})
		if err != nil {
			t.Fatal(err)
		}
		b, err := g.Create(Spec{Path: filepath.Join(dir, "header")})
		if err != nil {
			t.Fatal(err)
		}
		a.Write([]byte("data"))
		b.Write([]byte("header"))
		err = g.Commit()
		names := dirNames(t, dir)
		if signal {
			if exit.Code(err) != 143 || len(names) != 0 {
				t.Errorf("signal: commit %v, directory %v; want 143 and nothing", err, names)
			}
		} else if err != nil || !slices.Equal(names, []string{"header", "image"}) {
			t.Errorf("commit %v, directory %v", err, names)
		}
	}
}

// TestAbortAndStopLeaveNothing: Abort discards every output not committed
// (files leave nothing, standard output says how much went out); Stop
// does the same for outputs a command forgot; a signal before either
// turns the error into the interruption.
func TestAbortAndStopLeaveNothing(t *testing.T) {
	cases := []struct {
		name   string
		stdout bool // a third output, standard output, gets 10 bytes
		signal bool
		stop   bool // Stop instead of Abort
		want   string
		code   int
	}{
		{"abort", false, false, false, "disk on fire", exit.Failure},
		{"abort with stdout", true, false, false, "disk on fire; 10 bytes of output already went to standard output", exit.Failure},
		{"abort after a signal", true, true, false, "interrupted by SIGHUP; 10 bytes of partial output already went to standard output", 129},
		{"stop", false, false, true, "", 0},
	}
	for _, c := range cases {
		bothOutputKinds(t, func(t *testing.T, noUnnamed bool) {
			t.Run(c.name, func(t *testing.T) {
				dir := t.TempDir()
				var stderr, stdout bytes.Buffer
				g, _ := testGuard(t, &stderr, noUnnamed, nil)
				for _, name := range []string{"image", "header"} {
					o, err := g.Create(Spec{Path: filepath.Join(dir, name)})
					if err != nil {
						t.Fatal(err)
					}
					o.Write([]byte("secret"))
				}
				if c.stdout {
					o, err := g.Create(Spec{Path: "-", Stdout: &stdout})
					if err != nil {
						t.Fatal(err)
					}
					o.Write(make([]byte, 10))
				}
				if c.signal {
					g.received(syscall.SIGHUP)
				}
				if c.stop {
					g.Stop()
				} else if err := g.Abort(errors.New("disk on fire")); err.Error() != c.want || exit.Code(err) != c.code {
					t.Errorf("Abort: %v (exit %d), want %q (exit %d)", err, exit.Code(err), c.want, c.code)
				}
				if names := dirNames(t, dir); len(names) != 0 {
					t.Errorf("directory holds %v, want nothing", names)
				}
			})
		})
	}
}

// TestInPlaceSecondSignal: with Config.InPlace a second signal does not
// end the process; it says what is left behind, and the context ended
// with the first.
func TestInPlaceSecondSignal(t *testing.T) {
	var stderr bytes.Buffer
	var exits []int
	g := Start(Config{Stderr: &stderr, Command: "luks reencrypt", InPlace: "the image is resumable",
		Exit: func(code int) { exits = append(exits, code) }})
	t.Cleanup(g.Stop)
	g.received(syscall.SIGINT)
	g.received(syscall.SIGTERM)
	if len(exits) != 0 {
		t.Fatalf("exited %v after the second signal", exits)
	}
	if g.Context().Err() == nil || g.Signal() != syscall.SIGINT {
		t.Fatalf("context %v, signal %v: want ended by SIGINT", g.Context().Err(), g.Signal())
	}
	want := "xts luks reencrypt: SIGTERM again: stopping after the step in flight; the image is resumable\n"
	if stderr.String() != want {
		t.Fatalf("stderr %q, want %q", stderr.String(), want)
	}
}
