package nbd

import (
	"bytes"
	"errors"
	"io"
	"log"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fastxts/xts/internal/sock"
)

// This file holds tests of the server against clients that misbehave on
// purpose: oversized requests, more connections than allowed, clients
// that stall while holding memory, and accept failures.

// TestOversizedRequests checks that a READ or WRITE over the maximum
// block size (and a WRITE's payload under 32 MiB) is answered EINVAL and
// the connection goes on, with the data untouched.
func TestOversizedRequests(t *testing.T) {
	const size = 4 << 20
	orig := pattern(size, 5)
	m := NewMem(bytes.Clone(orig), 512, false)
	ts := startServer(t, m, func(s *Server) { s.MaxRequest = 1 << 20 })
	cl := dial(t, ts.sock, "")
	if errno, _ := cl.do(cmdRead, 0, 0, 1<<20+512, nil); errno != errInval {
		t.Errorf("oversized read: errno %d, want EINVAL", errno)
	}
	if errno, _ := cl.do(cmdWrite, 0, 0, 1<<20+512, bytes.Repeat([]byte{7}, 1<<20+512)); errno != errInval {
		t.Errorf("oversized write: errno %d, want EINVAL", errno)
	}
	if errno, data := cl.do(cmdRead, 0, 0, 1<<20, nil); errno != 0 || !bytes.Equal(data, orig[:1<<20]) {
		t.Errorf("read after the refusals: errno %d", errno)
	}
	if !bytes.Equal(m.Bytes(), orig) {
		t.Error("a refused write changed the data")
	}
}

// TestChunkedRequests serves READs and WRITEs much longer than the
// connection's memory share, pipelined, at odd offsets: they move in
// chunks and the data comes out right, with FUA flushing once a write.
func TestChunkedRequests(t *testing.T) {
	const size = 8 << 20
	orig := pattern(size, 6)
	b := &counting{Backend: NewMem(bytes.Clone(orig), 512, false)}
	ts := startServer(t, b, func(s *Server) {
		s.MaxMemory = 256 << 10
		s.MaxConnections = 4 // 64 KiB a connection: 16 KiB chunks
	})
	cl := dial(t, ts.sock, "")
	if ts.chunk != 16<<10 {
		t.Fatalf("chunk %d, want 16 KiB", ts.chunk)
	}
	want := bytes.Clone(orig)
	type op struct {
		typ      uint16
		off, len uint64
	}
	ops := []op{
		{cmdWrite, 3, 1<<20 + 5},
		{cmdRead, 4 << 20, 1<<20 + 7},
		{cmdWrite, 2<<20 + 16<<10 - 1, 2},
		{cmdRead, 1 << 22, 1},
		{cmdWrite, 6 << 20, 2 << 20},
		{cmdRead, 5<<20 + 100, 16<<10 + 1},
	}
	var reqs []byte
	for h, o := range ops {
		reqs = append(reqs, reqBytes(o.typ, cmdFlagFUA, uint64(h), o.off, uint32(o.len))...)
		if o.typ == cmdWrite {
			p := pattern(int(o.len), uint64(100+h))
			copy(want[o.off:], p)
			reqs = append(reqs, p...)
		}
	}
	go cl.c.Write(reqs)
	for range ops {
		h, errno, err := cl.reply()
		if err != nil || errno != 0 || h >= uint64(len(ops)) {
			t.Fatalf("reply: handle %d errno %d %v", h, errno, err)
		}
		if o := ops[h]; o.typ == cmdRead {
			data := make([]byte, o.len)
			if _, err := io.ReadFull(cl.r, data); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(data, orig[o.off:o.off+o.len]) {
				t.Errorf("read %d: wrong data", h)
			}
		}
	}
	if got := contents(t, b.Backend); !bytes.Equal(got, want) {
		t.Error("the export holds the wrong data after the chunked writes")
	}
	if n := b.flushes.Load(); n != 3 {
		t.Errorf("%d flushes for 3 FUA writes", n)
	}
	// The server gives a request's share back just after its reply has
	// gone out, so the client can see the last reply first.
	waitFor(t, "the budget to come back", func() bool { return ts.mem.inUse() == 0 })
}

// failAfter is a backend whose reads fail from an offset on.
type failAfter struct {
	*Mem
	from int64
}

func (f failAfter) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > f.from {
		return 0, errDisk
	}
	return f.Mem.ReadAt(p, off)
}

