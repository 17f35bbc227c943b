package nbd

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// pattern returns n bytes that differ with their offset.
func pattern(n int, seed uint64) []byte {
	b := make([]byte, n)
	var key [32]byte
	key[0] = byte(seed)
	key[1] = byte(seed >> 8)
	rand.NewChaCha8(key).Read(b)
	return b
}

// counting wraps a Backend and counts Flush calls.
type counting struct {
	Backend
	flushes atomic.Int64
}

func (c *counting) Flush() error { c.flushes.Add(1); return c.Backend.Flush() }

// TestRequests runs requests one at a time against a 64 KiB memory export
// with 512-byte sectors and checks each reply and the data afterwards.
func TestRequests(t *testing.T) {
	const size = 64 << 10
	tests := []struct {
		name      string
		readOnly  bool
		typ       uint16
		flags     uint16
		off       uint64
		length    uint32
		payload   []byte
		wantErrno uint32
		wantFlush int64
		// the data afterwards: bytes [off, off+length) replaced by want
		want []byte
	}{
		{name: "read", typ: cmdRead, off: 100, length: 1000},
		{name: "read to the end", typ: cmdRead, off: size - 3, length: 3},
		{name: "read zero bytes", typ: cmdRead, off: size, length: 0},
		{name: "read past the end", typ: cmdRead, off: size - 3, length: 4, wantErrno: errInval},
		{name: "read far past the end", typ: cmdRead, off: 1 << 63, length: 1, wantErrno: errInval},
		{name: "read wrapping", typ: cmdRead, off: ^uint64(0), length: 2, wantErrno: errInval},
		{name: "read with FUA", typ: cmdRead, flags: cmdFlagFUA, off: 0, length: 512},
		{name: "read with NO_HOLE", typ: cmdRead, flags: cmdFlagNoHole, off: 0, length: 512, wantErrno: errInval},
		{name: "read with DF", typ: cmdRead, flags: 1 << 2, off: 0, length: 512, wantErrno: errInval},
		{name: "write odd", typ: cmdWrite, off: 1, length: 3, payload: []byte{1, 2, 3}, want: []byte{1, 2, 3}},
		{name: "write across sectors", typ: cmdWrite, off: 510, length: 1030, payload: bytes.Repeat([]byte{9}, 1030), want: bytes.Repeat([]byte{9}, 1030)},
		{name: "write FUA", typ: cmdWrite, flags: cmdFlagFUA, off: 4096, length: 4, payload: []byte("abcd"), want: []byte("abcd"), wantFlush: 1},
		{name: "write past the end", typ: cmdWrite, off: size - 2, length: 4, payload: []byte("abcd"), wantErrno: errNoSpc},
		{name: "write far past the end", typ: cmdWrite, off: 1 << 40, length: 4, payload: []byte("abcd"), wantErrno: errNoSpc},
		{name: "write wrapping", typ: cmdWrite, off: ^uint64(0), length: 4, payload: []byte("abcd"), wantErrno: errNoSpc},
		{name: "write past the end read-only", readOnly: true, typ: cmdWrite, off: size - 2, length: 4, payload: []byte("abcd"), wantErrno: errPerm},
		{name: "write zero bytes past the end", typ: cmdWrite, off: size + 1, length: 0, wantErrno: errNoSpc},
		{name: "write zero bytes read-only", readOnly: true, typ: cmdWrite, off: 0, length: 0, wantErrno: errPerm},
		{name: "write read-only", readOnly: true, typ: cmdWrite, off: 0, length: 4, payload: []byte("abcd"), wantErrno: errPerm},
		{name: "write bad flag", typ: cmdWrite, flags: 1 << 9, off: 0, length: 4, payload: []byte("abcd"), wantErrno: errInval},
		{name: "flush", typ: cmdFlush, wantFlush: 1},
		{name: "flush read-only", readOnly: true, typ: cmdFlush},
		{name: "write zeroes", typ: cmdWriteZeroes, off: 7, length: 3000, want: make([]byte, 3000)},
		{name: "write zeroes no hole FUA", typ: cmdWriteZeroes, flags: cmdFlagNoHole | cmdFlagFUA, off: 0, length: size, want: make([]byte, size), wantFlush: 1},
		{name: "write zeroes read-only", readOnly: true, typ: cmdWriteZeroes, off: 0, length: 1, wantErrno: errPerm},
		{name: "write zeroes past the end", typ: cmdWriteZeroes, off: 1, length: size, wantErrno: errNoSpc},
		{name: "write zeroes zero bytes", typ: cmdWriteZeroes, off: size, length: 0},
		{name: "trim unsupported", typ: cmdTrim, off: 0, length: 512, wantErrno: errInval},
		{name: "trim read-only", readOnly: true, typ: cmdTrim, off: 0, length: 512, wantErrno: errPerm},
		{name: "trim read-only past the end", readOnly: true, typ: cmdTrim, off: size, length: 512, wantErrno: errPerm},
		{name: "trim read-only zero bytes", readOnly: true, typ: cmdTrim, off: 0, length: 0, wantErrno: errPerm},
		{name: "read oversized", typ: cmdRead, off: 0, length: DefaultMaxRequest + 1, wantErrno: errInval},
		{name: "cache", typ: 5, off: 0, length: 512, wantErrno: errInval},
		{name: "block status", typ: 7, off: 0, length: 512, wantErrno: errInval},
		{name: "unknown command", typ: 0x1234, wantErrno: errInval},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig := pattern(size, 1)
			b := &counting{Backend: NewMem(bytes.Clone(orig), 512, tt.readOnly)}
			ts := startServer(t, b)
			cl := dial(t, ts.sock, "")
			errno, data := cl.do(tt.typ, tt.flags, tt.off, tt.length, tt.payload)
			if errno != tt.wantErrno {
				t.Fatalf("errno %d, want %d", errno, tt.wantErrno)
			}
			if tt.typ == cmdRead && errno == 0 && !bytes.Equal(data, orig[tt.off:tt.off+uint64(tt.length)]) {
				t.Error("read returned the wrong data")
			}
			if n := b.flushes.Load(); n != tt.wantFlush {
				t.Errorf("%d flushes, want %d", n, tt.wantFlush)
			}
			want := orig
			if tt.want != nil {
				want = bytes.Clone(orig)
				copy(want[tt.off:], tt.want)
			}
			// Read the whole export back through the server.
			_, got := cl.do(cmdRead, 0, 0, size, nil)
			if !bytes.Equal(got, want) {
				t.Error("the export holds the wrong data afterwards")
			}
		})
	}
}

