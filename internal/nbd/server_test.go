package nbd

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/netip"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/fastxts/xts/internal/sock"
)

// slowWrites is a backend whose writes wait until released.
type slowWrites struct {
	*Mem
	started chan struct{}
	release chan struct{}
	flushed chan struct{}
	once    sync.Once
}

func (s *slowWrites) WriteAt(p []byte, off int64) (int, error) {
	s.started <- struct{}{}
	<-s.release
	return s.Mem.WriteAt(p, off)
}

func (s *slowWrites) Flush() error {
	s.once.Do(func() { close(s.flushed) })
	return nil
}

// TestShutdownFinishesInFlight checks that Shutdown answers the requests
// already read, flushes after the last write, stops accepting and makes
// Serve return ErrServerClosed.
func TestShutdownFinishesInFlight(t *testing.T) {
	b := &slowWrites{Mem: NewMem(make([]byte, 8192), 512, false), started: make(chan struct{}, 2), release: make(chan struct{}), flushed: make(chan struct{})}
	sock := filepath.Join(t.TempDir(), "s")
	l, err := listenUnix(sock)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Backend: b}
	served := make(chan error, 1)
	go func() { served <- s.Serve(l) }()
	cl := dial(t, sock, "")
	var reqs []byte
	for h := range uint64(2) {
		reqs = append(reqs, reqBytes(cmdWrite, 0, h, h*512, 512)...)
		reqs = append(reqs, bytes.Repeat([]byte{byte(h + 1)}, 512)...)
	}
	cl.write(reqs)
	<-b.started
	<-b.started
	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown(context.Background()) }()
	// Serve returns and the listener is closed while the writes still wait.
	if err := <-served; !errors.Is(err, ErrServerClosed) {
		t.Errorf("Serve: %v, want ErrServerClosed", err)
	}
	if c, err := net.Dial("unix", sock); err == nil {
		c.Close()
		t.Error("a new connection was accepted during Shutdown")
	}
	select {
	case <-b.flushed:
		t.Fatal("flushed before the writes finished")
	case err := <-shut:
		t.Fatalf("Shutdown returned %v before the writes finished", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(b.release)
	for range 2 {
		if _, errno, err := cl.reply(); err != nil || errno != 0 {
			t.Fatalf("write reply: errno %d %v", errno, err)
		}
	}
	if err := <-shut; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	select {
	case <-b.flushed:
	default:
		t.Error("Shutdown did not flush the backend")
	}
	if _, err := io.ReadFull(cl.r, make([]byte, 1)); err == nil {
		t.Error("the connection is still open after Shutdown")
	}
	want := append(bytes.Repeat([]byte{1}, 512), bytes.Repeat([]byte{2}, 512)...)
	if got := b.Mem.Bytes()[:1024]; !bytes.Equal(got, want) {
		t.Error("the writes answered during Shutdown are not in the backend")
	}
}

// TestShutdownDeadline checks that a client that never reads its replies
// cannot hold Shutdown past its context, and that Serve after Shutdown
// refuses.
func TestShutdownDeadline(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s")
	l, err := listenUnix(sock)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Backend: NewMem(make([]byte, 32<<20), 512, false), ErrorLog: log.New(io.Discard, "", 0)}
	go s.Serve(l)
	cl := dial(t, sock, "")
	var reqs []byte
	for h := range uint64(64) {
		reqs = append(reqs, reqBytes(cmdRead, 0, h, 0, 16<<20)...)
	}
	cl.write(reqs) // replies fill the socket: nobody reads them
	time.Sleep(100 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := s.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown: %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Shutdown took %v", d)
	}
	l2, err := listenUnix(sock + "2")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Serve(l2); !errors.Is(err, ErrServerClosed) {
		t.Errorf("Serve after Shutdown: %v", err)
	}
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		s    *Server
	}{
		{"no backend", &Server{}},
		{"block size not a power of two", &Server{Backend: NewMem(nil, 768, false)}},
		{"block size too big", &Server{Backend: NewMem(nil, 1<<17, false)}},
		{"MaxRequest not a multiple", &Server{Backend: NewMem(nil, 4096, false), MaxRequest: 6000}},
		{"name too long", &Server{Backend: NewMem(nil, 512, false), Name: string(make([]byte, 5000))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := listenUnix(filepath.Join(t.TempDir(), "s"))
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.s.Serve(l); err == nil || errors.Is(err, ErrServerClosed) {
				t.Errorf("Serve: %v, want a configuration error", err)
			}
		})
	}
}

// TestHandshakeIdle checks that a client silent in the handshake is
// dropped after HandshakeTimeout, and does not hold up Shutdown.
func TestHandshakeIdle(t *testing.T) {
	ts := startServer(t, NewMem(make([]byte, 4096), 512, false), func(s *Server) { s.HandshakeTimeout = 200 * time.Millisecond })
	cl := dialRaw(t, ts.sock, clientFixedNewstyle) // then silence
	start := time.Now()
	if !cl.closed() {
		t.Fatal("the server kept a silent client")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("dropped after %v, timeout 200ms", d)
	}

	ts2 := startServer(t, NewMem(make([]byte, 4096), 512, false))
	dialRaw(t, ts2.sock, clientFixedNewstyle)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start = time.Now()
	if err := ts2.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Shutdown waited %v for a client in the handshake", d)
	}
}

// TestTCP serves on a TCP listener and on a Unix socket at once: both
// clients see the same export.
func TestTCP(t *testing.T) {
	data := pattern(1<<20, 12)
	ts := startServer(t, NewMem(bytes.Clone(data), 512, false))
	l, addr, err := sock.ListenTCP(netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		t.Skipf("no TCP on loopback here: %v", err)
	}
	served := make(chan error, 1)
	go func() { served <- ts.Serve(l) }()
	tcp := dial(t, "tcp:"+addr.String(), "")
	unix := dial(t, ts.sock, "")
	if errno, _ := tcp.do(cmdWrite, cmdFlagFUA, 1000, 5, []byte("hello")); errno != 0 {
		t.Fatalf("write over TCP: errno %d", errno)
	}
	if errno, got := unix.do(cmdRead, 0, 998, 9, nil); errno != 0 || string(got[2:7]) != "hello" {
		t.Errorf("read over the Unix socket: errno %d, %q", errno, got)
	}
	if errno, got := tcp.do(cmdRead, 0, 0, 1000, nil); errno != 0 || !bytes.Equal(got, data[:1000]) {
		t.Errorf("read over TCP: errno %d", errno)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := ts.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-served; !errors.Is(err, ErrServerClosed) {
		t.Errorf("Serve(tcp): %v", err)
	}
}
