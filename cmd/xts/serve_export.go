package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/netip"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/fastxts/xts/cmd/xts/internal/exit"
	"github.com/fastxts/xts/internal/nbd"
	"github.com/fastxts/xts/internal/sock"
)

// serveOptions are the flags that xts serve and xts luks serve share:
// where to listen, read-only, and a command to run against the export.
type serveOptions struct {
	socket   string
	listen   string
	readOnly bool
	run      string
	maxConns int
	maxMem   string
	memBytes int64 // maxMem parsed by validate
}

// defaultMaxMemory is --max-memory's default, nbd.DefaultMaxMemory.
const defaultMaxMemory = "128M"

// memLimitSlack is what the Go runtime may hold beyond --max-memory
// (its own structures, garbage not yet collected, the image's buffers):
// serveExport sets the process's soft memory limit to their sum.
const memLimitSlack = 48 << 20

const serveFlagsHelp = `The export is served on a Unix socket (--socket PATH: created 0600, it
must not exist, removed on exit) or on TCP (--listen HOST:PORT, HOST an
IP address or localhost, default 127.0.0.1; any other address gets a
warning, as the decrypted data then crosses the network in clear). With --run CMD and neither, a
private socket is made. One line on standard error says when the server
is ready and its URI (nbd+unix:///?socket=PATH or nbd://HOST:PORT).
--run CMD starts CMD with the shell once the server is ready, with $uri
set to that URI, and exits with its status when it ends (as nbdkit --run).
SIGINT, SIGTERM or SIGHUP stop the server: it stops accepting, answers
the requests in flight, flushes the image to disk, wipes the key, removes
the socket and exits 0. Several clients may connect at once, up to
--max-connections N (default 64; 0: no limit): the next one is refused
(NBD_REP_ERR_POLICY, "server busy") and a line on standard error counts
the refusals. --max-memory SIZE (default 128M; K, M, G: powers of 1024)
bounds the requests and replies all clients hold in the server at once;
each connection gets an equal share, and a client that stops reading its
replies or stops sending a write holds no more than that, the others go
on. The process's Go memory limit is set to SIZE plus 48M (unless
GOMEMLIMIT is set). A client that says nothing for 10 seconds during the
handshake is dropped. The image
is locked (flock) while served: exclusively for writing, shared with
--readonly, so a second server of it exits 5 unless both are read-only.
`

func (o *serveOptions) flags(fs *cmdFlags) {
	fs.StringVar(&o.socket, "socket", "", "serve on a new Unix socket at `PATH` (0600, removed on exit)")
	fs.StringVar(&o.listen, "listen", "", "serve on TCP `HOST:PORT` (an IP address or localhost; 127.0.0.1 when empty)")
	fs.BoolVar(&o.readOnly, "readonly", false, "refuse writes")
	fs.StringVar(&o.run, "run", "", "run shell `CMD` with $uri set once ready; exit with its status")
	fs.IntVar(&o.maxConns, "max-connections", nbd.DefaultMaxConnections, "serve at most `N` clients at once (0: no limit)")
	fs.StringVar(&o.maxMem, "max-memory", defaultMaxMemory, "hold at most `SIZE` of requests and replies in memory (K, M, G)")
}

func (o *serveOptions) validate() error {
	if o.socket != "" && o.listen != "" {
		return usagef("--socket and --listen do not go together: pick one")
	}
	if o.socket == "" && o.listen == "" && o.run == "" {
		return usagef("want --socket PATH or --listen HOST:PORT (or --run CMD)")
	}
	if o.maxConns < 0 {
		return usagef("--max-connections %d: want 0 (no limit) or more", o.maxConns)
	}
	n, err := parseCryptsetupSize("max-memory", o.maxMem)
	if err != nil {
		return err
	}
	if n < 1<<20 || n > 1<<50 {
		return usagef("--max-memory %s: want 1M or more (and less than 1P)", o.maxMem)
	}
	o.memBytes = int64(n)
	conns := o.maxConns
	if conns == 0 {
		conns = nbd.DefaultMaxConnections
	}
	if o.memBytes/int64(conns) < 72<<10 {
		return usagef("--max-memory %s leaves each of %d connections less than 72K: raise it or lower --max-connections", o.maxMem, conns)
	}
	return nil
}

// listener opens what the options ask for and returns it with the URI
// clients use, the address to warn about (a non-loopback TCP address, or
// "") and a cleanup that closes it and removes the socket.
func (o *serveOptions) listener() (l sock.Listener, uri, warnAddr string, cleanup func(), err error) {
	switch {
	case o.listen != "":
		addr := o.listen
		if !strings.Contains(addr, ":") {
			addr = ":" + addr // a bare port
		}
		host, port, err := sock.ParseHostPort(addr)
		if err != nil {
			return nil, "", "", nil, usagef("--listen %q: %v", o.listen, err)
		}
		if host == "" {
			host = "127.0.0.1"
		}
		ip, err := sock.ResolveHost(host)
		if err != nil {
			return nil, "", "", nil, usagef("--listen %q: %v", o.listen, err)
		}
		l, got, err := sock.ListenTCP(netip.AddrPortFrom(ip, port))
		if err != nil {
			return nil, "", "", nil, err
		}
		if !got.Addr().IsLoopback() {
			warnAddr = got.String()
		}
		uriHost := host
		if got.Addr().IsUnspecified() {
			uriHost = "localhost"
		}
		if strings.Contains(uriHost, ":") {
			uriHost = "[" + uriHost + "]"
		}
		uri = fmt.Sprintf("nbd://%s:%d", uriHost, got.Port())
		return l, uri, warnAddr, func() { l.Close() }, nil
	case o.socket != "":
		l, err := listenUnixPrivate(o.socket)
		if err != nil {
			return nil, "", "", nil, err
		}
		abs, err := filepath.Abs(o.socket) // the URI works from any directory
		if err != nil {
			abs = o.socket
		}
		return l, socketURI(abs), "", func() { l.Close(); os.Remove(o.socket) }, nil
	default: // --run alone: a socket in a private directory
		dir, err := os.MkdirTemp("", "xts-serve-")
		if err != nil {
			return nil, "", "", nil, err
		}
		path := filepath.Join(dir, "nbd.sock")
		l, err := sock.ListenUnix(path)
		if err != nil {
			os.RemoveAll(dir)
			return nil, "", "", nil, err
		}
		return l, socketURI(path), "", func() { l.Close(); os.RemoveAll(dir) }, nil
	}
}

