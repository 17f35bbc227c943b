package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/fastxts/xts/cmd/xts/internal/exit"
	"github.com/fastxts/xts/cmd/xts/internal/guard"
)

// errCase is a command line that must fail with code and a message that
// contains msg, leaving the directory as it was.
type errCase struct {
	name  string
	args  []string // "{dir}" is replaced by the test's directory
	stdin []byte
	code  int
	msg   string
}

// setupErrDir makes a directory with a good key, a good image, and the
// awkward files the cases use.
func setupErrDir(t *testing.T) string {
	dir := t.TempDir()
	key := randBytes(t, 64)
	writeFile(t, dir, "key", key)
	writeFile(t, dir, "key31", randBytes(t, 31))
	writeFile(t, dir, "key65", randBytes(t, 65))
	writeFile(t, dir, "keyhex", fmt.Appendf(nil, "%x", randBytes(t, 32)))
	writeFile(t, dir, "keyeq", append(append([]byte{}, key[:32]...), key[:32]...))
	writeFile(t, dir, "img", randBytes(t, 8192))
	writeFile(t, dir, "odd", randBytes(t, 8192+100))
	writeFile(t, dir, "img4608", randBytes(t, 4608))
	writeFile(t, dir, "empty", nil)
	writeFile(t, dir, "exists", []byte("keep me"))
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "img"), filepath.Join(dir, "imglink")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestErrors(t *testing.T) {
	cases := []errCase{
		// Wrong parameters: exit 1 (cryptsetup's codes throughout).
		{"no command", nil, nil, exitUsage, "Usage"},
		{"unknown command", []string{"frobnicate"}, nil, exitUsage, `unknown command "frobnicate"`},
		{"unknown flag", []string{"encrypt", "--key-file", "{dir}/key", "--bogus", "{dir}/img", "{dir}/out"}, nil, exitUsage, "unknown flag --bogus"},
		{"no key file", []string{"encrypt", "{dir}/img", "{dir}/out"}, nil, exitUsage, "--key-file is required"},
		{"one path", []string{"encrypt", "--key-file", "{dir}/key", "{dir}/img"}, nil, exitUsage, "want INPUT and OUTPUT"},
		{"three paths", []string{"decrypt", "--key-file", "{dir}/key", "{dir}/img", "{dir}/out", "{dir}/x"}, nil, exitUsage, "want INPUT and OUTPUT"},
		{"bad cipher", []string{"encrypt", "--key-file", "{dir}/key", "--cipher", "aes-cbc-essiv", "{dir}/img", "{dir}/out"}, nil, exitUsage, "--cipher"},
		{"bad sector size", []string{"encrypt", "--key-file", "{dir}/key", "--sector-size", "8192", "{dir}/img", "{dir}/out"}, nil, exitUsage, "--sector-size 8192"},
		{"misaligned skip", []string{"encrypt", "--key-file", "{dir}/key", "--sector-size", "4096", "--skip", "4", "{dir}/img", "{dir}/out"}, nil, exitUsage, "--skip 4"},
		{"misaligned offset", []string{"encrypt", "--key-file", "{dir}/key", "--sector-size", "1024", "--offset", "1", "{dir}/img", "{dir}/out"}, nil, exitUsage, "--offset 1"},
		{"negative skip", []string{"encrypt", "--key-file", "{dir}/key", "--skip", "-1", "{dir}/img", "{dir}/out"}, nil, exitUsage, "skip"},
		{"key and input on stdin", []string{"encrypt", "--key-file", "-", "-", "{dir}/out"}, nil, exitUsage, "standard input"},

		// Bad key files are wrong parameters too (1); a missing or unfit input
		// or output file is a wrong file (4); an existing output is 5. One
		// message, nothing written.
		{"missing key file", []string{"encrypt", "--key-file", "{dir}/nokey", "{dir}/img", "{dir}/out"}, nil, exitWrongDevice, "key file"},
		{"short key", []string{"encrypt", "--key-file", "{dir}/key31", "{dir}/img", "{dir}/out"}, nil, exitUsage, "bad key: key file {dir}/key31 holds 31 bytes"},
		{"long key", []string{"encrypt", "--key-file", "{dir}/key65", "{dir}/img", "{dir}/out"}, nil, exitUsage, "more than 64 bytes"},
		{"hex key", []string{"encrypt", "--key-file", "{dir}/keyhex", "{dir}/img", "{dir}/out"}, nil, exitUsage, "only hex digits"},
		{"short key on stdin", []string{"encrypt", "--key-file", "-", "{dir}/img", "{dir}/out"}, []byte("short"), exitUsage, "bad key: key file standard input holds 5 bytes"},
		{"equal key halves", []string{"encrypt", "--key-file", "{dir}/keyeq", "{dir}/img", "{dir}/out"}, nil, exitUsage, "bad key"},
		{"missing input", []string{"encrypt", "--key-file", "{dir}/key", "{dir}/none", "{dir}/out"}, nil, exitWrongDevice, "input"},
		{"input is a directory", []string{"encrypt", "--key-file", "{dir}/key", "{dir}/sub", "{dir}/out"}, nil, exitWrongDevice, "is a directory"},
		{"not whole sectors", []string{"encrypt", "--key-file", "{dir}/key", "{dir}/odd", "{dir}/out"}, nil, exitWrongDevice, "input length 8292 bytes (after --offset) is not a multiple of the sector size 512"},
		{"not whole 4096 sectors", []string{"decrypt", "--key-file", "{dir}/key", "--sector-size", "4096", "{dir}/img4608", "{dir}/out"}, nil, exitWrongDevice, "input length 4608 bytes (after --offset) is not a multiple of the sector size 4096"},
		{"not whole sectors on stdin", []string{"encrypt", "--key-file", "{dir}/key", "-", "{dir}/out"}, make([]byte, 1000), exitWrongDevice, "input length 1000 bytes (after --offset) is not a multiple of the sector size 512"},
		{"offset past the end", []string{"encrypt", "--key-file", "{dir}/key", "--offset", "17", "{dir}/img", "{dir}/out"}, nil, exitWrongDevice, "short read"},
		{"offset past the end on stdin", []string{"encrypt", "--key-file", "{dir}/key", "--offset", "3", "-", "{dir}/out"}, make([]byte, 1024), exitWrongDevice, "short read: input ended within --offset"},
		{"empty input", []string{"encrypt", "--key-file", "{dir}/key", "{dir}/empty", "{dir}/out"}, nil, exitWrongDevice, "input is empty"},
		{"empty stdin", []string{"encrypt", "--key-file", "{dir}/key", "-", "{dir}/out"}, nil, exitWrongDevice, "input is empty"},
		{"nothing after offset", []string{"encrypt", "--key-file", "{dir}/key", "--offset", "16", "{dir}/img", "{dir}/out"}, nil, exitWrongDevice, "input is empty"},
		{"output exists", []string{"encrypt", "--key-file", "{dir}/key", "{dir}/img", "{dir}/exists"}, nil, exitBusy, "output {dir}/exists already exists (use --force"},
		{"same file", []string{"encrypt", "--key-file", "{dir}/key", "--force", "{dir}/img", "{dir}/img"}, nil, exitUsage, "input and output are the same file"},
		{"same file via link", []string{"encrypt", "--key-file", "{dir}/key", "--force", "{dir}/imglink", "{dir}/img"}, nil, exitUsage, "input and output are the same file"},
		{"output is a directory", []string{"encrypt", "--key-file", "{dir}/key", "--force", "{dir}/img", "{dir}/sub"}, nil, exitWrongDevice, "not a regular file"},
		{"output directory missing", []string{"encrypt", "--key-file", "{dir}/key", "{dir}/img", "{dir}/nodir/out"}, nil, exitWrongDevice, "creating the output"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := setupErrDir(t)
			before := dirNames(t, dir)
			sub := func(s string) string { return strings.ReplaceAll(s, "{dir}", dir) }
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = sub(a)
			}
			r := runCmd(t, bytes.NewReader(c.stdin), args...)
			if r.code != c.code {
				t.Errorf("exit %d, want %d; stderr %q", r.code, c.code, r.stderr)
			}
			if !strings.Contains(r.stderr, sub(c.msg)) {
				t.Errorf("stderr %q does not contain %q", r.stderr, sub(c.msg))
			}
			if c.msg != "Usage" && !strings.Contains(c.msg, "unknown command") {
				// Flags named --name, one xts prefix.
				if m := regexp.MustCompile(`(^|[\s(])-[a-z][a-z-]+`).FindString(r.stderr); m != "" {
					t.Errorf("stderr %q names a flag with one dash (%q)", r.stderr, m)
				}
				if n := strings.Count(r.stderr, "xts:") + strings.Count(r.stderr, "xts encrypt:") + strings.Count(r.stderr, "xts decrypt:"); n != 1 {
					t.Errorf("stderr %q has %d xts prefixes", r.stderr, n)
				}
				// One clear line for a failure.
				if n := strings.Count(strings.TrimRight(r.stderr, "\n"), "\n"); n != 0 {
					t.Errorf("stderr has %d lines, want 1: %q", n+1, r.stderr)
				}
			}
			if r.stdout != "" {
				t.Errorf("stdout %q, want nothing", r.stdout)
			}
			if after := dirNames(t, dir); !slices.Equal(before, after) {
				t.Errorf("directory changed: %v -> %v", before, after)
			}
			if got := readFile(t, filepath.Join(dir, "exists")); string(got) != "keep me" {
				t.Errorf("existing output changed to %q", got)
			}
		})
	}
}

