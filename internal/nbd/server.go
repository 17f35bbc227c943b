package nbd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"sync"
	"time"

	"github.com/fastxts/xts/internal/sock"
)

// ErrServerClosed is returned by Serve after Shutdown.
var ErrServerClosed = errors.New("nbd: server closed")

// sendBuffer is the socket send buffer the server asks for (the kernel
// caps it at net.core.wmem_max): room for several read replies, so that
// a reply is mostly written in one system call.
const sendBuffer = 4 << 20

// DefaultHandshakeTimeout bounds the option haggling of one connection
// unless Server.HandshakeTimeout says otherwise.
const DefaultHandshakeTimeout = 10 * time.Second

// DefaultMaxConnections is the number of connections served at once
// unless Server.MaxConnections says otherwise.
const DefaultMaxConnections = 64

// DefaultMaxMemory is the memory budget of a server unless
// Server.MaxMemory says otherwise: with the Go runtime's own needs a
// busy server stays well under 256 MiB.
const DefaultMaxMemory = 128 << 20

// refuseTimeout bounds the exchange with a client refused for the
// connection limit, and maxRefusing the number of such exchanges at once
// (beyond it a refused connection is closed at once).
const (
	refuseTimeout = 2 * time.Second
	maxRefusing   = 16
)

// Server serves one Backend as one NBD export to any number of clients.
// The zero value is not usable: set Backend. Fields must not change once
// Serve has been called.
type Server struct {
	// Backend is the export's data.
	Backend Backend
	// Name is the export's name; clients must ask for exactly it (the
	// default, "", is what clients ask for when given no name).
	Name string
	// MaxRequest is the largest READ or WRITE, advertised as the maximum
	// block size; a larger READ is answered EINVAL, a larger WRITE too
	// when its payload is at most 32 MiB (it is skipped), otherwise it
	// closes the connection. 0 means DefaultMaxRequest. It must be a
	// multiple of the block size.
	MaxRequest int
	// MaxConnections bounds the connections served at once, those still
	// in the handshake included. A client over the limit gets the
	// greeting and NBD_REP_ERR_POLICY for its options (closed at its
	// NBD_OPT_EXPORT_NAME, or after a short while), and a line in
	// ErrorLog counts the refusals; the clients connected carry on. 0
	// means DefaultMaxConnections; a negative value means no limit
	// (then the memory shares below assume DefaultMaxConnections, and
	// more clients than that may wait for each other's memory).
	MaxConnections int
	// MaxMemory is the memory budget of the whole server: the payload
	// bytes of requests read but not yet answered and of replies not yet
	// taken by their clients, plus 4 KiB a request. Each connection may
	// hold at most its share, MaxMemory/MaxConnections (or MaxInFlight
	// when set); a connection at its share stops reading its socket
	// until replies go out, so a client that stalls pins no more than
	// its share and never blocks the others. READs and WRITEs longer
	// than a share's worth move in chunks (at most 1 MiB), so any
	// request within MaxRequest is served. 0 means DefaultMaxMemory. It
	// must leave every connection at least 4 KiB plus one block.
	MaxMemory int64
	// MaxInFlight, when positive, is each connection's share of
	// MaxMemory instead of MaxMemory/MaxConnections.
	MaxInFlight int
	// HandshakeTimeout bounds the handshake, so that a client that
	// connects and says nothing does not keep a connection slot; 0
	// means DefaultHandshakeTimeout.
	HandshakeTimeout time.Duration
	// ErrorLog receives why connections closed, backend errors, accept
	// errors and refusals; nil means log.Default().
	ErrorLog *log.Logger

	mu        sync.Mutex
	ex        *export
	mem       *memBudget
	share     int64 // each connection's part of mem
	chunk     int64 // the most payload one request holds at once
	maxConns  int   // 0: no limit
	listeners map[sock.Listener]struct{}
	conns     map[sock.Conn]struct{}
	active    int // connections served (not refused)
	refusing  int // refusals in progress
	refused   int // refusals since the limit was last reached
	closing   bool
	handlers  sync.WaitGroup
}

func (s *Server) logf(format string, args ...any) {
	l := s.ErrorLog
	if l == nil {
		l = log.Default()
	}
	l.Printf(format, args...)
}

