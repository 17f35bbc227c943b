package streebog

import (
	"encoding/binary"
	"errors"
	"hash"
	"math/bits"
)

// Size512 and Size256 are the digest sizes in bytes.
const (
	Size512 = 64
	Size256 = 32
)

// BlockSize is the block size of Streebog in bytes.
const BlockSize = 64

const (
	magic512      = "stb\x40"
	magic256      = "stb\x20"
	marshaledSize = 4 + 3*8*8 + BlockSize + 8
)

// digest is the running state of one Streebog computation. The 512-bit
// values h, N (counted by n) and Σ are held as eight 64-bit words, least
// significant word first; a message block is its 64 bytes read
// little-endian.
type digest struct {
	h     [8]uint64
	sigma [8]uint64
	// n is the low 64 bits of N, the number of message bits processed.
	// N's higher words stay zero for any message shorter than 2^61
	// bytes, which covers every message that can be written.
	n    uint64
	x    [BlockSize]byte // pending input, x[:nx] valid
	nx   int
	size int // Size512 or Size256

	// restored is set by UnmarshalBinary and cleared by the next g of a
	// message block, which goes through cache (see keyCache). cache is
	// allocated by the first UnmarshalBinary; a Sum's working copy shares
	// it on the same goroutine, a Clone does not.
	restored bool
	cache    *keyCache
}

// New512 returns a new hash.Hash computing Streebog-512.
func New512() hash.Hash {
	d := &digest{size: Size512}
	d.Reset()
	return d
}

// New256 returns a new hash.Hash computing Streebog-256.
func New256() hash.Hash {
	d := &digest{size: Size256}
	d.Reset()
	return d
}

// Sum512 returns the Streebog-512 digest of data.
func Sum512(data []byte) [Size512]byte {
	d := digest{size: Size512}
	d.Reset()
	d.Write(data)
	var out [Size512]byte
	d.checkSum(out[:])
	return out
}

// Sum256 returns the Streebog-256 digest of data.
func Sum256(data []byte) [Size256]byte {
	d := digest{size: Size256}
	d.Reset()
	d.Write(data)
	var out [Size256]byte
	d.checkSum(out[:])
	return out
}

// Reset restores the initial state: IV is 0^512 for Streebog-512 and
// (00000001)^64 for Streebog-256.
func (d *digest) Reset() {
	iv := uint64(0)
	if d.size == Size256 {
		iv = 0x0101010101010101
	}
	for i := range d.h {
		d.h[i] = iv
	}
	d.sigma = [8]uint64{}
	d.n = 0
	d.nx = 0
	d.restored = false
	if d.cache != nil {
		*d.cache = keyCache{} // it may hold keys derived from secrets
	}
}

// gMsg sets h = g_N(h, m) for a message block, N = n, through the key
// cache if the state was just restored.
func (d *digest) gMsg(n uint64, m *[8]uint64) {
	if d.restored {
		d.restored = false
		d.cache.g(&d.h, n, m)
		return
	}
	var nv [8]uint64
	nv[0] = n
	g(&d.h, &nv, m)
}

func (d *digest) Size() int      { return d.size }
func (d *digest) BlockSize() int { return BlockSize }

func (d *digest) Write(p []byte) (int, error) {
	n := len(p)
	if d.nx > 0 {
		c := copy(d.x[d.nx:], p)
		d.nx += c
		p = p[c:]
		if d.nx < BlockSize {
			return n, nil
		}
		d.block(d.x[:])
		d.nx = 0
	}
	// Stage 2 of the RFC takes every full block as it comes: a final
	// full block is hashed here and stage 3 then pads an empty rest.
	for len(p) >= BlockSize {
		d.block(p[:BlockSize])
		p = p[BlockSize:]
	}
	d.nx = copy(d.x[:], p)
	return n, nil
}

// block runs stage 2 on one full 64-byte block.
func (d *digest) block(p []byte) {
	var m [8]uint64
	for i := range m {
		m[i] = binary.LittleEndian.Uint64(p[8*i:])
	}
	d.gMsg(d.n, &m)
	d.n += 8 * BlockSize
	add512(&d.sigma, &m)
}

func (d *digest) Sum(in []byte) []byte {
	d0 := *d // Sum must not change the running state
	var out [Size512]byte
	d0.checkSum(out[:d.size])
	return append(in, out[:d.size]...)
}

// checkSum runs stage 3 and writes the digest (its size(d) bytes) to
// out; it changes d.
func (d *digest) checkSum(out []byte) {
	// m = 0^(511-|M|) || 1 || M: the rest, a 1 bit just above it, zeros.
	var blk [BlockSize]byte
	copy(blk[:], d.x[:d.nx])
	blk[d.nx] = 1
	var m [8]uint64
	for i := range m {
		m[i] = binary.LittleEndian.Uint64(blk[8*i:])
	}
	d.gMsg(d.n, &m)
	var nv, zero [8]uint64
	nv[0] = d.n + 8*uint64(d.nx)
	add512(&d.sigma, &m)
	g(&d.h, &zero, &nv)
	g(&d.h, &zero, &d.sigma)
	// Streebog-256 is the most significant half of h.
	first := 8 - d.size/8
	for i := first; i < 8; i++ {
		binary.LittleEndian.PutUint64(out[8*(i-first):], d.h[i])
	}
}

// add512 sets s = s + m mod 2^512.
func add512(s, m *[8]uint64) {
	var c uint64
	for i := range s {
		s[i], c = bits.Add64(s[i], m[i], c)
	}
}

// MarshalBinary saves the running state (encoding.BinaryMarshaler).
func (d *digest) MarshalBinary() ([]byte, error) {
	return d.AppendBinary(make([]byte, 0, marshaledSize))
}

// AppendBinary appends the running state to b (encoding.BinaryAppender).
func (d *digest) AppendBinary(b []byte) ([]byte, error) {
	if d.size == Size256 {
		b = append(b, magic256...)
	} else {
		b = append(b, magic512...)
	}
	for _, v := range d.h {
		b = binary.BigEndian.AppendUint64(b, v)
	}
	for _, v := range d.sigma {
		b = binary.BigEndian.AppendUint64(b, v)
	}
	// N as eight words, like h and Σ, so that the format need not
	// change should n ever grow.
	b = binary.BigEndian.AppendUint64(b, d.n)
	b = append(b, make([]byte, 7*8)...)
	b = append(b, d.x[:d.nx]...)
	b = append(b, make([]byte, BlockSize-d.nx)...)
	b = binary.BigEndian.AppendUint64(b, uint64(d.nx))
	return b, nil
}

// UnmarshalBinary restores a state saved by MarshalBinary of a digest of
// the same size (encoding.BinaryUnmarshaler).
func (d *digest) UnmarshalBinary(b []byte) error {
	want := magic512
	if d.size == Size256 {
		want = magic256
	}
	if len(b) < len(want) || string(b[:len(want)]) != want {
		return errors.New("streebog: invalid hash state identifier")
	}
	if len(b) != marshaledSize {
		return errors.New("streebog: invalid hash state size")
	}
	b = b[len(want):]
	var h, sigma [8]uint64
	for i := range h {
		h[i] = binary.BigEndian.Uint64(b[8*i:])
		sigma[i] = binary.BigEndian.Uint64(b[64+8*i:])
	}
	b = b[128:]
	n := binary.BigEndian.Uint64(b)
	for _, c := range b[8:64] {
		if c != 0 {
			return errors.New("streebog: invalid hash state: message length out of range")
		}
	}
	b = b[64:]
	nx := binary.BigEndian.Uint64(b[BlockSize:])
	if nx >= BlockSize || n%(8*BlockSize) != 0 {
		return errors.New("streebog: invalid hash state: inconsistent lengths")
	}
	d.h, d.sigma, d.n, d.nx = h, sigma, n, int(nx)
	copy(d.x[:], b[:BlockSize])
	if d.cache == nil {
		d.cache = new(keyCache)
	}
	d.restored = true
	return nil
}

// Clone returns an independent copy of the running state (hash.Cloner).
func (d *digest) Clone() (hash.Cloner, error) {
	d0 := *d
	d0.restored, d0.cache = false, nil
	return &d0, nil
}
