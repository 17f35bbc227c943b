//go:build linux && !socknet

package sock

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// listener is a listening socket in the runtime's poller: Accept waits
// there, not in a thread of its own.
type listener struct {
	f      *os.File
	rc     syscall.RawConn
	tcp    bool
	closed atomic.Bool
}

// ListenTCP listens on addr (port 0: a free one the kernel picks) and
// returns the address it got. The unspecified IPv6 address listens on
// IPv4 too.
func ListenTCP(addr netip.AddrPort) (Listener, netip.AddrPort, error) {
	ip := addr.Addr()
	var sa unix.Sockaddr
	family := unix.AF_INET
	if ip.Is4() || ip.Is4In6() {
		sa = &unix.SockaddrInet4{Port: int(addr.Port()), Addr: ip.Unmap().As4()}
	} else if ip.Is6() {
		family = unix.AF_INET6
		sa = &unix.SockaddrInet6{Port: int(addr.Port()), Addr: ip.As16()}
	} else {
		return nil, netip.AddrPort{}, fmt.Errorf("listen tcp: no address")
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, netip.AddrPort{}, os.NewSyscallError("socket", err)
	}
	// Restart at once on a port whose old connections are in
	// TIME_WAIT, as net does on every listener.
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		unix.Close(fd)
		return nil, netip.AddrPort{}, os.NewSyscallError("setsockopt", err)
	}
	if family == unix.AF_INET6 && ip.IsUnspecified() {
		unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, 0) // best effort, as net
	}
	l, err := listen(fd, sa, "tcp "+addr.String())
	if err != nil {
		return nil, netip.AddrPort{}, err
	}
	l.tcp = true
	got, err := unix.Getsockname(fd)
	if err != nil {
		l.Close()
		return nil, netip.AddrPort{}, os.NewSyscallError("getsockname", err)
	}
	return l, addrPort(got), nil
}

// ListenUnix listens on a new Unix socket at path, which must not exist.
// Close leaves the file: the caller removes it.
func ListenUnix(path string) (Listener, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	return listen(fd, &unix.SockaddrUnix{Name: path}, "unix "+path)
}

// listen binds fd to sa and listens; on error it closes fd.
func listen(fd int, sa unix.Sockaddr, name string) (*listener, error) {
	if err := unix.Bind(fd, sa); err != nil {
		unix.Close(fd)
		return nil, &os.PathError{Op: "listen", Path: name, Err: err}
	}
	// The kernel caps the backlog at net.core.somaxconn.
	if err := unix.Listen(fd, 4096); err != nil {
		unix.Close(fd)
		return nil, &os.PathError{Op: "listen", Path: name, Err: err}
	}
	f := os.NewFile(uintptr(fd), name) // non-blocking: in the poller
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &listener{f: f, rc: rc}, nil
}

func (l *listener) Accept() (Conn, error) {
	var (
		nfd int
		sa  unix.Sockaddr
		err error
	)
	rerr := l.rc.Read(func(fd uintptr) bool {
		for {
			nfd, sa, err = unix.Accept4(int(fd), unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
			if err != unix.EINTR {
				return err != unix.EAGAIN
			}
		}
	})
	if l.closed.Load() {
		if rerr == nil && err == nil {
			unix.Close(nfd)
		}
		return nil, fmt.Errorf("accept: %w", os.ErrClosed)
	}
	if rerr != nil {
		return nil, rerr
	}
	if err != nil {
		return nil, os.NewSyscallError("accept4", err)
	}
	peer := ""
	if l.tcp {
		peer = addrPort(sa).String()
		// As net does for the connections it accepts: no Nagle delay
		// on replies, and keep-alive probes that find a dead peer.
		unix.SetsockoptInt(nfd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		unix.SetsockoptInt(nfd, unix.SOL_SOCKET, unix.SO_KEEPALIVE, 1)
		secs := int(keepAlive / time.Second)
		unix.SetsockoptInt(nfd, unix.IPPROTO_TCP, unix.TCP_KEEPIDLE, secs)
		unix.SetsockoptInt(nfd, unix.IPPROTO_TCP, unix.TCP_KEEPINTVL, secs)
	}
	f := os.NewFile(uintptr(nfd), "socket")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &conn{File: f, rc: rc, peer: peer}, nil
}

func (l *listener) Close() error {
	l.closed.Store(true)
	return l.f.Close()
}

func addrPort(sa unix.Sockaddr) netip.AddrPort {
	switch sa := sa.(type) {
	case *unix.SockaddrInet4:
		return netip.AddrPortFrom(netip.AddrFrom4(sa.Addr), uint16(sa.Port))
	case *unix.SockaddrInet6:
		// An IPv4 peer of a dual-stack listener comes as ::ffff:a.b.c.d;
		// named as net names it, a.b.c.d.
		return netip.AddrPortFrom(netip.AddrFrom16(sa.Addr).Unmap(), uint16(sa.Port))
	}
	return netip.AddrPort{}
}

// conn is an accepted connection: an *os.File in the poller (Read, Write,
// Close and the deadlines are its own) with writev and SO_SNDBUF.
type conn struct {
	*os.File
	rc     syscall.RawConn
	peer   string
	closed atomic.Bool
}

func (c *conn) Close() error {
	c.closed.Store(true)
	return c.File.Close()
}

func (c *conn) Peer() string { return c.peer }

// SetWriteBuffer sets the socket's send buffer (SO_SNDBUF), as
// net.TCPConn's method of that name.
func (c *conn) SetWriteBuffer(n int) error {
	var err error
	if cerr := c.rc.Control(func(fd uintptr) {
		err = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_SNDBUF, n)
	}); cerr != nil {
		return cerr
	}
	return os.NewSyscallError("setsockopt", err)
}

// WriteBuffers writes every buffer in order, in as few writev calls as
// the socket takes; like Write it returns an error only when not all
// was written.
func (c *conn) WriteBuffers(bufs [][]byte) (int64, error) {
	var total int64
	iov := make([][]byte, 0, len(bufs))
	for _, b := range bufs {
		if len(b) > 0 {
			iov = append(iov, b)
		}
	}
	for len(iov) > 0 {
		var (
			n   int
			err error
		)
		rerr := c.rc.Write(func(fd uintptr) bool {
			for {
				n, err = unix.Writev(int(fd), iov[:min(len(iov), 1024)]) // IOV_MAX
				if err != unix.EINTR {
					return err != unix.EAGAIN
				}
			}
		})
		if rerr != nil {
			if c.closed.Load() && !errors.Is(rerr, os.ErrDeadlineExceeded) {
				rerr = fmt.Errorf("writev: %w", os.ErrClosed) // as Write says it
			}
			return total, rerr
		}
		if err != nil {
			return total, &os.PathError{Op: "writev", Path: c.Name(), Err: err}
		}
		total += int64(n)
		for n > 0 {
			if n < len(iov[0]) {
				iov[0] = iov[0][n:]
				break
			}
			n -= len(iov[0])
			iov = iov[1:]
		}
	}
	return total, nil
}