// TestChunkedReadFails checks a long READ whose backend fails after its
// first chunk went out: the connection closes (the protocol's only way
// to tell), other clients go on, and one failing in its first chunk is
// answered EIO.
func TestChunkedReadFails(t *testing.T) {
	b := failAfter{NewMem(make([]byte, 1<<20), 512, false), 512 << 10}
	ts := startServer(t, b, func(s *Server) { s.MaxInFlight = 68 << 10 }) // 32 KiB chunks
	cl := dial(t, ts.sock, "")
	other := dial(t, ts.sock, "")
	if errno, _ := cl.do(cmdRead, 0, 600<<10, 100<<10, nil); errno != errIO {
		t.Errorf("read failing at once: errno %d, want EIO", errno)
	}
	cl.send(cmdRead, 0, 1, 0, 1<<20, nil)
	if h, errno, err := cl.reply(); err != nil || h != 1 || errno != 0 {
		t.Fatalf("reply header: handle %d errno %d %v", h, errno, err)
	}
	n, _ := io.Copy(io.Discard, cl.r)
	if n >= 1<<20 {
		t.Errorf("got all %d bytes of a read that failed", n)
	}
	if !strings.Contains(ts.log.String(), "closing the connection") {
		t.Errorf("log %q does not say the connection closed", ts.log.String())
	}
	if errno, _ := other.do(cmdRead, 0, 0, 4096, nil); errno != 0 {
		t.Errorf("the other client: errno %d", errno)
	}
}

// TestTruncatedChunkedWrite cuts a long WRITE short: no reply, the
// connection closes, the budget is all given back.
func TestTruncatedChunkedWrite(t *testing.T) {
	ts := startServer(t, NewMem(make([]byte, 4<<20), 512, false), func(s *Server) { s.MaxInFlight = 36 << 10 })
	cl := dial(t, ts.sock, "")
	cl.write(append(reqBytes(cmdWrite, 0, 1, 0, 2<<20), make([]byte, 100<<10)...))
	cl.c.(interface{ CloseWrite() error }).CloseWrite()
	if !cl.closed() {
		t.Fatal("the server did not close the connection")
	}
	waitFor(t, "the budget to come back", func() bool { return ts.mem.inUse() == 0 })
}

// waitFor polls cond for a few seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for start := time.Now(); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > 5*time.Second {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestStalledClientsHoldTheirShare connects clients that stop: some
// send all but one byte of long writes, some pipeline long reads and
// never read the replies. The memory held never passes the budget, each
// stalled client holds at most its share, and a well-behaved client
// reads and writes meanwhile.
func TestStalledClientsHoldTheirShare(t *testing.T) {
	const (
		budget = 1 << 20
		conns  = 8 // a share of 128 KiB
		size   = 16 << 20
	)
	orig := pattern(size, 8)
	ts := startServer(t, NewMem(bytes.Clone(orig), 512, false), func(s *Server) {
		s.MaxMemory = budget
		s.MaxConnections = conns
		s.MaxRequest = 4 << 20
	})
	var peak int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	sample := func() {
		defer wg.Done()
		for {
			peak = max(peak, ts.mem.inUse())
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}
	for i := range conns - 1 {
		cl := dial(t, ts.sock, "")
		if i == 0 {
			go sample()
		}
		if i%2 == 0 {
			// The chunks that arrive are written: the well-behaved
			// client stays clear of them.
			go cl.c.Write(append(reqBytes(cmdWrite, 0, 1, 0, 4<<20), make([]byte, 4<<20-1)...))
		} else {
			var reqs []byte
			for h := range uint64(3) {
				reqs = append(reqs, reqBytes(cmdRead, 0, h, h<<20, 4<<20)...)
			}
			cl.write(reqs)
		}
	}
	time.Sleep(200 * time.Millisecond) // let the stalled clients pin what they can
	good := dial(t, ts.sock, "")
	for i := range 4 {
		off := uint64(8<<20 + i<<20)
		if errno, data := good.do(cmdRead, 0, off, 1<<20, nil); errno != 0 || !bytes.Equal(data, orig[off:off+1<<20]) {
			t.Fatalf("the well-behaved client's read %d: errno %d", i, errno)
		}
	}
	if errno, _ := good.do(cmdWrite, cmdFlagFUA, 12<<20, 1<<20, pattern(1<<20, 9)); errno != 0 {
		t.Fatalf("the well-behaved client's write: errno %d", errno)
	}
	close(stop)
	wg.Wait()
	if peak > budget {
		t.Errorf("%d bytes held at once, budget %d", peak, budget)
	}
	if max := int64(conns-1) * ts.share; peak > max+ts.share {
		t.Errorf("%d bytes held at once: more than the shares of the stalled clients (%d) and one", peak, max)
	}
	if peak < int64(conns-1)*ts.chunk/2 {
		t.Errorf("only %d bytes held at once: the stalled clients did not stall the way the test means", peak)
	}
}

// TestConnectionLimit fills MaxConnections: the next client gets
// NBD_REP_ERR_POLICY for its options, a log line counts the refusals,
// the clients connected carry on, and once one leaves a new one is
// served.
func TestConnectionLimit(t *testing.T) {
	ts := startServer(t, NewMem(make([]byte, 1<<20), 512, false), func(s *Server) { s.MaxConnections = 2 })
	a := dial(t, ts.sock, "")
	b := dial(t, ts.sock, "")
	for range 3 {
		r := dialRaw(t, ts.sock, clientFixedNewstyle|clientNoZeroes)
		r.option(optGo, infoData("", infoBlockSize))
		typ, msg := r.optReply(optGo)
		if typ != repErrPolicy || !strings.Contains(string(msg), "2 connections") {
			t.Errorf("refused NBD_OPT_GO: reply %#x %q, want NBD_REP_ERR_POLICY", typ, msg)
		}
		r.option(optAbort, nil)
		if typ, _ := r.optReply(optAbort); typ != repAck {
			t.Errorf("NBD_OPT_ABORT: reply %#x", typ)
		}
		if !r.closed() {
			t.Error("a refused client stays connected")
		}
	}
	r := dialRaw(t, ts.sock, clientFixedNewstyle)
	r.option(optExportName, nil)
	if !r.closed() {
		t.Error("a refused NBD_OPT_EXPORT_NAME was not closed")
	}
	for _, cl := range []*client{a, b} {
		if errno, _ := cl.do(cmdRead, 0, 0, 4096, nil); errno != 0 {
			t.Errorf("a connected client: errno %d", errno)
		}
	}
	if n := strings.Count(ts.log.String(), "refusing new clients"); n != 1 {
		t.Errorf("%d lines about refusing (want 1) in %q", n, ts.log.String())
	}
	a.write(reqBytes(cmdDisc, 0, 0, 0, 0))
	if !a.closed() {
		t.Fatal("NBD_CMD_DISC did not close")
	}
	var c *client
	for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
		// The slot frees once the server saw the close: until then a
		// new client may still be refused.
		r := dialRaw(t, ts.sock, clientFixedNewstyle|clientNoZeroes)
		r.option(optGo, infoData("", infoBlockSize))
		if typ, _ := r.optReply(optGo); typ == repInfo {
			c = r
			break
		}
		if time.Since(start) > 5*time.Second {
			t.Fatal("no new client served after one left")
		}
	}
	for typ, _ := c.optReply(optGo); typ != repAck; typ, _ = c.optReply(optGo) {
	}
	if errno, _ := c.do(cmdRead, 0, 0, 4096, nil); errno != 0 {
		t.Errorf("the new client: errno %d", errno)
	}
	if !strings.Contains(ts.log.String(), "after refusing 4 ") {
		t.Errorf("log %q does not count 4 refusals", ts.log.String())
	}
}

