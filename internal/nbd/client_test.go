package nbd

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// This file holds a tiny NBD client for the protocol tests and the
// helpers that start a server for them.

// testServer is a Server on a Unix socket in a temporary directory.
type testServer struct {
	*Server
	sock   string
	log    *lockedBuffer
	served chan error
}

// lockedBuffer collects the server's log lines.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startServer serves b on a fresh Unix socket; cleanup shuts it down and
// checks that Serve returned ErrServerClosed.
func startServer(t testing.TB, b Backend, configure ...func(*Server)) *testServer {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "nbd.sock")
	l, err := listenUnix(sock)
	if err != nil {
		t.Fatal(err)
	}
	lb := &lockedBuffer{}
	s := &Server{Backend: b, ErrorLog: log.New(lb, "", 0)}
	for _, f := range configure {
		f(s)
	}
	ts := &testServer{Server: s, sock: sock, log: lb, served: make(chan error, 1)}
	go func() { ts.served <- s.Serve(l) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-ts.served; !errors.Is(err, ErrServerClosed) {
			t.Errorf("Serve returned %v, want ErrServerClosed", err)
		}
	})
	return ts
}

func (ts *testServer) uri() string { return "nbd+unix:///?socket=" + ts.sock }

// client is a minimal NBD client: handshake and raw requests.
type client struct {
	t testing.TB
	c net.Conn
	r *bufio.Reader
	// after NBD_OPT_GO:
	size              uint64
	flags             uint16
	minB, prefB, maxB uint32
	handshakeFlags    uint16
}

// dialRaw connects (to a Unix socket, or to "tcp:HOST:PORT") and reads
// the server's greeting, sending clientFlags.
func dialRaw(t testing.TB, sock string, clientFlags uint32) *client {
	t.Helper()
	network, addr := "unix", sock
	if a, ok := strings.CutPrefix(sock, "tcp:"); ok {
		network, addr = "tcp", a
	}
	c, err := net.Dial(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(20 * time.Second))
	cl := &client{t: t, c: c, r: bufio.NewReader(c)}
	var g [18]byte
	if _, err := io.ReadFull(cl.r, g[:]); err != nil {
		t.Fatalf("reading the greeting: %v", err)
	}
	if binary.BigEndian.Uint64(g[0:]) != magicNBD || binary.BigEndian.Uint64(g[8:]) != magicIHaveOpt {
		t.Fatalf("greeting %x", g)
	}
	cl.handshakeFlags = binary.BigEndian.Uint16(g[16:])
	cl.write(binary.BigEndian.AppendUint32(nil, clientFlags))
	return cl
}

// dial connects and selects the export named name with NBD_OPT_GO.
func dial(t testing.TB, sock, name string) *client {
	t.Helper()
	cl := dialRaw(t, sock, clientFixedNewstyle|clientNoZeroes)
	cl.option(optGo, infoData(name, infoBlockSize))
	for {
		typ, data := cl.optReply(optGo)
		switch typ {
		case repInfo:
			switch binary.BigEndian.Uint16(data) {
			case infoExport:
				cl.size = binary.BigEndian.Uint64(data[2:])
				cl.flags = binary.BigEndian.Uint16(data[10:])
			case infoBlockSize:
				cl.minB = binary.BigEndian.Uint32(data[2:])
				cl.prefB = binary.BigEndian.Uint32(data[6:])
				cl.maxB = binary.BigEndian.Uint32(data[10:])
			}
		case repAck:
			return cl
		default:
			t.Fatalf("NBD_OPT_GO: reply %#x %q", typ, data)
		}
	}
}

func (cl *client) write(b []byte) {
	cl.t.Helper()
	if _, err := cl.c.Write(b); err != nil {
		cl.t.Fatalf("writing to the server: %v", err)
	}
}

