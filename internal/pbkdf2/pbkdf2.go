package pbkdf2

import (
	"crypto/subtle"
	"encoding"
	"encoding/binary"
	"hash"
	"runtime"
	"sync"
	"sync/atomic"
)

// Key derives a key of keyLen bytes from password and salt with iter
// iterations of PBKDF2, using HMAC with the hash h returns as the PRF.
//
// Key panics if iter or keyLen is below 1, or keyLen exceeds
// (2³²-1)·h().Size() bytes (RFC 8018's limit): those are programmer errors,
// not properties of the input data.
func Key(h func() hash.Hash, password, salt []byte, iter, keyLen int) []byte {
	if iter < 1 {
		panic("pbkdf2: iteration count below 1")
	}
	if keyLen < 1 {
		panic("pbkdf2: key length below 1")
	}
	p := newPRF(h, password)
	defer p.wipe()
	hLen := p.size
	if uint64(keyLen) > (1<<32-1)*uint64(hLen) {
		panic("pbkdf2: key length too large for the hash")
	}
	nBlocks := (keyLen + hLen - 1) / hLen
	out := make([]byte, nBlocks*hLen)

	workers := min(nBlocks, runtime.GOMAXPROCS(0))
	if workers <= 1 {
		for i := 1; i <= nBlocks; i++ {
			p.block(out[(i-1)*hLen:i*hLen], salt, uint32(i), iter, nil)
		}
		return out[:keyLen:keyLen]
	}
	// The blocks are independent: hand them out to workers, each with
	// its own copy of the keyed PRF.
	// The clones are made before any worker starts.
	prfs := make([]*prf, workers)
	prfs[0] = p
	for w := 1; w < workers; w++ {
		prfs[w] = p.clone()
		defer prfs[w].wipe()
	}
	var wg sync.WaitGroup
	next := make(chan int, nBlocks)
	for i := 1; i <= nBlocks; i++ {
		next <- i
	}
	close(next)
	for _, q := range prfs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				q.block(out[(i-1)*hLen:i*hLen], salt, uint32(i), iter, nil)
			}
		}()
	}
	wg.Wait()
	return out[:keyLen:keyLen]
}

type marshalable interface {
	encoding.BinaryMarshaler
	encoding.BinaryUnmarshaler
}

// prf is HMAC keyed with the password, ready to be applied repeatedly.
type prf struct {
	h            func() hash.Hash
	size         int
	inner, outer hash.Hash

	// For hashes that can save their state: the states after the inner
	// and outer pad blocks. Otherwise ipad and opad hold the pad blocks,
	// to be hashed again for every message.
	istate, ostate []byte
	ipad, opad     []byte

	// Where an iteration's size-byte message sits in the saved inner and
	// outer states once written (-1: it does not; see findOffset). The
	// fast path writes the message into ifast/ofast there and restores
	// the state in one step.
	ioff, ooff   int
	ifast, ofast []byte
	// inner and outer as marshalable, when they are (asserted once).
	imarsh, omarsh marshalable

	u, v []byte // iteration buffers, size bytes each
}

func newPRF(h func() hash.Hash, password []byte) *prf {
	p := &prf{h: h, inner: h(), outer: h()}
	p.size = p.inner.Size()
	bs := p.inner.BlockSize()
	key := password
	if len(key) > bs {
		p.inner.Write(key)
		key = p.inner.Sum(nil)
		p.inner.Reset()
	}
	p.ipad = make([]byte, bs)
	p.opad = make([]byte, bs)
	copy(p.ipad, key)
	copy(p.opad, key)
	if len(password) > bs {
		clear(key)
	}
	for i := range p.ipad {
		p.ipad[i] ^= 0x36
		p.opad[i] ^= 0x5c
	}
	p.u = make([]byte, 0, p.size)
	p.v = make([]byte, 0, p.size)
	p.inner.Write(p.ipad)
	p.outer.Write(p.opad)
	p.ioff, p.ooff = -1, -1

	mi, ok1 := p.inner.(marshalable)
	mo, ok2 := p.outer.(marshalable)
	if !ok1 || !ok2 {
		return p
	}
	var err1, err2 error
	p.istate, err1 = mi.MarshalBinary()
	p.ostate, err2 = mo.MarshalBinary()
	if err1 != nil || err2 != nil {
		p.istate, p.ostate = nil, nil
		return p
	}
	clear(p.ipad)
	clear(p.opad)
	p.ipad, p.opad = nil, nil
	p.imarsh, p.omarsh = mi, mo
	p.ioff, p.ifast = findOffset(p.inner, p.istate, p.size)
	p.ooff, p.ofast = findOffset(p.outer, p.ostate, p.size)
	return p
}

