//go:build unix

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fastxts/xts/cmd/xts/internal/guard"
)

// The tests in this file run the real binary, built once into a temporary
// directory, and send it real signals.

var tool struct {
	once      sync.Once
	dir, path string
	err       error
	skip      string // why the built tool cannot run here
}

func TestMain(m *testing.M) {
	code := m.Run()
	if tool.dir != "" {
		os.RemoveAll(tool.dir)
	}
	os.Exit(code)
}

// toolBinary builds the xts command (once per test run) and returns its path.
func toolBinary(t *testing.T) string {
	t.Helper()
	tool.once.Do(func() {
		tool.dir, tool.err = os.MkdirTemp("", "xts-tool-")
		if tool.err != nil {
			return
		}
		tool.path = filepath.Join(tool.dir, "xts")
		out, err := exec.Command("go", "build", "-o", tool.path, ".").CombinedOutput()
		if err != nil {
			tool.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		// Under qemu-user (GOARCH=arm64 go test -exec qemu-aarch64) the
		// tool is built for the emulated architecture, which the kernel
		// cannot start without binfmt_misc.
		if err := exec.Command(tool.path, "--version").Run(); errors.Is(err, syscall.ENOEXEC) {
			tool.skip = fmt.Sprintf("the built tool cannot run here (%v): an emulator without binfmt_misc", err)
		}
	})
	if tool.err != nil {
		t.Fatal(tool.err)
	}
	if tool.skip != "" {
		t.Skip(tool.skip)
	}
	return tool.path
}

// toolCmd prepares a run of the binary in a fresh directory that holds a
// 64-byte key file: "{key}" and "{dir}" in args are replaced by their
// paths. Its stderr is collected in the returned buffer.
func toolCmd(t *testing.T, args ...string) (cmd *exec.Cmd, dir string, stderr *bytes.Buffer) {
	t.Helper()
	bin := toolBinary(t)
	dir = t.TempDir()
	key := writeFile(t, dir, "key", randBytes(t, 64))
	for i, a := range args {
		args[i] = strings.ReplaceAll(strings.ReplaceAll(a, "{key}", key), "{dir}", dir)
	}
	cmd = exec.Command(bin, args...)
	stderr = new(bytes.Buffer)
	cmd.Stderr = stderr
	return cmd, dir, stderr
}

// exitStatus is the status a shell would report for a finished command:
// the exit code, or 128+n for a process killed by signal n (marked by
// killed).
func exitStatus(t *testing.T, err error) (code int, killed bool) {
	t.Helper()
	if err == nil {
		return 0, false
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("wait: %v", err)
	}
	ws := ee.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return 128 + int(ws.Signal()), true
	}
	return ws.ExitStatus(), false
}

// waitTimeout waits for cmd, killing it after d.
func waitTimeout(t *testing.T, cmd *exec.Cmd, d time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		t.Fatalf("still running %v after the signal (killed)", d)
		return nil
	}
}

// unnamedHere reports whether dir can hold unnamed (O_TMPFILE) files.
func unnamedHere(t *testing.T, dir string) bool {
	if err := guard.Unnamed(dir); err != nil {
		t.Logf("no unnamed files in %s (%v): the hidden temporary file is used", dir, err)
		return false
	}
	return true
}