// flakyListener fails its first n Accepts with err.
type flakyListener struct {
	sock.Listener
	mu  sync.Mutex
	n   int
	err error
}

func (f *flakyListener) Accept() (sock.Conn, error) {
	f.mu.Lock()
	if f.n > 0 {
		f.n--
		f.mu.Unlock()
		return nil, f.err
	}
	f.mu.Unlock()
	return f.Listener.Accept()
}

// TestAcceptErrors checks that running out of file descriptors (and the
// like) pauses accepting, logged once, and does not stop the server,
// while any other accept error ends Serve.
func TestAcceptErrors(t *testing.T) {
	tests := []struct {
		name  string
		errno syscall.Errno
		n     int
		fatal bool
	}{
		{"EMFILE", syscall.EMFILE, 6, false},
		{"ENFILE", syscall.ENFILE, 2, false},
		{"ENOBUFS", syscall.ENOBUFS, 2, false},
		{"ENOMEM", syscall.ENOMEM, 2, false},
		{"ECONNABORTED", syscall.ECONNABORTED, 2, false},
		{"EBADF", syscall.EBADF, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sock := filepath.Join(t.TempDir(), "s")
			ul, err := listenUnix(sock)
			if err != nil {
				t.Fatal(err)
			}
			err = &net.OpError{Op: "accept", Net: "unix", Err: os.NewSyscallError("accept4", tt.errno)}
			l := &flakyListener{Listener: ul, n: tt.n, err: err}
			lb := &lockedBuffer{}
			s := &Server{Backend: NewMem(make([]byte, 4096), 512, false), ErrorLog: log.New(lb, "", 0)}
			served := make(chan error, 1)
			go func() { served <- s.Serve(l) }()
			if tt.fatal {
				select {
				case err := <-served:
					if !errors.Is(err, tt.errno) {
						t.Errorf("Serve: %v, want %v", err, tt.errno)
					}
				case <-time.After(5 * time.Second):
					t.Fatal("Serve did not return")
				}
				return
			}
			cl := dial(t, sock, "")
			if errno, _ := cl.do(cmdRead, 0, 0, 512, nil); errno != 0 {
				t.Errorf("read: errno %d", errno)
			}
			if err := s.Shutdown(t.Context()); err != nil {
				t.Fatal(err)
			}
			if err := <-served; !errors.Is(err, ErrServerClosed) {
				t.Errorf("Serve: %v", err)
			}
			out := lb.String()
			if strings.Count(out, "accept:") != 1 || !strings.Contains(out, tt.errno.Error()) {
				t.Errorf("log %q: want one line about %v", out, tt.errno)
			}
			if !strings.Contains(out, "accept works again after "+strconv.Itoa(tt.n)+" failed") {
				t.Errorf("log %q does not count %d failures", out, tt.n)
			}
		})
	}
}
