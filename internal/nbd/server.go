package nbd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"sync"
	"time"
)

// ErrServerClosed is returned by Serve after Shutdown.
var ErrServerClosed = errors.New("nbd: server closed")

// sendBuffer is the socket send buffer the server asks for (the kernel
// caps it at net.core.wmem_max): room for several read replies, so that
// a reply is mostly written in one system call.
const sendBuffer = 4 << 20

// DefaultHandshakeTimeout bounds the option haggling of one connection
// unless Server.HandshakeTimeout says otherwise.
const DefaultHandshakeTimeout = 30 * time.Second

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
	// block size; a larger one closes the connection. 0 means
	// DefaultMaxRequest. It must be a multiple of the block size.
	MaxRequest int
	// MaxInFlight bounds the payload bytes one connection holds at once
	// (requests read but not yet answered). 0 means DefaultMaxInFlight.
	MaxInFlight int
	// HandshakeTimeout bounds the handshake; 0 means
	// DefaultHandshakeTimeout.
	HandshakeTimeout time.Duration
	// ErrorLog receives why connections closed and backend errors; nil
	// means log.Default().
	ErrorLog *log.Logger

	mu        sync.Mutex
	ex        *export
	listeners map[net.Listener]struct{}
	conns     map[net.Conn]struct{}
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
	return ex, nil
}

// Serve accepts connections on l and serves each in its own goroutine
// until l fails or the server shuts down (ErrServerClosed). It may be
// called for several listeners at once. Serve closes l when it returns.
func (s *Server) Serve(l net.Listener) error {
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
		s.listeners = make(map[net.Listener]struct{})
	}
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, l)
		s.mu.Unlock()
	}()
	var backoff time.Duration
	for {
		c, err := l.Accept()
		if err != nil {
			if s.isClosing() {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				s.logf("nbd: accept: %v; retrying in %v", err, backoff)
				time.Sleep(backoff)
				continue
			}
			return err
		}
		backoff = 0
		if !s.track(c) {
			c.Close()
			return ErrServerClosed
		}
		go s.serveConn(c)
	}
}

func (s *Server) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// track registers c, or reports false when the server is closing.
func (s *Server) track(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	if s.conns == nil {
		s.conns = make(map[net.Conn]struct{})
	}
	s.conns[c] = struct{}{}
	s.handlers.Add(1)
	return true
}

// setReadDeadline sets c's read deadline unless the server is closing,
// when reads must stop now.
func (s *Server) setReadDeadline(c net.Conn, t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		t = time.Now()
	}
	c.SetReadDeadline(t)
}

func (s *Server) serveConn(c net.Conn) {
	defer s.handlers.Done()
	if wb, ok := c.(interface{ SetWriteBuffer(int) error }); ok {
		wb.SetWriteBuffer(sendBuffer)
	}
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		c.Close()
	}()
	if err := s.serve(c, c); err != nil && !(s.isClosing() && (isTimeout(err) || errors.Is(err, net.ErrClosed))) {
		s.logf("nbd: %s: closing the connection: %v", c.RemoteAddr(), err)
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// serve runs the handshake and transmission on rw; c, when not nil, is
// the network connection behind it (deadlines, closing on write errors).
func (s *Server) serve(rw interface {
	Read([]byte) (int, error)
	Write([]byte) (int, error)
}, c net.Conn) error {
	ex, err := s.export()
	if err != nil {
		return err
	}
	hto := s.HandshakeTimeout
	if hto == 0 {
		hto = DefaultHandshakeTimeout
	}
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
	limit := s.MaxInFlight
	if limit <= 0 {
		limit = DefaultMaxInFlight
	}
	t := &transmission{s: s, ex: ex, r: r, w: rw, budget: newBudget(limit)}
	if c != nil {
		t.onWriteError = func() { c.Close() }
	}
	err = t.run()
	if werr := t.writeErr(); werr != nil {
		return werr
	}
	return err
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
