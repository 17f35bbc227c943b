//go:build linux

package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The tests in this file run xts luks serve (the built binary) against
// clients that misbehave on purpose: more connections than allowed,
// clients that stall while the server holds their requests or replies,
// and requests the protocol has particular errors for.

// rawNBD is a bare NBD client for these tests: a connection past
// NBD_OPT_EXPORT_NAME.
type rawNBD struct {
	c net.Conn
	r *bufio.Reader
}

// dialNBD connects to the socket and enters transmission on the default
// export (fixed newstyle, no zeroes).
func dialNBD(t *testing.T, sock string) *rawNBD {
	t.Helper()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(20 * time.Second))
	n := &rawNBD{c: c, r: bufio.NewReader(c)}
	var g [18]byte
	if _, err := io.ReadFull(n.r, g[:]); err != nil {
		t.Fatalf("greeting: %v", err)
	}
	b := binary.BigEndian.AppendUint32(nil, 3) // fixed newstyle, no zeroes
	b = binary.BigEndian.AppendUint64(b, 0x49484156454f5054)
	b = binary.BigEndian.AppendUint32(b, 1) // NBD_OPT_EXPORT_NAME ""
	b = binary.BigEndian.AppendUint32(b, 0)
	if _, err := c.Write(b); err != nil {
		t.Fatal(err)
	}
	var info [10]byte
	if _, err := io.ReadFull(n.r, info[:]); err != nil {
		t.Fatalf("export information: %v", err)
	}
	c.SetDeadline(time.Time{})
	return n
}

// request returns an NBD request header.
func nbdRequest(typ uint16, handle, off uint64, length uint32) []byte {
	b := binary.BigEndian.AppendUint32(nil, 0x25609513)
	b = binary.BigEndian.AppendUint16(b, 0)
	b = binary.BigEndian.AppendUint16(b, typ)
	b = binary.BigEndian.AppendUint64(b, handle)
	b = binary.BigEndian.AppendUint64(b, off)
	return binary.BigEndian.AppendUint32(b, length)
}

// do sends one request (with payload) and returns its reply's error,
// reading and dropping a successful read's data.
func (n *rawNBD) do(t *testing.T, typ uint16, off uint64, length uint32, payload []byte) uint32 {
	t.Helper()
	n.c.SetDeadline(time.Now().Add(20 * time.Second))
	defer n.c.SetDeadline(time.Time{})
	if _, err := n.c.Write(append(nbdRequest(typ, 9, off, length), payload...)); err != nil {
		t.Fatal(err)
	}
	var h [16]byte
	if _, err := io.ReadFull(n.r, h[:]); err != nil {
		t.Fatalf("reply: %v", err)
	}
	errno := binary.BigEndian.Uint32(h[4:])
	if typ == 0 && errno == 0 {
		if _, err := io.CopyN(io.Discard, n.r, int64(length)); err != nil {
			t.Fatal(err)
		}
	}
	return errno
}

// startServe starts xts luks serve with extra flags on a socket and
// returns it with the socket's path.
func startServe(t *testing.T, img, pass string, flags ...string) (*exec.Cmd, string, *lockedStderr) {
	t.Helper()
	args := append([]string{"luks", "serve", "-d", pass, "--socket", "{dir}/s.sock"}, flags...)
	cmd, dir, _ := toolCmd(t, append(args, img)...)
	stderr := &lockedStderr{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sock := filepath.Join(dir, "s.sock")
	for start := time.Now(); !strings.Contains(stderr.String(), "serving"); time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > 20*time.Second {
			t.Fatalf("no ready line: %s", stderr)
		}
	}
	return cmd, sock, stderr
}

// lockedStderr collects a process's standard error.
type lockedStderr struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedStderr) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedStderr) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// stopServe sends SIGTERM and checks for exit 0.
func stopServe(t *testing.T, cmd *exec.Cmd, stderr *lockedStderr) {
	t.Helper()
	cmd.Process.Signal(syscall.SIGTERM)
	if code, _ := exitStatus(t, waitTimeout(t, cmd, 20*time.Second)); code != 0 {
		t.Errorf("exit %d after SIGTERM: %s", code, stderr)
	}
}

// TestServeHostileErrorCodes checks the protocol's errors through the
// real backend: EPERM for a TRIM or WRITE on a read-only export, ENOSPC
// for a WRITE or WRITE_ZEROES past the end, EINVAL for a READ past the
// end or a TRIM the export does not take.
func TestServeHostileErrorCodes(t *testing.T) {
	const size = 1 << 20
	img, pass := serveImage(t, "luks2", make([]byte, size))
	const (
		read, write, trim, zeroes = 0, 1, 4, 6
		eperm, einval, enospc     = 1, 22, 28
	)
	tests := []struct {
		readOnly bool
		typ      uint16
		off      uint64
		length   uint32
		want     uint32
	}{
		{true, trim, 0, 4096, eperm},
		{true, write, 0, 4096, eperm},
		{true, zeroes, 0, 4096, eperm},
		{true, read, size - 512, 1024, einval},
		{false, write, size - 512, 1024, enospc},
		{false, zeroes, size, 4096, enospc},
		{false, trim, 0, 4096, einval},
		{false, read, size, 1, einval},
		{false, write, size, 0, 0},
		{false, read, 0, 0, 0},
	}
	for _, ro := range []bool{true, false} {
		var flags []string
		if ro {
			flags = append(flags, "--readonly")
		}
		cmd, sock, stderr := startServe(t, img, pass, flags...)
		n := dialNBD(t, sock)
		for _, tt := range tests {
			if tt.readOnly != ro {
				continue
			}
			var payload []byte
			if tt.typ == write {
				payload = make([]byte, tt.length)
			}
			if got := n.do(t, tt.typ, tt.off, tt.length, payload); got != tt.want {
				t.Errorf("read-only %v: command %d of %d bytes at %d: error %d, want %d", ro, tt.typ, tt.length, tt.off, got, tt.want)
			}
		}
		stopServe(t, cmd, stderr)
	}
}

