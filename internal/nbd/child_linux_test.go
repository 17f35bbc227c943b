package nbd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The tests in this file start the test binary again as a server in a
// process of its own, to give it a low RLIMIT_NOFILE or to measure its
// memory (/proc/PID/status), against many hostile clients.

// childEnv names the variable that makes the test binary a server: its
// value is the configuration, "key=value" pairs separated by commas:
// sock (the Unix socket to create), nofile (RLIMIT_NOFILE), conns
// (MaxConnections), mem (MaxMemory), req (MaxRequest), memlimit (the Go
// memory limit), size (of the export, whose data is all zeros).
const childEnv = "NBD_TEST_CHILD_SERVER"

// zeroBackend reads as zeros and drops writes: a large export that takes
// no memory, so that the server's own memory is what the child's RSS
// shows.
type zeroBackend struct{ size int64 }

func (z zeroBackend) Size() int64                            { return z.size }
func (z zeroBackend) BlockSize() int                         { return 512 }
func (z zeroBackend) ReadOnly() bool                         { return false }
func (z zeroBackend) ReadAt(p []byte, _ int64) (int, error)  { clear(p); return len(p), nil }
func (z zeroBackend) WriteAt(p []byte, _ int64) (int, error) { return len(p), nil }
func (z zeroBackend) Flush() error                           { return nil }

// runChild serves as cfg says until SIGTERM; it prints "ready" on
// standard output once it listens, its log goes to standard error.
func runChild(cfg string) int {
	kv := map[string]string{}
	for _, f := range strings.Split(cfg, ",") {
		k, v, _ := strings.Cut(f, "=")
		kv[k] = v
	}
	num := func(k string) int64 {
		n, _ := strconv.ParseInt(kv[k], 10, 64)
		return n
	}
	if n := num("nofile"); n > 0 {
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: uint64(n), Max: uint64(n)}); err != nil {
			fmt.Fprintln(os.Stderr, "setrlimit:", err)
			return 1
		}
	}
	if n := num("memlimit"); n > 0 {
		debug.SetMemoryLimit(n)
	}
	l, err := listenUnix(kv["sock"])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	s := &Server{
		Backend:        zeroBackend{num("size")},
		MaxConnections: int(num("conns")),
		MaxMemory:      num("mem"),
		MaxRequest:     int(num("req")),
		ErrorLog:       log.New(os.Stderr, "", 0),
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)
	served := make(chan error, 1)
	go func() { served <- s.Serve(l) }()
	fmt.Println("ready")
	select {
	case <-sigs:
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "shutdown:", err)
			return 1
		}
		return 0
	case err := <-served:
		fmt.Fprintln(os.Stderr, "serve:", err)
		return 1
	}
}

// child is a server process started by startChild.
type child struct {
	cmd    *exec.Cmd
	sock   string
	stderr *lockedBuffer
}

// startChild starts the test binary as a server with cfg (sock added)
// and waits until it listens.
func startChild(t *testing.T, cfg string) *child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "s")
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=sock="+sock+","+cfg)
	ch := &child{cmd: cmd, sock: sock, stderr: &lockedBuffer{}}
	cmd.Stderr = ch.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		if errors.Is(err, syscall.ENOEXEC) {
			// Under qemu-user (GOARCH=arm64 on x86) the test binary
			// runs through the emulator, which a child started from
			// it does not.
			t.Skipf("cannot re-execute the test binary here (%v): the child server needs this machine's own GOARCH", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if line != "ready\n" {
		t.Fatalf("the child server did not start (%q, %v): %s", line, err, ch.stderr)
	}
	return ch
}

// stop sends SIGTERM and checks that the child exits 0.
func (ch *child) stop(t *testing.T) {
	t.Helper()
	ch.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- ch.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the child server: %v; its log:\n%s", err, ch.stderr)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("the child server did not stop; its log:\n%s", ch.stderr)
	}
}

// alive reports whether the child still runs.
func (ch *child) alive() bool {
	return ch.cmd.Process.Signal(syscall.Signal(0)) == nil && ch.cmd.ProcessState == nil
}

// status returns a field of /proc/PID/status in bytes (VmRSS, VmHWM).
func (ch *child) status(t *testing.T, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", ch.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/PID/status", field)
	return 0
}