var signalCases = []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// TestSignalLeavesNoOutput (issue 9, items 9 and 10): a signal while the
// input streams in, followed at once by a clean end of input on a sector
// boundary (the producer died of the same Ctrl-C), must not commit the
// truncated output. Exit status 128+signal, one line saying nothing was
// written, and nothing in the directory: no output, no temporary file,
// and (with O_TMPFILE) no name at all even while writing.
func TestSignalLeavesNoOutput(t *testing.T) {
	for _, sig := range signalCases {
		t.Run(guard.SignalName(sig), func(t *testing.T) {
			cmd, dir, stderr := toolCmd(t, "encrypt", "--key-file", "{key}", "-", "{dir}/out")
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Once 1 MiB went through the 64 KiB pipe, xts is reading its
			// input, with its signal handling in place.
			if _, err := stdin.Write(make([]byte, 1<<20)); err != nil {
				t.Fatal(err)
			}
			if unnamedHere(t, dir) {
				if names := dirNames(t, dir); !slices.Equal(names, []string{"key"}) {
					t.Errorf("while writing, the directory holds %v: partial output has a name", names)
				}
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			stdin.Close()
			code, killed := exitStatus(t, waitTimeout(t, cmd, 10*time.Second))
			if code != 128+int(sig) || killed {
				t.Errorf("exit status %d (killed by the signal: %v), want exit(%d); stderr %q", code, killed, 128+int(sig), stderr.String())
			}
			want := "xts encrypt: interrupted by " + guard.SignalName(sig) + "; no output written\n"
			if stderr.String() != want {
				t.Errorf("stderr %q, want %q", stderr.String(), want)
			}
			if names := dirNames(t, dir); !slices.Equal(names, []string{"key"}) {
				t.Errorf("after the signal the directory holds %v, want only the key", names)
			}
		})
	}
}

// TestSignalStdoutSaysPartial: writing to standard output cannot be
// undone, so the message says how much already went there.
func TestSignalStdoutSaysPartial(t *testing.T) {
	cmd, _, stderr := toolCmd(t, "encrypt", "--key-file", "{key}", "-", "-")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	got := make(chan int64, 1)
	first := make(chan struct{})
	go func() {
		var n int64
		buf := make([]byte, 64<<10)
		for {
			m, err := stdout.Read(buf)
			if n == 0 && m > 0 {
				close(first)
			}
			n += int64(m)
			if err != nil {
				got <- n
				return
			}
		}
	}()
	stdin.Write(make([]byte, 2<<20))
	<-first
	// Standard input stays open: the tool is waiting for more when the
	// signal comes. (Closing it here would race the signal against a
	// clean end of input, which the tool may see first and commit.)
	cmd.Process.Signal(syscall.SIGINT)
	defer stdin.Close()
	n := <-got
	code, _ := exitStatus(t, waitTimeout(t, cmd, 10*time.Second))
	if code != 130 {
		t.Errorf("exit status %d, want 130; stderr %q", code, stderr.String())
	}
	want := fmt.Sprintf("xts encrypt: interrupted by SIGINT; %d bytes of partial output already went to standard output\n", n)
	if n == 0 || stderr.String() != want {
		t.Errorf("read %d bytes; stderr %q, want %q", n, stderr.String(), want)
	}
}

// procReadBytes is how many bytes process pid has read (/proc/PID/io), or
// -1 where that cannot be known.
func procReadBytes(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "rchar: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return -1
}

// TestCtrlCThroughPv is the issue's reproduction: `pv -q -L 20m img | xts
// encrypt --key-file K - out`, then Ctrl-C, which the terminal sends to
// the whole pipeline (its process group). pv dies, xts sees a clean end of
// input; it must still exit 130 and leave nothing. Several trials, the
// signal at different points.
func TestCtrlCThroughPv(t *testing.T) {
	pv, err := exec.LookPath("pv")
	if err != nil {
		t.Skip("pv is not installed (apt-get install pv): it paces the input like a slow disk")
	}
	bin := toolBinary(t)
	src := t.TempDir()
	key := writeFile(t, src, "key", randBytes(t, 64))
	img := writeFile(t, src, "img", make([]byte, 16<<20)) // 0.8 s at 20 MB/s
	for trial, delay := range []time.Duration{0, 30 * time.Millisecond, 90 * time.Millisecond, 170 * time.Millisecond} {
		dir := t.TempDir()
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		prod := exec.Command(pv, "-q", "-L", "20m", img)
		prod.Stdout = w
		prod.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := prod.Start(); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "encrypt", "--key-file", key, "-", filepath.Join(dir, "out"))
		cmd.Stdin = r
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: prod.Process.Pid}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		r.Close()
		w.Close()
		// Wait until xts is reading its input (its signals are handled).
		deadline := time.Now().Add(5 * time.Second)
		for n := procReadBytes(cmd.Process.Pid); n < 256<<10; n = procReadBytes(cmd.Process.Pid) {
			if n < 0 {
				time.Sleep(300 * time.Millisecond)
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("xts read nothing in 5 s")
			}
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(delay)
		if err := syscall.Kill(-prod.Process.Pid, syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		prod.Wait()
		code, killed := exitStatus(t, waitTimeout(t, cmd, 10*time.Second))
		if code != 130 || killed || !strings.Contains(stderr.String(), "interrupted by SIGINT; no output written") {
			t.Errorf("trial %d: exit status %d (killed %v), stderr %q; want exit(130), nothing written", trial, code, killed, stderr.String())
		}
		if names := dirNames(t, dir); len(names) != 0 {
			t.Errorf("trial %d: the output directory holds %v", trial, names)
		}
	}
}

// TestSigkillLeavesNothing (item 10): even SIGKILL, which no program can
// catch, leaves no partial plaintext: the output has no name until it is
// complete.
func TestSigkillLeavesNothing(t *testing.T) {
	cmd, dir, _ := toolCmd(t, "decrypt", "--key-file", "{key}", "-", "{dir}/plain")
	if !unnamedHere(t, dir) {
		t.Skip("this system has no unnamed files (O_TMPFILE) here; SIGKILL would leave the hidden temporary file")
	}
	stdin, _ := cmd.StdinPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdin.Write(make([]byte, 3<<20))
	cmd.Process.Kill()
	cmd.Wait()
	stdin.Close()
	if names := dirNames(t, dir); !slices.Equal(names, []string{"key"}) {
		t.Errorf("after SIGKILL the directory holds %v, want only the key", names)
	}
}

// TestSecondSignalNotSwallowed: after the first signal the command may
// still be stuck finishing (a final fsync of a device; here a write to a
// full pipe nobody reads). A second signal must end it at once with 128+n.
func TestSecondSignalNotSwallowed(t *testing.T) {
	cmd, _, stderr := toolCmd(t, "encrypt", "--key-file", "{key}", "-", "-")
	stdin, _ := cmd.StdinPipe()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	stdin.Write(make([]byte, 2<<20)) // the first chunk is read: its write blocks on the full pipe
	time.Sleep(100 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(200 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("xts ended after the first signal although its write was blocked: %v", err)
	}
	cmd.Process.Signal(syscall.SIGINT)
	code, killed := exitStatus(t, waitTimeout(t, cmd, 5*time.Second))
	if code != 130 || killed {
		t.Errorf("exit status %d (killed %v), want exit(130); stderr %q", code, killed, stderr.String())
	}
	if want := "xts encrypt: interrupted by SIGINT; partial output already went to standard output (0 to 1048576 bytes) (a second signal while finishing)\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	stdin.Close()
}

// TestBrokenPipeOnStdout (item 11): a reader that goes away gives an exit
// status of 1 and a message, not a silent death by SIGPIPE (141).
func TestBrokenPipeOnStdout(t *testing.T) {
	cmd, _, stderr := toolCmd(t, "encrypt", "--key-file", "{key}", "-", "-")
	cmd.Stdin = bytes.NewReader(make([]byte, 4<<20))
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = w
	r.Close() // nobody will ever read
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	code, killed := exitStatus(t, waitTimeout(t, cmd, 10*time.Second))
	if code != exitFailure || killed {
		t.Errorf("exit status %d (killed %v), want exit(1); stderr %q", code, killed, stderr.String())
	}
	if want := "xts encrypt: writing output: standard output was closed (broken pipe) after 0 bytes; what went out is incomplete\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
}

// TestStdoutDiskFull (item 11): ENOSPC on standard output (/dev/full)
// exits 1 with one line.
func TestStdoutDiskFull(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full here: %v", err)
	}
	defer full.Close()
	cmd, _, stderr := toolCmd(t, "encrypt", "--key-file", "{key}", "-", "-")
	cmd.Stdin = io.LimitReader(zeros{}, 1<<20)
	cmd.Stdout = full
	code, killed := exitStatus(t, cmd.Run())
	if code != exitFailure || killed {
		t.Errorf("exit status %d (killed %v), want exit(1)", code, killed)
	}
	if want := "xts encrypt: writing output: standard output: no space left on device\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }
