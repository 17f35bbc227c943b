package sock

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// endpoint is a listener and what a client dials to reach it.
type endpoint struct {
	l             Listener
	network, addr string
	skip          string // why there is none
}

// listeners returns a Unix and a TCP (loopback) listener with the
// address a client dials for each.
func listeners(t *testing.T) map[string]endpoint {
	t.Helper()
	out := map[string]endpoint{}
	path := filepath.Join(t.TempDir(), "s")
	ul, err := ListenUnix(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ul.Close() })
	out["unix"] = endpoint{l: ul, network: "unix", addr: path}
	tl, got, err := ListenTCP(netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		out["tcp"] = endpoint{skip: fmt.Sprintf("no TCP on loopback here: %v", err)}
		return out
	}
	t.Cleanup(func() { tl.Close() })
	if got.Port() == 0 || got.Addr() != netip.MustParseAddr("127.0.0.1") {
		t.Errorf("ListenTCP(127.0.0.1:0) got %v", got)
	}
	out["tcp"] = endpoint{l: tl, network: "tcp", addr: got.String()}
	return out
}

// connect dials ls and accepts the connection (skipping the test where
// ls is missing); the client is closed at the test's end.
func connect(t *testing.T, ls endpoint) (client net.Conn, c Conn) {
	t.Helper()
	if ls.skip != "" {
		t.Skip(ls.skip)
	}
	client, err := net.Dial(ls.network, ls.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	c, err = ls.l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	return client, c
}

// TestConn exchanges data both ways over each kind of listener, with
// WriteBuffers, and checks the peer, EOF, the deadlines and the errors
// after Close.
func TestConn(t *testing.T) {
	for name, ls := range listeners(t) {
		t.Run(name, func(t *testing.T) {
			client, c := connect(t, ls)
			defer c.Close()
			if name == "tcp" && c.Peer() != client.LocalAddr().String() {
				t.Errorf("Peer() = %q, want %q", c.Peer(), client.LocalAddr())
			} else if name == "unix" && c.Peer() != "" {
				t.Errorf("Peer() = %q for a Unix client", c.Peer())
			}
			if wb, ok := c.(interface{ SetWriteBuffer(int) error }); !ok {
				t.Error("no SetWriteBuffer")
			} else if err := wb.SetWriteBuffer(1 << 20); err != nil {
				t.Errorf("SetWriteBuffer: %v", err)
			}

			// Several buffers, larger than the socket holds: the
			// writev goes on after short writes.
			big := bytes.Repeat([]byte("0123456789abcdef"), 1<<18) // 4 MiB
			bufs := [][]byte{[]byte("head"), nil, big, []byte("tail")}
			want := append(append([]byte("head"), big...), "tail"...)
			done := make(chan error, 1)
			go func() {
				got := make([]byte, len(want))
				_, err := io.ReadFull(client, got)
				if err == nil && !bytes.Equal(got, want) {
					err = errors.New("the client read other bytes than were written")
				}
				done <- err
			}()
			bw, ok := c.(BuffersWriter)
			if !ok {
				t.Fatal("no WriteBuffers")
			}
			if n, err := bw.WriteBuffers(bufs); err != nil || n != int64(len(want)) {
				t.Fatalf("WriteBuffers = %d, %v; want %d", n, err, len(want))
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}

			// A read deadline soon: a timeout, then data once lifted.
			c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
			var b [8]byte
			_, err := c.Read(b[:])
			var te interface{ Timeout() bool }
			if !errors.As(err, &te) || !te.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Errorf("Read past the deadline: %v, want a timeout", err)
			}
			c.SetReadDeadline(time.Time{})
			client.Write([]byte("ping"))
			if _, err := io.ReadFull(c, b[:4]); err != nil || string(b[:4]) != "ping" {
				t.Errorf("Read: %q, %v", b[:4], err)
			}

			// The client goes: EOF.
			client.Close()
			if n, err := c.Read(b[:]); n != 0 || err != io.EOF {
				t.Errorf("Read after the client closed: %d, %v; want EOF", n, err)
			}

			// Closed here: every call says os.ErrClosed.
			c.Close()
			if _, err := c.Write([]byte("x")); !errors.Is(err, os.ErrClosed) {
				t.Errorf("Write after Close: %v", err)
			}
			if _, err := bw.WriteBuffers(bufs); !errors.Is(err, os.ErrClosed) {
				t.Errorf("WriteBuffers after Close: %v", err)
			}
		})
	}
}

// TestCloseDuring checks that Close ends an Accept and a Read blocked in
// another goroutine, with errors matching os.ErrClosed.
func TestCloseDuring(t *testing.T) {
	for name, ls := range listeners(t) {
		t.Run(name, func(t *testing.T) {
			_, c := connect(t, ls)
			read := make(chan error, 1)
			go func() {
				var b [1]byte
				_, err := c.Read(b[:])
				read <- err
			}()
			accept := make(chan error, 1)
			go func() {
				_, err := ls.l.Accept()
				accept <- err
			}()
			time.Sleep(50 * time.Millisecond)
			c.Close()
			ls.l.Close()
			for what, ch := range map[string]chan error{"Read": read, "Accept": accept} {
				select {
				case err := <-ch:
					if !errors.Is(err, os.ErrClosed) {
						t.Errorf("%s after Close: %v, want os.ErrClosed", what, err)
					}
				case <-time.After(10 * time.Second):
					t.Fatalf("%s still blocked 10 s after Close", what)
				}
			}
		})
	}
}

// TestListenErrors: an existing path, an address in use.
func TestListenErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if l, err := ListenUnix(path); err == nil {
		l.Close()
		t.Error("ListenUnix over an existing file worked")
	}
	l, got, err := ListenTCP(netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		t.Skipf("no TCP on loopback here: %v", err)
	}
	defer l.Close()
	if l2, _, err := ListenTCP(got); err == nil {
		l2.Close()
		t.Errorf("a second ListenTCP on %v worked", got)
	}
}

// TestDualStack: a listener on the unspecified IPv6 address takes IPv4
// clients too, and names them by their IPv4 address, as net does.
func TestDualStack(t *testing.T) {
	l, got, err := ListenTCP(netip.MustParseAddrPort("[::]:0"))
	if err != nil {
		t.Skipf("no IPv6 here: %v", err)
	}
	defer l.Close()
	if got.Port() == 0 || got.Addr() != netip.IPv6Unspecified() {
		t.Errorf("ListenTCP([::]:0) got %v", got)
	}
	for _, client := range []string{"127.0.0.1", "::1"} {
		t.Run(client, func(t *testing.T) {
			ep := endpoint{l: l, network: "tcp", addr: netip.AddrPortFrom(netip.MustParseAddr(client), got.Port()).String()}
			if client == "::1" {
				probe, _, err := ListenTCP(netip.MustParseAddrPort("[::1]:0"))
				if err != nil {
					t.Skipf("no IPv6 loopback here: %v", err)
				}
				probe.Close()
			}
			cl, c := connect(t, ep)
			defer c.Close()
			if c.Peer() != cl.LocalAddr().String() {
				t.Errorf("Peer() = %q, want %q", c.Peer(), cl.LocalAddr())
			}
		})
	}
}