// export checks the configuration and returns what clients are told.
func (s *Server) export() (*export, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ex != nil {
		return s.ex, nil
	}
	b := s.Backend
	if err := checkBackend(b); err != nil {
		return nil, err
	}
	if len(s.Name) > maxNameLen {
		return nil, fmt.Errorf("nbd: export name of %d bytes (at most %d)", len(s.Name), maxNameLen)
	}
	bs := b.BlockSize()
	maxReq := s.MaxRequest
	if maxReq == 0 {
		maxReq = DefaultMaxRequest
	}
	if maxReq < bs || maxReq%bs != 0 || maxReq > 1<<30 {
		return nil, fmt.Errorf("nbd: MaxRequest %d is not a multiple of the block size %d up to 1 GiB", maxReq, bs)
	}
	maxConns := s.MaxConnections
	if maxConns == 0 {
		maxConns = DefaultMaxConnections
	}
	memLimit := s.MaxMemory
	if memLimit < 0 {
		return nil, fmt.Errorf("nbd: negative MaxMemory %d", memLimit)
	}
	if memLimit == 0 {
		memLimit = DefaultMaxMemory
	}
	parts := maxConns
	if parts < 0 {
		parts = DefaultMaxConnections
	}
	share := memLimit / int64(parts)
	if s.MaxInFlight > 0 {
		share = int64(s.MaxInFlight)
	}
	share = min(share, memLimit)
	if share < reqOverhead+int64(bs) {
		return nil, fmt.Errorf("nbd: a memory share of %d bytes a connection (MaxMemory %d, MaxConnections %d, MaxInFlight %d) is under %d", share, memLimit, s.MaxConnections, s.MaxInFlight, reqOverhead+bs)
	}
	// Two chunks fit in a share, so that a long write's next chunk
	// arrives while the last one goes to the backend.
	chunk := int64(maxChunk)
	for chunk > int64(bs) && chunk > (share-reqOverhead)/2 {
		chunk /= 2
	}
	ex := &export{
		name:      s.Name,
		size:      uint64(b.Size()),
		flags:     tflagHasFlags | tflagCanMultiConn,
		minBlock:  uint32(bs),
		prefBlock: uint32(max(bs, 4096)),
		maxBlock:  uint32(maxReq),
	}
	if ex.prefBlock > ex.maxBlock {
		ex.prefBlock = ex.maxBlock
	}
	if b.ReadOnly() {
		ex.flags |= tflagReadOnly
	} else {
		ex.flags |= tflagSendFlush | tflagSendFUA | tflagSendZeroes
		if _, ok := b.(Trimmer); ok {
			ex.flags |= tflagSendTrim
		}
	}
	s.ex = ex
	s.mem = newMemBudget(memLimit)
	s.share, s.chunk = share, chunk
	s.maxConns = max(maxConns, 0)
	return ex, nil
}

// Serve accepts connections on l (package sock makes Unix and TCP
// listeners) and serves each in its own goroutine until l fails or the
// server shuts down (ErrServerClosed). It may be called for several
// listeners at once. Serve closes l when it returns.
func (s *Server) Serve(l sock.Listener) error {
	defer l.Close()
	if _, err := s.export(); err != nil {
		return err
	}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return ErrServerClosed
	}
	if s.listeners == nil {
		s.listeners = make(map[sock.Listener]struct{})
	}
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, l)
		s.mu.Unlock()
	}()
	var (
		backoff  time.Duration
		failures int // accept errors since the last success
	)
	for {
		c, err := l.Accept()
		if err != nil {
			if s.isClosing() {
				return ErrServerClosed
			}
			if !acceptRetry(err) {
				return err
			}
			// Out of file descriptors or memory, or a connection
			// that died in the queue: pause and try again (as
			// net/http does), saying so once a burst; the clients
			// connected go on, and the queued ones are taken once
			// descriptors free up.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			if failures == 0 {
				s.logf("nbd: accept: %v; retrying with a pause of 5ms doubling to 1s until it works again", err)
			}
			failures++
			time.Sleep(backoff)
			continue
		}
		if failures > 0 {
			s.logf("nbd: accept works again after %d failed tries", failures)
			failures, backoff = 0, 0
		}
		switch s.admit(c) {
		case admitClosing:
			c.Close()
			return ErrServerClosed
		case admitServe:
			go s.serveConn(c)
		case admitRefuse:
			go s.refuse(c)
		case admitDrop:
			c.Close()
		}
	}
}

// What admit decides for a new connection.
const (
	admitServe = iota
	admitRefuse
	admitDrop
	admitClosing
)

// admit registers c, to be served or (over MaxConnections) refused; or,
// when too many refusals are under way, to be closed at once; or not at
// all when the server is closing.
func (s *Server) admit(c sock.Conn) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return admitClosing
	}
	if s.maxConns > 0 && s.active >= s.maxConns {
		s.refused++
		if s.refused == 1 {
			s.logf("nbd: %d connections open, the limit: refusing new clients until one closes", s.active)
		}
		if s.refusing >= maxRefusing {
			return admitDrop
		}
		s.refusing++
		s.trackLocked(c)
		return admitRefuse
	}
	if s.refused > 0 {
		s.logf("nbd: serving new clients again, after refusing %d for the connection limit (%d)", s.refused, s.maxConns)
		s.refused = 0
	}
	s.active++
	s.trackLocked(c)
	return admitServe
}