// infoData is the data of NBD_OPT_INFO/GO.
func infoData(name string, infos ...uint16) []byte {
	d := binary.BigEndian.AppendUint32(nil, uint32(len(name)))
	d = append(d, name...)
	d = binary.BigEndian.AppendUint16(d, uint16(len(infos)))
	for _, i := range infos {
		d = binary.BigEndian.AppendUint16(d, i)
	}
	return d
}

func optBytes(code uint32, data []byte) []byte {
	b := binary.BigEndian.AppendUint64(nil, magicIHaveOpt)
	b = binary.BigEndian.AppendUint32(b, code)
	b = binary.BigEndian.AppendUint32(b, uint32(len(data)))
	return append(b, data...)
}

func (cl *client) option(code uint32, data []byte) { cl.t.Helper(); cl.write(optBytes(code, data)) }

// optReply reads one option reply to code.
func (cl *client) optReply(code uint32) (typ uint32, data []byte) {
	cl.t.Helper()
	var h [20]byte
	if _, err := io.ReadFull(cl.r, h[:]); err != nil {
		cl.t.Fatalf("reading an option reply: %v", err)
	}
	if m := binary.BigEndian.Uint64(h[0:]); m != magicOptReply {
		cl.t.Fatalf("option reply magic %#x", m)
	}
	if c := binary.BigEndian.Uint32(h[8:]); c != code {
		cl.t.Fatalf("reply to option %d, want %d", c, code)
	}
	data = make([]byte, binary.BigEndian.Uint32(h[16:]))
	if _, err := io.ReadFull(cl.r, data); err != nil {
		cl.t.Fatalf("reading option reply data: %v", err)
	}
	return binary.BigEndian.Uint32(h[12:]), data
}

func reqBytes(typ, flags uint16, handle, off uint64, length uint32) []byte {
	b := binary.BigEndian.AppendUint32(nil, magicRequest)
	b = binary.BigEndian.AppendUint16(b, flags)
	b = binary.BigEndian.AppendUint16(b, typ)
	b = binary.BigEndian.AppendUint64(b, handle)
	b = binary.BigEndian.AppendUint64(b, off)
	return binary.BigEndian.AppendUint32(b, length)
}

// send writes a request (and payload for a write).
func (cl *client) send(typ, flags uint16, handle, off uint64, length uint32, payload []byte) {
	cl.t.Helper()
	cl.write(append(reqBytes(typ, flags, handle, off, length), payload...))
}

// reply reads a simple reply header: handle and errno.
func (cl *client) reply() (handle uint64, errno uint32, err error) {
	var h [replyLen]byte
	if _, err := io.ReadFull(cl.r, h[:]); err != nil {
		return 0, 0, err
	}
	if m := binary.BigEndian.Uint32(h[0:]); m != magicReply {
		return 0, 0, fmt.Errorf("reply magic %#x", m)
	}
	return binary.BigEndian.Uint64(h[8:]), binary.BigEndian.Uint32(h[4:]), nil
}

// do sends one request and waits for its reply; a successful read
// returns its data.
func (cl *client) do(typ, flags uint16, off uint64, length uint32, payload []byte) (errno uint32, data []byte) {
	cl.t.Helper()
	cl.send(typ, flags, 7, off, length, payload)
	h, errno, err := cl.reply()
	if err != nil {
		cl.t.Fatalf("request %s: %v", cmdName(typ), err)
	}
	if h != 7 {
		cl.t.Fatalf("reply handle %d, want 7", h)
	}
	if typ == cmdRead && errno == 0 {
		data = make([]byte, length)
		if _, err := io.ReadFull(cl.r, data); err != nil {
			cl.t.Fatalf("reading read data: %v", err)
		}
	}
	return errno, data
}

// closed reports whether the server closed the connection (reads EOF
// within a few seconds).
func (cl *client) closed() bool {
	cl.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := cl.r.ReadByte()
	return errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || (err != nil && strings.Contains(err.Error(), "reset"))
}