// TestServeHostileConnectionLimit fills --max-connections with clients
// that only connect: nbdinfo is refused with a message, a line says so,
// and once one leaves nbdinfo works.
func TestServeHostileConnectionLimit(t *testing.T) {
	needServeTool(t, "nbdinfo")
	img, pass := serveImage(t, "luks2", make([]byte, 1<<20))
	cmd, sock, stderr := startServe(t, img, pass, "--max-connections", "2")
	uri := "nbd+unix:///?socket=" + sock
	a := dialNBD(t, sock)
	b, err := net.Dial("unix", sock) // still in the handshake: it counts
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("nbdinfo", "--size", uri).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "policy") {
		t.Errorf("nbdinfo over the limit: %v %q, want a refusal (NBD_REP_ERR_POLICY)", err, out)
	}
	for start := time.Now(); !strings.Contains(stderr.String(), "refusing new clients"); time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > 5*time.Second {
			t.Errorf("no line about refusing: %s", stderr)
			break
		}
	}
	b.Close()
	var got string
	for start := time.Now(); time.Since(start) < 10*time.Second; time.Sleep(20 * time.Millisecond) {
		out, err := exec.Command("nbdinfo", "--size", uri).CombinedOutput()
		if got = strings.TrimSpace(string(out)); err == nil {
			break
		}
	}
	if got != "1048576" {
		t.Errorf("nbdinfo after a client left: %q", got)
	}
	if e := a.do(t, 0, 0, 4096, nil); e != 0 {
		t.Errorf("the connected client: error %d", e)
	}
	stopServe(t, cmd, stderr)
}

// procStatus returns a field of /proc/PID/status in bytes: VmHWM (the
// peak resident memory), RssAnon (the resident memory that is not
// mapped from files: what the process allocated).
func procStatus(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
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
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// TestServeHostileMemory serves a LUKS2 image with --max-memory 32M to
// 40 clients that send all but one byte of a 4 MiB WRITE and 12 that
// send three 16 MiB READs and never read the replies (over 300 MiB held
// without the budget), while nbdcopy copies the whole export: the copy
// is right, and the server's peak anonymous RSS (sampled: the image's
// pages that luks maps for reading are not the server's allocations)
// stays under --max-memory plus 64 MiB (the Go memory limit is
// --max-memory plus 48 MiB: garbage awaiting collection; the runtime's
// own memory comes on top).
func TestServeHostileMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("about 50 stalled clients against the built binary: not in -short")
	}
	needServeTool(t, "nbdcopy")
	raw := randBytes(t, 16<<20)
	img, pass := serveImage(t, "luks2", raw)
	cmd, sock, stderr := startServe(t, img, pass, "--max-memory", "32M")
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
	stop := make(chan struct{})
	peak := make(chan int64, 1)
	go func() {
		var p int64
		for {
			p = max(p, procStatus(t, cmd.Process.Pid, "RssAnon"))
			select {
			case <-stop:
				peak <- p
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	for i := range 52 {
		n := dialNBD(t, sock)
		conns = append(conns, n.c)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i < 40 {
				n.c.Write(nbdRequest(1, 1, 0, 4<<20))
				n.c.Write(payload) // blocks once the server stops reading
				return
			}
			var reqs []byte
			for h := range uint64(3) {
				reqs = append(reqs, nbdRequest(0, h, 0, 16<<20)...)
			}
			n.c.Write(reqs)
		}()
	}
	time.Sleep(500 * time.Millisecond)
	out := filepath.Join(t.TempDir(), "out")
	if b, err := exec.Command("nbdcopy", "nbd+unix:///?socket="+sock, out).CombinedOutput(); err != nil {
		t.Fatalf("nbdcopy with 52 stalled clients: %v %s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// The stalled writers' chunks that arrived were written (all zeros
	// at offset 0): only the rest of the export is compared.
	if len(got) != len(raw) || !bytes.Equal(got[4<<20:], raw[4<<20:]) {
		t.Fatal("nbdcopy read the wrong data")
	}
	close(stop)
	anon := <-peak
	t.Logf("peak anonymous RSS %d MiB (VmHWM %d MiB with the image's mapped pages)", anon>>20, procStatus(t, cmd.Process.Pid, "VmHWM")>>20)
	if anon > (32+64)<<20 {
		t.Errorf("peak anonymous RSS %d MiB, over --max-memory 32M plus 64M", anon>>20)
	}
	for _, c := range conns {
		c.Close()
	}
	conns = nil
	stopServe(t, cmd, stderr)
}