func (s *Server) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// trackLocked registers c for Shutdown. The caller holds s.mu.
func (s *Server) trackLocked(c sock.Conn) {
	if s.conns == nil {
		s.conns = make(map[sock.Conn]struct{})
	}
	s.conns[c] = struct{}{}
	s.handlers.Add(1)
}

// untrack forgets c, served (counted in active) or refused, and closes
// it.
func (s *Server) untrack(c sock.Conn, served bool) {
	s.mu.Lock()
	delete(s.conns, c)
	if served {
		s.active--
	} else {
		s.refusing--
	}
	s.mu.Unlock()
	c.Close()
	s.handlers.Done()
}

// refuse answers a client over the connection limit: the greeting, then
// NBD_REP_ERR_POLICY for its options, for a short while.
func (s *Server) refuse(c sock.Conn) {
	defer s.untrack(c, false)
	deadline := time.Now().Add(min(refuseTimeout, s.handshakeTimeout()))
	c.SetWriteDeadline(deadline)
	s.setReadDeadline(c, deadline)
	msg := fmt.Sprintf("server busy: %d connections open, the limit; try again later", s.maxConns)
	refuseHandshake(bufio.NewReaderSize(c, 512), bufio.NewWriterSize(c, 512), msg)
}

func (s *Server) handshakeTimeout() time.Duration {
	if s.HandshakeTimeout > 0 {
		return s.HandshakeTimeout
	}
	return DefaultHandshakeTimeout
}

// setReadDeadline sets c's read deadline unless the server is closing,
// when reads must stop now.
func (s *Server) setReadDeadline(c sock.Conn, t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		t = time.Now()
	}
	c.SetReadDeadline(t)
}

func (s *Server) serveConn(c sock.Conn) {
	defer s.untrack(c, true)
	if wb, ok := c.(interface{ SetWriteBuffer(int) error }); ok {
		wb.SetWriteBuffer(sendBuffer)
	}
	if err := s.serve(c, c); err != nil && !(s.isClosing() && (isTimeout(err) || errors.Is(err, os.ErrClosed) || errors.Is(err, errStopped))) {
		s.logf("nbd: %s: closing the connection: %v", c.Peer(), err)
	}
}

func isTimeout(err error) bool {
	var te interface{ Timeout() bool }
	return errors.As(err, &te) && te.Timeout()
}

// serve runs the handshake and transmission on rw; c, when not nil, is
// the network connection behind it (deadlines, closing on write errors).
func (s *Server) serve(rw interface {
	Read([]byte) (int, error)
	Write([]byte) (int, error)
}, c sock.Conn) error {
	ex, err := s.export()
	if err != nil {
		return err
	}
	hto := s.handshakeTimeout()
	if c != nil {
		c.SetWriteDeadline(time.Now().Add(hto))
		s.setReadDeadline(c, time.Now().Add(hto))
	}
	r := bufio.NewReaderSize(rw, 64<<10)
	w := bufio.NewWriterSize(rw, 4096)
	if err := handshake(r, w, ex); err != nil {
		if errors.Is(err, errAbort) {
			return nil
		}
		return err
	}
	if c != nil {
		c.SetWriteDeadline(time.Time{})
		s.setReadDeadline(c, time.Time{})
	}
	t := s.newTransmission(ex, r, rw)
	if c != nil {
		t.onWriteError = func() { c.Close() }
	}
	err = t.run()
	if werr := t.writeErr(); werr != nil {
		return werr
	}
	return err
}

// newTransmission returns the transmission phase of one connection,
// reading requests from r and writing replies to w.
func (s *Server) newTransmission(ex *export, r *bufio.Reader, w io.Writer) *transmission {
	return &transmission{s: s, ex: ex, r: r, w: w, budget: s.mem.conn(s.share), chunk: s.chunk}
}

// Shutdown stops the server gracefully: it closes the listeners, stops
// reading requests, lets the requests already read finish and answer,
// closes the connections, then flushes the backend. When ctx ends first
// the connections are closed at once (replies in flight are lost; writes
// already in the backend stay) and Shutdown still waits for the backend
// calls running to return before it flushes. After Shutdown returns no
// backend call is running or will start: the caller may wipe keys and
// remove the socket.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	for l := range s.listeners {
		l.Close()
	}
	for c := range s.conns {
		c.SetReadDeadline(time.Now())
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		s.handlers.Wait()
		close(done)
	}()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = ctx.Err()
		s.mu.Lock()
		if s.mem != nil {
			s.mem.stop() // readers waiting for memory give up
		}
		for c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
		<-done
	}
	if s.Backend != nil && !s.Backend.ReadOnly() {
		if ferr := s.Backend.Flush(); ferr != nil && err == nil {
			err = fmt.Errorf("nbd: flushing the backend: %w", ferr)
		}
	}
	return err
}
