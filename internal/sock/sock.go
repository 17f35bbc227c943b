// Package sock is the listening and accepted stream sockets that xts
// serve hands to its NBD server. On Linux it makes them itself, through
// golang.org/x/sys/unix and the runtime's poller (an *os.File), so that
// the xts command does not import the net package: with cgo on, as a
// plain `go build` has it where a C compiler is installed, net links the
// C library for its resolver, and every xts command, a decrypt as much as
// a serve, then pays for the dynamic loader, libc's start and threads
// made through pthread_create (2-5 ms of each start on the Zen 5 VM where
// this was measured; bitlocker/README.md, Speed). Elsewhere it wraps the
// net package (sock_net.go), which the build tag socknet selects on Linux
// too, so that CI runs this package's and the NBD server's tests over
// that wrapper as well.
//
// What net did that these sockets do too: SO_REUSEADDR on TCP listeners,
// TCP_NODELAY and keep-alive (15 s) on accepted TCP connections,
// close-on-exec descriptors, deadlines, and a closed connection's error
// being os.ErrClosed. What they leave out: host names (ListenTCP takes
// an address; the caller resolves "localhost").
package sock

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// Conn is one accepted connection.
type Conn interface {
	io.ReadWriteCloser
	SetReadDeadline(t time.Time) error
	SetWriteDeadline(t time.Time) error
	// Peer is the client's address for messages: "host:port" for TCP,
	// "" for a Unix socket (whose clients have no name).
	Peer() string
}

// Listener accepts connections. Close makes a blocked Accept return an
// error matching os.ErrClosed.
type Listener interface {
	Accept() (Conn, error)
	Close() error
}

// BuffersWriter is implemented by the connections of this package: one
// system call (writev) for several buffers, as net.Buffers does.
type BuffersWriter interface {
	WriteBuffers(bufs [][]byte) (int64, error)
}

// keepAlive is the idle time before the first keep-alive probe on an
// accepted TCP connection, and the time between probes: net's default.
const keepAlive = 15 * time.Second

// ParseHostPort splits "HOST:PORT", "[IPv6]:PORT" or ":PORT" and checks
// the port (a number, 0 for any free one). The host is returned as
// given, without brackets; it may be empty.
func ParseHostPort(s string) (host string, port uint16, err error) {
	var p string
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 || !strings.HasPrefix(s[end+1:], ":") {
			return "", 0, errors.New("want [IPv6]:PORT")
		}
		host, p = s[1:end], s[end+2:]
	} else {
		i := strings.LastIndexByte(s, ':')
		if i < 0 {
			return "", 0, errors.New("missing the port (HOST:PORT)")
		}
		host, p = s[:i], s[i+1:]
		if strings.IndexByte(host, ':') >= 0 {
			return "", 0, errors.New("an IPv6 address goes in brackets ([::1]:PORT)")
		}
	}
	n, err := strconv.ParseUint(p, 10, 16)
	if err != nil {
		return "", 0, fmt.Errorf("port %q: want a number from 0 to 65535", p)
	}
	return host, uint16(n), nil
}

// ResolveHost turns a listening host into an address: an IP address as
// it is, "localhost" as 127.0.0.1. Other names are refused: resolving
// them would need the resolver this package exists to leave out.
func ResolveHost(host string) (netip.Addr, error) {
	if strings.EqualFold(host, "localhost") {
		return netip.AddrFrom4([4]byte{127, 0, 0, 1}), nil
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("host %q: want an IP address or localhost (host names are not looked up)", host)
	}
	if a.Zone() != "" {
		return netip.Addr{}, fmt.Errorf("host %q: IPv6 zones are not supported", host)
	}
	return a, nil
}
