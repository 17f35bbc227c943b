package nbd

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"sync"
	"syscall"

	"github.com/fastxts/xts/internal/sock"
)

// errStopped ends a transmission whose connection or server was stopped
// while it waited for memory.
var errStopped = errors.New("nbd: connection stopped")

// transmission serves requests from r until the client disconnects, r
// fails or sends something malformed. Requests run concurrently, up to
// maxRequestsInFlight and the connection's share of the server's memory
// budget; their replies go to w as they finish, in any order. It returns
// after the last reply. The error is nil after NBD_CMD_DISC or a clean
// end of r.
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
	budget       *connBudget
	// chunk is the most payload one request holds at once (a power of
	// two, a multiple of the block size): longer reads and writes move
	// through a buffer of this size.
	chunk int64
	wg    sync.WaitGroup
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
		if errno != 0 || (req.length == 0 && req.typ != cmdFlush) {
			// An error, or nothing to do: a zero-length request never
			// reaches the backend (some cannot take one at their end).
			// A refused write's payload is skipped, never held.
			if p := req.payload(); p > 0 {
				if _, err := io.CopyN(io.Discard, t.r, int64(p)); err != nil {
					return fmt.Errorf("nbd: skipping the %d-byte payload of a refused write: %w", p, err)
				}
			}
			t.reply(req.handle, errno, nil)
			continue
		}
		if req.typ == cmdWrite {
			if err := t.write(req); err != nil {
				return err
			}
			continue
		}
		n := int64(reqOverhead)
		if req.typ == cmdRead {
			n += min(int64(req.length), t.chunk)
		}
		if !t.budget.acquire(n, true) {
			return errStopped
		}
		t.wg.Add(1)
		go func() {
			defer t.wg.Done()
			defer t.budget.release(n, true)
			t.do(req)
		}()
	}
}

// pendingWrite is a WRITE whose payload goes to the backend in chunks as
// it arrives: it is answered when the last chunk is written.
type pendingWrite struct {
	req     request
	mu      sync.Mutex
	pending int   // chunks being written, plus one while the reader reads
	err     error // the first backend error
	aborted bool  // the payload was cut short: no reply
}

// write reads the payload of req in chunks of at most t.chunk bytes,
// each taken from the budget before it is read and written to the
// backend while the next one arrives, so that a write of any length
// holds at most a few chunks and a client that stops sending holds one.
// Chunks end at multiples of t.chunk, so that no sector is split
// between two of them. It returns an error when the payload cannot be
// read (the connection is done).
func (t *transmission) write(req request) error {
	if !t.budget.acquire(reqOverhead, true) {
		return errStopped
	}
	w := &pendingWrite{req: req, pending: 1}
	off, rem := int64(req.off), int64(req.length)
	for rem > 0 {
		n := min(rem, t.chunk-off%t.chunk)
		if !t.budget.acquire(n, false) {
			t.writeDone(w, nil, true)
			return errStopped
		}
		bp := getBuf(int(n))
		if _, err := io.ReadFull(t.r, (*bp)[:n]); err != nil {
			putBuf(bp)
			t.budget.release(n, false)
			t.writeDone(w, nil, true)
			return fmt.Errorf("nbd: reading the %d-byte payload of a write: %w", req.length, err)
		}
		w.mu.Lock()
		w.pending++
		w.mu.Unlock()
		t.wg.Add(1)
		go func(off int64) {
			defer t.wg.Done()
			_, err := t.s.Backend.WriteAt((*bp)[:n], off)
			putBuf(bp)
			t.budget.release(n, false)
			t.writeDone(w, err, false)
		}(off)
		off, rem = off+n, rem-n
	}
	// The reader's own hold: when the chunks are all written already,
	// the answer (maybe a flush) runs in its own goroutine, not here.
	w.mu.Lock()
	w.pending--
	last := w.pending == 0
	w.mu.Unlock()
	if last {
		t.wg.Add(1)
		go func() {
			defer t.wg.Done()
			t.finishWrite(w)
		}()
	}
	return nil
}

// writeDone records that one chunk (or, with abort, the reader) is done
// with w, and answers w after the last.
func (t *transmission) writeDone(w *pendingWrite, err error, abort bool) {
	w.mu.Lock()
	if err != nil && w.err == nil {
		w.err = err
	}
	if abort {
		w.aborted = true
	}
	w.pending--
	last := w.pending == 0
	w.mu.Unlock()
	if last {
		t.finishWrite(w)
	}
}