// checkServes connects a fresh client and reads from the export, trying
// for a few seconds (the server may still be pausing its accepts).
func checkServes(t *testing.T, sock string) {
	t.Helper()
	deadline := time.Now().Add(8 * time.Second)
	for {
		c, err := net.Dial("unix", sock)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("cannot connect: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cl := dial(t, sock, "")
	if errno, data := cl.do(cmdRead, 0, 0, 64<<10, nil); errno != 0 || len(data) != 64<<10 {
		t.Fatalf("a fresh client's read: errno %d", errno)
	}
}

// TestChildFDExhaustion runs a server with 40 file descriptors and more
// connections than that (and no connection limit to save it): accept
// fails with EMFILE, the server says so once and goes on, and serves a
// fresh client once the crowd is gone.
func TestChildFDExhaustion(t *testing.T) {
	ch := startChild(t, "nofile=40,conns=-1,size=1048576")
	var conns []net.Conn
	for range 100 {
		c, err := net.Dial("unix", ch.sock)
		if err != nil {
			t.Fatalf("connection %d: %v", len(conns), err)
		}
		conns = append(conns, c)
	}
	time.Sleep(300 * time.Millisecond)
	if !ch.alive() {
		t.Fatalf("the server exited; its log:\n%s", ch.stderr)
	}
	for _, c := range conns {
		c.Close()
	}
	checkServes(t, ch.sock)
	log := ch.stderr.String()
	// One line when accepts start failing and one when they work
	// again, per burst (a burst ends when the crowd's descriptors free
	// up), not one per failed try.
	fails, recovers := strings.Count(log, "too many open files"), strings.Count(log, "accept works again")
	if fails < 1 || fails != recovers || !strings.Contains(log, "failed tries") {
		t.Errorf("%d lines about running out of descriptors, %d about recovering; log:\n%s", fails, recovers, log)
	}
	ch.stop(t)
}

// TestChildMemoryBudget runs a server with a 16 MiB budget against 40
// clients that send all but one byte of a 4 MiB WRITE and 12 that send
// three 4 MiB READs and never read the replies (without the budget:
// about 300 MiB held), checks that a well-behaved client is served
// meanwhile, and that the server's peak RSS stays under the budget plus
// 40 MiB (the Go runtime, the test binary, garbage awaiting collection
// under a memory limit of the budget plus 16 MiB).
func TestChildMemoryBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("pushes about 200 MiB through sockets: not in -short")
	}
	const budget = 16 << 20
	ch := startChild(t, fmt.Sprintf("mem=%d,memlimit=%d,req=%d,size=%d", budget, budget+16<<20, 4<<20, 1<<30))
	base := ch.status(t, "VmRSS")
	var (
		wg    sync.WaitGroup
		conns []net.Conn
	)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
		wg.Wait()
	}()
	payload := make([]byte, 4<<20-1)
	for i := range 52 {
		cl := dial(t, ch.sock, "")
		conns = append(conns, cl.c)
		cl.c.SetDeadline(time.Time{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i < 40 {
				cl.c.Write(reqBytes(cmdWrite, 0, 1, uint64(i)<<22, 4<<20))
				cl.c.Write(payload)
				return
			}
			var reqs []byte
			for h := range uint64(3) {
				reqs = append(reqs, reqBytes(cmdRead, 0, h, h<<22, 4<<20)...)
			}
			cl.c.Write(reqs)
		}()
	}
	time.Sleep(500 * time.Millisecond) // the stalled clients pin what they can
	good := dial(t, ch.sock, "")
	for i := range 16 {
		if errno, data := good.do(cmdRead, 0, uint64(i)<<20, 1<<20, nil); errno != 0 || len(data) != 1<<20 {
			t.Fatalf("the well-behaved client's read %d: errno %d", i, errno)
		}
	}
	if errno, _ := good.do(cmdWrite, cmdFlagFUA, 0, 4<<20, make([]byte, 4<<20)); errno != 0 {
		t.Fatalf("the well-behaved client's write: errno %d", errno)
	}
	peak := ch.status(t, "VmHWM")
	t.Logf("RSS %d MiB at the start, peak %d MiB, budget %d MiB", base>>20, peak>>20, budget>>20)
	if peak > budget+40<<20 {
		t.Errorf("peak RSS %d MiB, over the budget (%d MiB) plus 40 MiB", peak>>20, budget>>20)
	}
	if !ch.alive() {
		t.Fatalf("the server exited; its log:\n%s", ch.stderr)
	}
	for _, c := range conns {
		c.Close()
	}
	conns = nil
	ch.stop(t)
}