// TestRequestRefused checks requests that close the connection: the
// server logs why and keeps serving other clients.
func TestRequestRefused(t *testing.T) {
	tests := []struct {
		name    string
		send    []byte
		wantLog string
	}{
		{"bad magic", append([]byte{0x25, 0x60, 0x95, 0x14}, make([]byte, 24)...), "request magic"},
		{"oversized write", reqBytes(cmdWrite, 0, 1, 0, 1<<31), "at most 1048576"},
		{"oversized write over 32 MiB", reqBytes(cmdWrite, 0, 1, 0, 32<<20+1), "at most 1048576"},
		{"truncated refused write payload", append(reqBytes(cmdWrite, 0, 1, 0, 1<<20+1), 1, 2, 3), "payload of a refused write"},
		{"truncated write payload", append(reqBytes(cmdWrite, 0, 1, 0, 100), 1, 2, 3), "payload of a write"},
		{"truncated header", reqBytes(cmdRead, 0, 1, 0, 100)[:20], "reading a request"},
	}
	ts := startServer(t, NewMem(make([]byte, 4<<20), 512, false), func(s *Server) { s.MaxRequest = 1 << 20 })
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			other := dial(t, ts.sock, "")
			cl := dial(t, ts.sock, "")
			cl.write(tt.send)
			cl.c.(interface{ CloseWrite() error }).CloseWrite()
			if !cl.closed() {
				t.Fatal("the server did not close the connection")
			}
			if !strings.Contains(ts.log.String(), tt.wantLog) {
				t.Errorf("log %q does not say %q", ts.log.String(), tt.wantLog)
			}
			if errno, data := other.do(cmdRead, 0, 0, 1<<20, nil); errno != 0 || len(data) != 1<<20 {
				t.Errorf("the other client's read: errno %d, %d bytes", errno, len(data))
			}
		})
	}
}