// finishWrite answers a write whose chunks are all written (FUA: after a
// flush) and gives back its request slot. A write whose payload was cut
// short gets no answer: its connection is closing.
func (t *transmission) finishWrite(w *pendingWrite) {
	defer t.budget.release(reqOverhead, true)
	if w.aborted {
		return
	}
	err := w.err
	if err == nil && w.req.flags&cmdFlagFUA != 0 {
		err = t.s.Backend.Flush()
	}
	if err != nil {
		t.s.logf("nbd: write of %d bytes at %d: %v", w.req.length, w.req.off, err)
		t.reply(w.req.handle, errnoOf(err), nil)
		return
	}
	t.reply(w.req.handle, 0, nil)
}

// do runs one valid request other than a write and replies to it.
func (t *transmission) do(req request) {
	b := t.s.Backend
	off := int64(req.off)
	var err error
	switch req.typ {
	case cmdRead:
		t.read(req)
		return
	case cmdFlush:
		if !b.ReadOnly() {
			err = b.Flush()
		}
	case cmdTrim:
		err = b.(Trimmer).Trim(off, int64(req.length))
	case cmdWriteZeroes:
		err = t.zero(off, int64(req.length), req.flags&cmdFlagNoHole == 0)
	}
	if err == nil && req.flags&cmdFlagFUA != 0 && req.typ != cmdFlush {
		err = b.Flush()
	}
	if err != nil {
		t.s.logf("nbd: %s of %d bytes at %d: %v", cmdName(req.typ), req.length, off, err)
		t.reply(req.handle, errnoOf(err), nil)
		return
	}
	t.reply(req.handle, 0, nil)
}

// readFull reads len(buf) bytes at off from the backend.
func (t *transmission) readFull(buf []byte, off int64) error {
	n, err := t.s.Backend.ReadAt(buf, off)
	if n == len(buf) {
		return nil
	}
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// read answers a READ through a buffer of at most t.chunk bytes. A longer
// read sends its first chunk with the reply header and the others after
// it, reading each while it holds the connection's writer; an error
// after the header is out can only be told by closing the connection,
// as the protocol says.
func (t *transmission) read(req request) {
	n := min(int64(req.length), t.chunk)
	bp := getBuf(int(n))
	defer putBuf(bp)
	buf := (*bp)[:n]
	off, rem := int64(req.off), int64(req.length)
	if err := t.readFull(buf, off); err != nil {
		t.s.logf("nbd: read of %d bytes at %d: %v", req.length, off, err)
		t.reply(req.handle, errnoOf(err), nil)
		return
	}
	if rem == n {
		t.reply(req.handle, 0, buf)
		return
	}
	t.wmu.Lock()
	defer t.wmu.Unlock()
	t.send(req.handle, 0, buf)
	for off, rem = off+n, rem-n; rem > 0 && t.werr == nil; off, rem = off+n, rem-n {
		n = min(rem, t.chunk)
		if err := t.readFull(buf[:n], off); err != nil {
			t.s.logf("nbd: read of %d bytes at %d: %v (after the reply's header: closing the connection)", req.length, req.off, err)
			t.fail(fmt.Errorf("nbd: read failed after its reply started: %w", err))
			return
		}
		t.sendRaw(buf[:n])
	}
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
	t.wmu.Lock()
	defer t.wmu.Unlock()
	t.send(handle, errno, data)
}

// send writes a simple reply header and data. The caller holds t.wmu.
func (t *transmission) send(handle uint64, errno uint32, data []byte) {
	var h [replyLen]byte
	binary.BigEndian.PutUint32(h[0:], magicReply)
	binary.BigEndian.PutUint32(h[4:], errno)
	binary.BigEndian.PutUint64(h[8:], handle)
	if len(data) == 0 {
		t.sendRaw(h[:])
		return
	}
	t.sendRaw(h[:], data)
}

// sendRaw writes bufs unless a write failed before. The caller holds
// t.wmu.
func (t *transmission) sendRaw(bufs ...[]byte) {
	if t.werr != nil {
		return
	}
	var err error
	if len(bufs) == 1 {
		_, err = t.w.Write(bufs[0])
	} else if bw, ok := t.w.(sock.BuffersWriter); ok {
		_, err = bw.WriteBuffers(bufs) // one writev
	} else {
		for _, b := range bufs {
			if _, err = t.w.Write(b); err != nil {
				break
			}
		}
	}
	if err != nil {
		t.fail(fmt.Errorf("nbd: writing a reply: %w", err))
	}
}

// fail ends the connection after a reply could not be written whole:
// later replies are dropped, the reader stops. The caller holds t.wmu.
func (t *transmission) fail(err error) {
	if t.werr != nil {
		return
	}
	t.werr = err
	t.budget.stop()
	if t.onWriteError != nil {
		t.onWriteError()
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
