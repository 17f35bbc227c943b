//go:build unix

package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startServer starts the built tool with args (toolCmd's "{dir}" and
// "{key}" replaced) and returns it once it has printed its first line on
// stderr, the ready line, which it also returns. A server still running
// when the test ends is killed.
func startServer(t *testing.T, args ...string) (cmd *exec.Cmd, dir, ready string) {
	t.Helper()
	cmd, dir, _ = toolCmd(t, args...)
	cmd.Stderr = nil
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	ready, err = bufio.NewReader(stderr).ReadString('\n')
	if err != nil {
		t.Fatalf("no ready line (%v): %q", err, ready)
	}
	return cmd, dir, ready
}

// TestLUKSServeSignals runs the built command, checks the socket is 0600
// while it serves, sends each stop signal and checks it exits 0 and
// removes the socket.
func TestLUKSServeSignals(t *testing.T) {
	needServeTool(t, "nbdinfo")
	img, pass := serveImage(t, "luks2", make([]byte, 1<<20))
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, dir, line := startServer(t, "luks", "serve", "-d", pass, "--socket", "{dir}/s.sock", img)
			sock := filepath.Join(dir, "s.sock")
			if !strings.Contains(line, "at nbd+unix:///?socket="+sock) {
				t.Fatalf("ready line %q", line)
			}
			fi, err := os.Lstat(sock)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Type() != os.ModeSocket || fi.Mode().Perm() != 0o600 {
				t.Errorf("socket mode %v, want a 0600 socket", fi.Mode())
			}
			if out, err := exec.Command("nbdinfo", "--size", "nbd+unix:///?socket="+sock).CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "1048576" {
				t.Errorf("nbdinfo --size: %q %v", out, err)
			}
			cmd.Process.Signal(sig)
			err = waitTimeout(t, cmd, 20*time.Second)
			if code, _ := exitStatus(t, err); code != 0 {
				t.Errorf("exit %d after %v, want 0", code, sig)
			}
			if _, err := os.Lstat(sock); !os.IsNotExist(err) {
				t.Errorf("the socket is still there: %v", err)
			}
		})
	}
}

// TestLUKSServeSignalRun checks that a stop signal reaches --run's
// command, and that a second one ends a command that ignores it.
func TestLUKSServeSignalRun(t *testing.T) {
	img, pass := serveImage(t, "luks2", make([]byte, 1<<20))
	tests := []struct {
		name    string
		run     string
		signals int
	}{
		{"command ends", "sleep 60", 1},
		{"command ignores the signal", "trap '' TERM; while :; do sleep 1; done", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd, _, line := startServer(t, "luks", "serve", "-d", pass, "--run", tt.run, img)
			if !strings.Contains(line, "serving") {
				t.Fatalf("ready line %q", line)
			}
			time.Sleep(300 * time.Millisecond) // the shell sets its trap
			for range tt.signals {
				cmd.Process.Signal(syscall.SIGTERM)
				time.Sleep(300 * time.Millisecond)
			}
			err := waitTimeout(t, cmd, 20*time.Second)
			if code, _ := exitStatus(t, err); code != 0 {
				t.Errorf("exit %d, want 0", code)
			}
		})
	}
}

// TestLUKSServeLocks checks that an image served read-write cannot be
// served again, read-write or read-only, until the first server exits;
// read-only servers may share it.
func TestLUKSServeLocks(t *testing.T) {
	img, pass := serveImage(t, "luks2", make([]byte, 1<<20))
	start := func(args ...string) *exec.Cmd {
		cmd, _, _ := toolCmd(t, append(append([]string{"luks", "serve", "-d", pass, "--socket", "{dir}/s"}, args...), img)...)
		cmd.Stderr = nil
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		if line, err := bufio.NewReader(stderr).ReadString('\n'); err != nil || !strings.Contains(line, "serving") {
			t.Fatalf("ready line %q, %v", line, err)
		}
		return cmd
	}
	stop := func(cmd *exec.Cmd) {
		cmd.Process.Signal(syscall.SIGTERM)
		if code, _ := exitStatus(t, waitTimeout(t, cmd, 20*time.Second)); code != 0 {
			t.Errorf("exit %d after SIGTERM", code)
		}
	}
	rw := start()
	for _, args := range [][]string{nil, {"--readonly"}} {
		r := runCmd(t, nil, append(append([]string{"luks", "serve", "-d", pass, "--run", "true"}, args...), img)...)
		if r.code != 5 || !strings.Contains(r.stderr, "being served by another process") {
			t.Errorf("second server %v beside a read-write one: exit %d %q, want 5", args, r.code, r.stderr)
		}
	}
	stop(rw)
	ro := start("--readonly")
	if r := runCmd(t, nil, "luks", "serve", "-d", pass, "--readonly", "--run", "true", img); r.code != 0 {
		t.Errorf("a second read-only server: exit %d %q", r.code, r.stderr)
	}
	if r := runCmd(t, nil, "luks", "serve", "-d", pass, "--run", "true", img); r.code != 5 {
		t.Errorf("a read-write server beside a read-only one: exit %d %q, want 5", r.code, r.stderr)
	}
	stop(ro)
	if r := runCmd(t, nil, "luks", "serve", "-d", pass, "--run", "true", img); r.code != 0 {
		t.Errorf("after both stopped: exit %d %q", r.code, r.stderr)
	}
}