// failingReader returns good data and then an error, like a disk that
// fails mid-read.
type failingReader struct{ left int }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.left == 0 {
		return 0, errors.New("device error")
	}
	n := min(len(p), f.left)
	f.left -= n
	return n, nil
}

// TestReadErrorLeavesNothing: an input that fails after several chunks
// makes the command fail and leaves no output file.
func TestReadErrorLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	keyPath := writeFile(t, dir, "key", randBytes(t, 64))
	out := filepath.Join(dir, "out")
	var so, se bytes.Buffer
	e := &env{stdin: &failingReader{left: 10 * 4096}, stdout: &so, stderr: &se, chunkSize: 4096}
	code := e.run([]string{"encrypt", "--key-file", keyPath, "-", out})
	if code != 1 || !strings.Contains(se.String(), "reading input: device error") {
		t.Fatalf("exit %d, stderr %q", code, se.String())
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{"key"}) {
		t.Fatalf("directory holds %v after a failed run", names)
	}
}

// failingWriter accepts some bytes and then fails, like a full disk.
type failingWriter struct{ left int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) > f.left {
		return 0, errors.New("no space left on device")
	}
	f.left -= len(p)
	return len(p), nil
}

func TestWriteErrorFails(t *testing.T) {
	dir := t.TempDir()
	keyPath := writeFile(t, dir, "key", randBytes(t, 64))
	var se bytes.Buffer
	e := &env{stdin: bytes.NewReader(make([]byte, 64*4096)), stdout: &failingWriter{left: 3 * 4096}, stderr: &se, chunkSize: 4096}
	code := e.run([]string{"encrypt", "--key-file", keyPath, "-", "-"})
	if code != 1 || !strings.Contains(se.String(), "writing output: standard output: no space left on device") {
		t.Fatalf("exit %d, stderr %q", code, se.String())
	}
}