// failing is a backend whose reads and writes fail.
type failing struct{ *Mem }

var errDisk = errors.New("disk on fire")

func (failing) ReadAt([]byte, int64) (int, error)  { return 0, errDisk }
func (failing) WriteAt([]byte, int64) (int, error) { return 0, errDisk }

func TestBackendErrors(t *testing.T) {
	ts := startServer(t, failing{NewMem(make([]byte, 4096), 512, false)})
	cl := dial(t, ts.sock, "")
	for _, typ := range []uint16{cmdRead, cmdWrite, cmdWriteZeroes} {
		var payload []byte
		if typ == cmdWrite {
			payload = make([]byte, 512)
		}
		if errno, _ := cl.do(typ, 0, 0, 512, payload); errno != errIO {
			t.Errorf("%s: errno %d, want EIO", cmdName(typ), errno)
		}
	}
	if !strings.Contains(ts.log.String(), "disk on fire") {
		t.Errorf("log %q does not name the backend error", ts.log.String())
	}
	// The connection still works.
	if errno, _ := cl.do(cmdFlush, 0, 0, 0, nil); errno != 0 {
		t.Errorf("flush: errno %d", errno)
	}
}

// TestPipelined sends many requests before reading any reply and checks
// that each reply, in whatever order, matches its request.
func TestPipelined(t *testing.T) {
	const size, n = 1 << 20, 300
	orig := pattern(size, 2)
	m := NewMem(bytes.Clone(orig), 512, false)
	ts := startServer(t, m)
	cl := dial(t, ts.sock, "")
	type op struct {
		typ      uint16
		off, len uint64
	}
	ops := make(map[uint64]op)
	want := bytes.Clone(orig)
	r := rand.New(rand.NewPCG(3, 4))
	var sendErr error
	var wg sync.WaitGroup
	// Writes go to the upper half, reads to the lower half: requests in
	// flight together may run in any order.
	var reqs []byte
	for h := uint64(0); h < n; h++ {
		l := uint64(1 + r.IntN(5000)) // writes are 5191 bytes apart
		if h%3 == 0 {
			off := size/2 + (h/3)*(size/2/(n/3+1))
			payload := pattern(int(l), h)
			copy(want[off:], payload)
			ops[h] = op{cmdWrite, off, l}
			reqs = append(reqs, reqBytes(cmdWrite, 0, h, off, uint32(l))...)
			reqs = append(reqs, payload...)
		} else {
			off := uint64(r.IntN(size/2 - 8192))
			ops[h] = op{cmdRead, off, l}
			reqs = append(reqs, reqBytes(cmdRead, 0, h, off, uint32(l))...)
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, sendErr = cl.c.Write(reqs)
	}()
	for range n {
		h, errno, err := cl.reply()
		if err != nil {
			t.Fatal(err)
		}
		o, ok := ops[h]
		if !ok {
			t.Fatalf("reply for unknown or repeated handle %d", h)
		}
		delete(ops, h)
		if errno != 0 {
			t.Fatalf("handle %d: errno %d", h, errno)
		}
		if o.typ == cmdRead {
			data := make([]byte, o.len)
			if _, err := io.ReadFull(cl.r, data); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(data, orig[o.off:o.off+o.len]) {
				t.Fatalf("handle %d: wrong data", h)
			}
		}
	}
	wg.Wait()
	if sendErr != nil {
		t.Fatal(sendErr)
	}
	if !bytes.Equal(m.Bytes(), want) {
		t.Error("the export holds the wrong data after the writes")
	}
}

// gauge is a backend that records the most read bytes in flight at once
// and holds each read a moment so that they pile up.
type gauge struct {
	*Mem
	mu        sync.Mutex
	cur, peak int
}

func (g *gauge) ReadAt(p []byte, off int64) (int, error) {
	g.mu.Lock()
	g.cur += len(p)
	g.peak = max(g.peak, g.cur)
	g.mu.Unlock()
	time.Sleep(time.Millisecond)
	defer func() { g.mu.Lock(); g.cur -= len(p); g.mu.Unlock() }()
	return g.Mem.ReadAt(p, off)
}

// TestInFlightBound checks that a client pipelining more than MaxInFlight
// bytes of reads never has more than that in the backend at once, and
// still gets every reply.
func TestInFlightBound(t *testing.T) {
	const limit, n, l = 256 << 10, 100, 64 << 10
	g := &gauge{Mem: NewMem(make([]byte, 1<<20), 512, false)}
	ts := startServer(t, g, func(s *Server) { s.MaxInFlight = limit })
	cl := dial(t, ts.sock, "")
	var reqs []byte
	for h := range uint64(n) {
		reqs = append(reqs, reqBytes(cmdRead, 0, h, h*4096, l)...)
	}
	go cl.c.Write(reqs)
	for range n {
		if _, errno, err := cl.reply(); err != nil || errno != 0 {
			t.Fatalf("reply: errno %d, %v", errno, err)
		}
		if _, err := io.CopyN(io.Discard, cl.r, l); err != nil {
			t.Fatal(err)
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.peak > limit {
		t.Errorf("%d bytes of reads in flight, limit %d", g.peak, limit)
	}
	if g.peak < 2*l {
		t.Errorf("at most %d bytes in flight: the reads did not run concurrently", g.peak)
	}
}

// TestDisconnect checks that NBD_CMD_DISC ends the connection after the
// requests before it were answered.
func TestDisconnect(t *testing.T) {
	ts := startServer(t, NewMem(make([]byte, 4096), 512, false))
	cl := dial(t, ts.sock, "")
	var reqs []byte
	reqs = append(reqs, reqBytes(cmdWrite, 0, 1, 0, 4)...)
	reqs = append(reqs, "abcd"...)
	reqs = append(reqs, reqBytes(cmdDisc, 0, 2, 0, 0)...)
	cl.write(reqs)
	h, errno, err := cl.reply()
	if err != nil || h != 1 || errno != 0 {
		t.Fatalf("write reply: handle %d errno %d %v", h, errno, err)
	}
	if !cl.closed() {
		t.Fatal("the server did not close the connection")
	}
}

// noEmpty is a backend that must never see an empty request.
type noEmpty struct {
	*Mem
	t *testing.T
}

func (n noEmpty) ReadAt(p []byte, off int64) (int, error) {
	if len(p) == 0 {
		n.t.Errorf("empty read at %d reached the backend", off)
	}
	return n.Mem.ReadAt(p, off)
}

func (n noEmpty) WriteAt(p []byte, off int64) (int, error) {
	if len(p) == 0 {
		n.t.Errorf("empty write at %d reached the backend", off)
	}
	return n.Mem.WriteAt(p, off)
}

// TestZeroLength checks that zero-length requests succeed without a
// backend call (luks.Volume.WriteAt of nothing at its end would fail).
func TestZeroLength(t *testing.T) {
	ts := startServer(t, noEmpty{NewMem(make([]byte, 4096), 512, false), t})
	cl := dial(t, ts.sock, "")
	for _, typ := range []uint16{cmdRead, cmdWrite, cmdWriteZeroes} {
		for _, off := range []uint64{0, 100, 4096} {
			if errno, data := cl.do(typ, cmdFlagFUA, off, 0, nil); errno != 0 || len(data) != 0 {
				t.Errorf("%s of 0 bytes at %d: errno %d, %d bytes", cmdName(typ), off, errno, len(data))
			}
		}
	}
}