// findOffset looks for where n freshly written bytes land in the saved
// state of a hash restored from state: it writes two different patterns,
// and the state bytes that differ must be exactly the n pattern bytes in
// one run (true of a hash that buffers a partial block in its state, as
// the standard library's and this module's do, when n < BlockSize). It
// then checks that writing a third message into the state there and
// restoring gives the same digest as restoring and writing it. It returns
// the offset and a copy of the state to write into, or -1, nil.
func findOffset(d hash.Hash, state []byte, n int) (int, []byte) {
	m := d.(marshalable)
	marshalWith := func(fill func(i int) byte) []byte {
		if m.UnmarshalBinary(state) != nil {
			return nil
		}
		msg := make([]byte, n)
		for i := range msg {
			msg[i] = fill(i)
		}
		d.Write(msg)
		s, err := m.MarshalBinary()
		if err != nil {
			return nil
		}
		return s
	}
	a := marshalWith(func(int) byte { return 0x00 })
	b := marshalWith(func(int) byte { return 0xff })
	if a == nil || b == nil || len(a) != len(b) {
		return -1, nil
	}
	off := -1
	for i := range a {
		if a[i] != b[i] {
			off = i
			break
		}
	}
	if off < 0 || off+n > len(a) {
		return -1, nil
	}
	for i := range a {
		inRun := i >= off && i < off+n
		if inRun != (a[i] != b[i]) || inRun && (a[i] != 0x00 || b[i] != 0xff) {
			return -1, nil
		}
	}
	// Check: a message written into the state at off restores to the
	// same digest as the message written after a restore.
	msg := make([]byte, n)
	for i := range msg {
		msg[i] = byte(i*7 + 1)
	}
	if m.UnmarshalBinary(state) != nil {
		return -1, nil
	}
	d.Write(msg)
	want := d.Sum(nil)
	fast := append([]byte(nil), a...)
	copy(fast[off:], msg)
	if m.UnmarshalBinary(fast) != nil {
		return -1, nil
	}
	if got := d.Sum(nil); subtle.ConstantTimeCompare(got, want) != 1 {
		return -1, nil
	}
	return off, fast
}

// clone returns an independent copy of the keyed PRF for another
// goroutine.
func (p *prf) clone() *prf {
	q := *p
	q.inner, q.outer = p.h(), p.h()
	q.imarsh, q.omarsh = nil, nil
	if p.istate != nil {
		q.imarsh, q.omarsh = q.inner.(marshalable), q.outer.(marshalable)
		// Own copies: wipe clears them.
		q.istate = append([]byte(nil), p.istate...)
		q.ostate = append([]byte(nil), p.ostate...)
		q.restore(q.inner, q.imarsh, q.istate, nil)
		q.restore(q.outer, q.omarsh, q.ostate, nil)
	} else {
		q.ipad = append([]byte(nil), p.ipad...)
		q.opad = append([]byte(nil), p.opad...)
	}
	if p.ifast != nil {
		q.ifast = append([]byte(nil), p.ifast...)
	}
	if p.ofast != nil {
		q.ofast = append([]byte(nil), p.ofast...)
	}
	q.u = make([]byte, 0, p.size)
	q.v = make([]byte, 0, p.size)
	return &q
}

// sum computes HMAC(msg) into dst[:0] and returns it. scratch holds the
// inner digest.
func (p *prf) sum(dst, scratch, msg []byte) []byte {
	// Inner hash: restore the keyed state, add msg, finish.
	if p.ioff >= 0 && len(msg) == p.size {
		copy(p.ifast[p.ioff:], msg)
		p.restore(p.inner, p.imarsh, p.ifast, nil)
	} else {
		p.restore(p.inner, p.imarsh, p.istate, p.ipad)
		p.inner.Write(msg)
	}
	scratch = p.inner.Sum(scratch[:0])
	// Outer hash.
	if p.ooff >= 0 {
		copy(p.ofast[p.ooff:], scratch)
		p.restore(p.outer, p.omarsh, p.ofast, nil)
	} else {
		p.restore(p.outer, p.omarsh, p.ostate, p.opad)
		p.outer.Write(scratch)
	}
	return p.outer.Sum(dst[:0])
}

// restore puts d (m, when it can save its state) back in the state saved
// in state, or failing that resets it and writes pad.
func (p *prf) restore(d hash.Hash, m marshalable, state, pad []byte) {
	if state != nil {
		// The state came from this hash type's MarshalBinary; failing
		// to restore it is a broken hash implementation.
		if err := m.UnmarshalBinary(state); err != nil {
			panic("pbkdf2: hash cannot restore its own state: " + err.Error())
		}
		return
	}
	d.Reset()
	d.Write(pad)
}

// block computes output block i, T_i = U_1 ⊕ … ⊕ U_iter, into t. When stop
// is not nil it is polled every 1024 iterations; block returns false,
// with t incomplete, once it is set.
func (p *prf) block(t, salt []byte, i uint32, iter int, stop *atomic.Bool) bool {
	// U_1 = PRF(salt || INT(i)): the one message that is not size bytes.
	p.restore(p.inner, p.imarsh, p.istate, p.ipad)
	p.inner.Write(salt)
	var ib [4]byte
	binary.BigEndian.PutUint32(ib[:], i)
	p.inner.Write(ib[:])
	v := p.inner.Sum(p.v[:0])
	p.restore(p.outer, p.omarsh, p.ostate, p.opad)
	p.outer.Write(v)
	u := p.outer.Sum(p.u[:0])
	copy(t, u)
	defer clear(v)
	defer clear(u)
	for n := 1; n < iter; n++ {
		if n&1023 == 0 && stop != nil && stop.Load() {
			return false
		}
		u = p.sum(u, v, u)
		subtle.XORBytes(t, t, u)
	}
	return true
}

// A Deriver computes a PBKDF2 key's output blocks one at a time, for a
// caller that needs the blocks lazily or must be able to stop the work
// (VeraCrypt's trials: a longer header key only for a longer cipher
// chain, and every other trial stopped once one matches). It is not safe
// for concurrent use.
type Deriver struct {
	p    *prf
	salt []byte
	iter int
}

// NewDeriver keys HMAC with h and password for blocks of PBKDF2 over salt
// with iter iterations. It panics if iter is below 1.
func NewDeriver(h func() hash.Hash, password, salt []byte, iter int) *Deriver {
	if iter < 1 {
		panic("pbkdf2: iteration count below 1")
	}
	return &Deriver{p: newPRF(h, password), salt: salt, iter: iter}
}

// Size is the size of a block: the hash's output size.
func (d *Deriver) Size() int { return d.p.size }

// Block computes output block i (counted from 1) into t, Size bytes. When
// stop is not nil it is polled as the work goes; Block returns false, t
// incomplete, once it is set.
func (d *Deriver) Block(t []byte, i uint32, stop *atomic.Bool) bool {
	return d.p.block(t[:d.p.size], d.salt, i, d.iter, stop)
}

// Wipe clears the keyed material the Deriver holds.
func (d *Deriver) Wipe() { d.p.wipe() }

// wipe clears the copies of keyed material p holds.
func (p *prf) wipe() {
	clear(p.istate)
	clear(p.ostate)
	clear(p.ipad)
	clear(p.opad)
	clear(p.ifast)
	clear(p.ofast)
	p.inner.Reset()
	p.outer.Reset()
}