// TestHelp: every command has --help, printed to stdout with status 0.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"help"}, {"bench", "--help"}, {"info", "-h"}, {"encrypt", "--help"}, {"decrypt", "--help"}} {
		r := runCmd(t, nil, args...)
		if r.code != 0 || !strings.Contains(r.stdout, "Usage") || r.stderr != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
	r := runCmd(t, nil, "encrypt", "--help")
	for _, flag := range []string{"--key-file", "--cipher", "--sector-size", "--iv-large-sectors", "--skip", "--offset", "--force", "cryptsetup open"} {
		if !strings.Contains(r.stdout, flag) {
			t.Errorf("encrypt --help does not mention %s", flag)
		}
	}
}

// TestExitCodes (item 14): the statuses are cryptsetup's numbers, and
// errors from the system map to them.
func TestExitCodes(t *testing.T) {
	if got := []int{exitOK, exitUsage, exitPermission, exitNoMemory, exitWrongDevice, exitBusy}; !slices.Equal(got, []int{0, 1, 2, 3, 4, 5}) {
		t.Fatalf("exit statuses %v, want cryptsetup's 0..5", got)
	}
	for _, c := range []struct {
		err  error
		code int
	}{
		{nil, 0},
		{errHelpShown, 0},
		{usagef("bad flag"), 1},
		{errors.New("read error"), 1},
		{fmt.Errorf("key file: %w", &os.PathError{Op: "open", Path: "k", Err: syscall.EACCES}), 2},
		{fmt.Errorf("buffers: %w", syscall.ENOMEM), 3},
		{fmt.Errorf("input: %w", &os.PathError{Op: "open", Path: "x", Err: syscall.ENOENT}), 4},
		{fmt.Errorf("input: %w", syscall.ENXIO), 4},
		{fmt.Errorf("output: %w", syscall.EBUSY), 5},
		{exit.Errorf(exitBusy, "output %s already exists", "x"), 5},
		{fmt.Errorf("wrapped: %w", exit.Errorf(exitWrongDevice, "short read")), 4},
		{&guard.Interrupted{Signal: syscall.SIGINT}, 130},
		{&guard.Interrupted{Signal: syscall.SIGHUP}, 129},
		{&guard.Interrupted{Signal: syscall.SIGQUIT}, 131},
		{&guard.Interrupted{Signal: syscall.SIGTERM}, 143},
	} {
		if got := exitCode(c.err); got != c.code {
			t.Errorf("exitCode(%v) = %d, want %d", c.err, got, c.code)
		}
	}
}

// TestErrorSaysStdoutGotOutput: an error after some output already went
// to standard output says how much did (a file output leaves nothing, so
// its errors say nothing of the kind).
func TestErrorSaysStdoutGotOutput(t *testing.T) {
	key := writeFile(t, t.TempDir(), "key", randBytes(t, 64))
	code, out, stderr := runBytes(t, make([]byte, 1<<20+1000), "encrypt", "--key-file", key, "-", "-")
	want := "xts encrypt: input length 1049576 bytes (after --offset) is not a multiple of the sector size 512; 1048576 bytes of output already went to standard output\n"
	if code != exitWrongDevice || stderr != want || len(out) != 1<<20 {
		t.Errorf("exit %d, %d bytes out, stderr %q; want exit %d, 1 MiB out, %q", code, len(out), stderr, exitWrongDevice, want)
	}
}
