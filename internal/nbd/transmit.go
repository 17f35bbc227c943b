package nbd

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"net"
	"sync"
	"syscall"
)

// maxRequestsInFlight bounds the requests one connection runs at once.
const maxRequestsInFlight = 64

// transmission serves requests from r until the client disconnects, r
// fails or sends something malformed. Requests run concurrently, up to
// maxRequestsInFlight and MaxInFlight bytes of payload; their replies go
// to w as they finish, in any order. It returns after the last reply.
// The error is nil after NBD_CMD_DISC or a clean end of r.
type transmission struct {
	s   *Server
	ex  *export
	r   *bufio.Reader
	w   io.Writer
	wmu sync.Mutex
	// werr is the first error writing a reply; later replies are dropped
	// and the reader stops at its next request.
	werr error
	// onWriteError runs once when a reply cannot be written (it closes
	// the connection, so that the reader stops).
	onWriteError func()
	budget       *budget
	wg           sync.WaitGroup
}

func (t *transmission) run() error {
	defer t.wg.Wait()
	trim := false
	if _, ok := t.s.Backend.(Trimmer); ok && t.ex.flags&tflagSendTrim != 0 {
		trim = true
	}
	var hb [requestLen]byte
	for {
		if err := t.writeErr(); err != nil {
			return err
		}
		if _, err := io.ReadFull(t.r, hb[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return nil // the client went away between requests
			}
			return fmt.Errorf("nbd: reading a request: %w", err)
		}
		req, err := parseRequest(&hb)
		if err != nil {
			return err
		}
		if req.typ == cmdDisc {
			return nil
		}
		errno, err := req.check(t.ex, trim)
		if err != nil {
			return err
		}
		n := int(req.payload())
		if req.typ == cmdRead && errno == 0 {
			n = int(req.length)
		}
		t.budget.acquire(n)
		var bp *[]byte
		if n > 0 {
			bp = getBuf(n)
		}
		if p := req.payload(); p > 0 {
			if _, err := io.ReadFull(t.r, (*bp)[:p]); err != nil {
				putBuf(bp)
				t.budget.release(n)
				return fmt.Errorf("nbd: reading the %d-byte payload of a write: %w", p, err)
			}
		}
		if errno != 0 || (req.length == 0 && req.typ != cmdFlush) {
			// An error, or nothing to do: a zero-length request never
			// reaches the backend (some cannot take one at their end).
			putBuf(bp)
			t.budget.release(n)
			t.reply(req.handle, errno, nil)
			continue
		}
		t.wg.Add(1)
		go func() {
			defer t.wg.Done()
			defer t.budget.release(n)
			defer putBuf(bp)
			var buf []byte
			if bp != nil {
				buf = (*bp)[:req.length]
			}
			t.do(req, buf)
		}()
	}
}

// do runs one valid request and replies to it.
func (t *transmission) do(req request, buf []byte) {
	b := t.s.Backend
	off := int64(req.off)
	var err error
	switch req.typ {
	case cmdRead:
		var n int
		n, err = b.ReadAt(buf, off)
		if n == len(buf) {
			err = nil
		} else if err == nil {
			err = io.ErrUnexpectedEOF
		}
		if err == nil {
			t.reply(req.handle, 0, buf)
			return
		}
	case cmdWrite:
		_, err = b.WriteAt(buf, off)
	case cmdFlush:
		if !b.ReadOnly() {
			err = b.Flush()
		}
	case cmdTrim:
		err = b.(Trimmer).Trim(off, int64(req.length))
	case cmdWriteZeroes:
		err = t.zero(off, int64(req.length), req.flags&cmdFlagNoHole == 0)
	}
	if err == nil && req.flags&cmdFlagFUA != 0 && req.typ != cmdRead && req.typ != cmdFlush {
		err = b.Flush()
	}
	if err != nil {
		t.s.logf("nbd: %s of %d bytes at %d: %v", cmdName(req.typ), req.length, off, err)
		t.reply(req.handle, errnoOf(err), nil)
		return
	}
	t.reply(req.handle, 0, nil)
}

// zeros is what WRITE_ZEROES writes when the backend has no Zeroer.
var zeros [256 << 10]byte

func (t *transmission) zero(off, n int64, mayTrim bool) error {
	if z, ok := t.s.Backend.(Zeroer); ok {
		err := z.WriteZeroes(off, n, mayTrim)
		if !errors.Is(err, errors.ErrUnsupported) {
			return err
		}
	}
	for n > 0 {
		c := min(n, int64(len(zeros)))
		if _, err := t.s.Backend.WriteAt(zeros[:c], off); err != nil {
			return err
		}
		off, n = off+c, n-c
	}
	return nil
}

// reply sends a simple reply, with data after it when errno is 0.
func (t *transmission) reply(handle uint64, errno uint32, data []byte) {
	var h [replyLen]byte
	binary.BigEndian.PutUint32(h[0:], magicReply)
	binary.BigEndian.PutUint32(h[4:], errno)
	binary.BigEndian.PutUint64(h[8:], handle)
	t.wmu.Lock()
	defer t.wmu.Unlock()
	if t.werr != nil {
		return
	}
	var err error
	if len(data) == 0 {
		_, err = t.w.Write(h[:])
	} else {
		bufs := net.Buffers{h[:], data}
		_, err = bufs.WriteTo(t.w)
	}
	if err != nil {
		t.werr = fmt.Errorf("nbd: writing a reply: %w", err)
		if t.onWriteError != nil {
			t.onWriteError()
		}
	}
}

func (t *transmission) writeErr() error {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	return t.werr
}

// errnoOf maps a backend error to the protocol's errno.
func errnoOf(err error) uint32 {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return errNoSpc
	case errors.Is(err, syscall.EPERM), errors.Is(err, syscall.EROFS):
		return errPerm
	default:
		return errIO
	}
}

func cmdName(typ uint16) string {
	switch typ {
	case cmdRead:
		return "read"
	case cmdWrite:
		return "write"
	case cmdFlush:
		return "flush"
	case cmdTrim:
		return "trim"
	case cmdWriteZeroes:
		return "write-zeroes"
	}
	return fmt.Sprintf("command %d", typ)
}

// budget bounds the payload bytes and the requests a connection holds.
// A request larger than the whole byte budget still runs, alone.
type budget struct {
	mu    sync.Mutex
	cond  *sync.Cond
	limit int
	bytes int
	reqs  int
}

func newBudget(limit int) *budget {
	b := &budget{limit: limit}
	b.cond = sync.NewCond(&b.mu)
	return b
}

func (b *budget) acquire(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.reqs >= maxRequestsInFlight || (b.reqs > 0 && b.bytes+n > b.limit) {
		b.cond.Wait()
	}
	b.bytes += n
	b.reqs++
}

func (b *budget) release(n int) {
	b.mu.Lock()
	b.bytes -= n
	b.reqs--
	b.mu.Unlock()
	b.cond.Broadcast()
}

// Payload buffers come from pools by power-of-two size class, from 4 KiB
// up to the largest request.
const minBufShift = 12

var bufPools [32 - minBufShift]sync.Pool

func bufClass(n int) int {
	if n <= 1<<minBufShift {
		return 0
	}
	return bits.Len(uint(n-1)) - minBufShift
}

func getBuf(n int) *[]byte {
	c := bufClass(n)
	if bp, ok := bufPools[c].Get().(*[]byte); ok {
		return bp
	}
	b := make([]byte, 1<<(c+minBufShift))
	return &b
}

func putBuf(bp *[]byte) {
	if bp == nil {
		return
	}
	bufPools[bufClass(cap(*bp))].Put(bp)
}
