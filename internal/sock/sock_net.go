//go:build !linux || socknet

package sock

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
)

// ListenTCP listens on addr (port 0: a free one the kernel picks) and
// returns the address it got.
func ListenTCP(addr netip.AddrPort) (Listener, netip.AddrPort, error) {
	l, err := net.ListenTCP("tcp", net.TCPAddrFromAddrPort(addr))
	if err != nil {
		return nil, netip.AddrPort{}, err
	}
	return netListener{l}, l.Addr().(*net.TCPAddr).AddrPort(), nil
}

// ListenUnix listens on a new Unix socket at path, which must not exist.
// Close leaves the file: the caller removes it.
func ListenUnix(path string) (Listener, error) {
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, err
	}
	l.SetUnlinkOnClose(false)
	return netListener{l}, nil
}

type netListener struct{ l net.Listener }

func (l netListener) Accept() (Conn, error) {
	c, err := l.l.Accept()
	if err != nil {
		return nil, closedErr(err)
	}
	peer := ""
	if _, ok := c.(*net.TCPConn); ok {
		peer = c.RemoteAddr().String()
	}
	return netConn{c, peer}, nil
}

func (l netListener) Close() error { return l.l.Close() }

// netConn is a net.Conn whose errors after Close match os.ErrClosed.
type netConn struct {
	net.Conn
	peer string
}

func (c netConn) Peer() string { return c.peer }

func (c netConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	return n, closedErr(err)
}

func (c netConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	return n, closedErr(err)
}

func (c netConn) WriteBuffers(bufs [][]byte) (int64, error) {
	nb := net.Buffers(bufs)
	n, err := nb.WriteTo(c.Conn)
	return n, closedErr(err)
}

func (c netConn) SetWriteBuffer(n int) error {
	if wb, ok := c.Conn.(interface{ SetWriteBuffer(int) error }); ok {
		return wb.SetWriteBuffer(n)
	}
	return nil
}

func closedErr(err error) error {
	if err != nil && errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("%w (%w)", os.ErrClosed, err)
	}
	return err
}