// socketURI is the NBD URI of the socket at path: the path is the query's
// value, percent-encoded except for letters, digits, "-._~" and "/".
func socketURI(path string) string {
	var b strings.Builder
	b.WriteString("nbd+unix:///?socket=")
	for i := range len(path) {
		c := path[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~/", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// listenUnixPrivate creates a listening Unix socket at path that nobody
// else can connect to at any moment: it is made in a new 0700 directory
// beside path, set 0600, then hard-linked to path (which fails if path
// exists, so nothing is replaced).
func listenUnixPrivate(path string) (sock.Listener, error) {
	if _, err := os.Lstat(path); err == nil {
		return nil, exit.Errorf(exitBusy, "socket %s already exists", path)
	}
	dir, err := os.MkdirTemp(filepath.Dir(path), ".xts-serve-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	tmp := filepath.Join(dir, "s")
	l, err := sock.ListenUnix(tmp)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		l.Close()
		return nil, err
	}
	if err := os.Link(tmp, path); err != nil {
		l.Close()
		if errors.Is(err, os.ErrExist) {
			return nil, exit.Errorf(exitBusy, "socket %s already exists", path)
		}
		return nil, err
	}
	return l, nil
}

// shutdownGrace bounds how long a stop waits for clients to take their
// replies before it closes their connections (writes already in the
// image stay; the flush still runs).
const shutdownGrace = 30 * time.Second

// serveExport serves b until a signal, or until --run's command ends.
// what describes the export in the ready line. The caller wipes the key
// and closes the image after it returns.
func serveExport(e *env, cmd string, b nbd.Backend, what string, o *serveOptions) error {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)

	l, uri, warnAddr, cleanup, err := o.listener()
	if err != nil {
		return err
	}
	defer cleanup()
	if warnAddr != "" {
		fmt.Fprintf(e.stderr, "xts %s: warning: listening on %s, not a loopback address: the decrypted data crosses the network in clear\n", cmd, warnAddr)
	}
	maxConns := o.maxConns
	if maxConns == 0 {
		maxConns = -1 // nbd.Server's "no limit"
	}
	if o.memBytes == 0 { // options not through validate
		o.memBytes = nbd.DefaultMaxMemory
	}
	s := &nbd.Server{
		Backend:        b,
		ErrorLog:       log.New(e.stderr, "xts "+cmd+": ", 0),
		MaxConnections: maxConns,
		MaxMemory:      o.memBytes,
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// Buffers given back wait for the garbage collector: the
		// limit makes it run before the process grows far past the
		// budget.
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(o.memBytes + memLimitSlack))
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(l) }()
	mode := "read-write"
	if b.ReadOnly() {
		mode = "read-only"
	}
	fmt.Fprintf(e.stderr, "xts %s: serving %s (%d bytes, %s) at %s\n", cmd, what, b.Size(), mode, uri)

	var child *exec.Cmd
	childDone := make(chan error, 1)
	if o.run != "" {
		child = exec.Command("/bin/sh", "-c", o.run)
		child.Env = append(os.Environ(), "uri="+uri)
		child.Stdin, child.Stdout, child.Stderr = e.stdin, e.stdout, e.stderr
		if err := child.Start(); err != nil {
			stop(s, e, cmd, nil)
			return fmt.Errorf("--run: %w", err)
		}
		go func() { childDone <- child.Wait() }()
	}

	select {
	case sig := <-sigs:
		if child != nil {
			child.Process.Signal(sig)
		}
		err := stop(s, e, cmd, sigs)
		if child != nil {
			select {
			case <-childDone:
			case <-sigs: // a command that ignored the first signal
				child.Process.Kill()
				<-childDone
			}
		}
		return err
	case err := <-served:
		stop(s, e, cmd, sigs)
		if child != nil {
			child.Process.Kill()
			<-childDone
		}
		return fmt.Errorf("serving: %w", err)
	case werr := <-childDone:
		if err := stop(s, e, cmd, sigs); err != nil {
			return err
		}
		var ee *exec.ExitError
		if errors.As(werr, &ee) {
			code := ee.ExitCode()
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				code = 128 + int(ws.Signal())
			}
			return exit.Errorf(code, "--run command: %v", werr)
		}
		return werr
	}
}

// stop shuts s down: requests in flight are answered and the backend is
// flushed; a second signal (on sigs) or the grace period closes the
// connections at once.
func stop(s *nbd.Server, e *env, cmd string, sigs <-chan os.Signal) error {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-ctx.Done():
		}
	}()
	err := s.Shutdown(ctx)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		fmt.Fprintf(e.stderr, "xts %s: closed the connections of clients that did not take their replies\n", cmd)
		// Shutdown reports the deadline before a flush error: flush
		// again to learn whether the image is safe.
		return s.Backend.Flush()
	}
	return err
}
