package whirlpool

import (
	"encoding/binary"
	"errors"
	"hash"
)

// Size is the size of a Whirlpool digest in bytes.
const Size = 64

// BlockSize is the block size of Whirlpool in bytes.
const BlockSize = 64

// rounds is the number of rounds of the internal block cipher W.
const rounds = 10

const (
	magic         = "wpl\x01"
	marshaledSize = len(magic) + 8*8 + BlockSize + 16
)

// digest is the running state of one Whirlpool computation. The hash
// value and the cipher state are held as eight rows of the 8×8 byte
// matrix, row i in h[i] with its column 0 in the most significant byte.
type digest struct {
	h  [8]uint64
	x  [BlockSize]byte // pending input, x[:nx] valid
	nx int
	// The message length in bytes, lenHi:lenLo. Whirlpool pads with a
	// 256-bit bit count; 128 bits of byte count cover every reachable
	// length.
	lenLo, lenHi uint64

	// restored is set by UnmarshalBinary and cleared by the next block
	// compressed, which goes through cache (see keyCache). cache is
	// allocated by the first UnmarshalBinary; a Sum's working copy shares
	// it on the same goroutine, a Clone does not.
	restored bool
	cache    *keyCache
}

// New returns a new hash.Hash computing Whirlpool.
func New() hash.Hash {
	d := new(digest)
	d.Reset()
	return d
}

// Sum returns the Whirlpool digest of data.
func Sum(data []byte) [Size]byte {
	var d digest
	d.Write(data)
	var out [Size]byte
	d.checkSum(&out)
	return out
}

// Reset restores the initial state and clears the key schedule cache,
// which may hold keys derived from secrets.
func (d *digest) Reset() {
	cache := d.cache
	if cache != nil {
		*cache = keyCache{}
	}
	*d = digest{cache: cache}
}

func (d *digest) Size() int      { return Size }
func (d *digest) BlockSize() int { return BlockSize }

func (d *digest) Write(p []byte) (int, error) {
	n := len(p)
	old := d.lenLo
	d.lenLo += uint64(n)
	if d.lenLo < old {
		d.lenHi++
	}
	if d.nx > 0 {
		c := copy(d.x[d.nx:], p)
		d.nx += c
		p = p[c:]
		if d.nx < BlockSize {
			return n, nil
		}
		d.compress(d.x[:])
		d.nx = 0
	}
	if len(p) >= BlockSize {
		m := len(p) &^ (BlockSize - 1)
		d.compress(p[:m])
		p = p[m:]
	}
	d.nx = copy(d.x[:], p)
	return n, nil
}

// compress compresses the whole blocks of p, the first of them with the
// cached key schedule if the state was just restored.
func (d *digest) compress(p []byte) {
	if d.restored {
		d.restored = false
		d.cache.blockCached(&d.h, p[:BlockSize])
		p = p[BlockSize:]
	}
	blocks(&d.h, p)
}

func (d *digest) Sum(in []byte) []byte {
	d0 := *d // Sum must not change the running state
	var out [Size]byte
	d0.checkSum(&out)
	return append(in, out[:]...)
}

// checkSum pads the message, processes the last block(s) and writes the
// digest; it changes d.
func (d *digest) checkSum(out *[Size]byte) {
	// The bit count as a 256-bit big-endian number: the byte count
	// lenHi:lenLo shifted left by 3.
	var length [32]byte
	binary.BigEndian.PutUint64(length[16:], d.lenHi<<3|d.lenLo>>61)
	binary.BigEndian.PutUint64(length[24:], d.lenLo<<3)

	// A 1 bit, then zeros up to 32 mod 64 bytes, then the length.
	var pad [BlockSize + 32]byte
	pad[0] = 0x80
	padLen := (31-int(d.lenLo%BlockSize))&(BlockSize-1) + 1
	copy(pad[padLen:], length[:])
	d.Write(pad[:padLen+32])
	if d.nx != 0 {
		panic("whirlpool: internal error: padding left a partial block")
	}
	for i, v := range d.h {
		binary.BigEndian.PutUint64(out[8*i:], v)
	}
}

// MarshalBinary saves the running state (encoding.BinaryMarshaler).
func (d *digest) MarshalBinary() ([]byte, error) {
	return d.AppendBinary(make([]byte, 0, marshaledSize))
}

// AppendBinary appends the running state to b (encoding.BinaryAppender).
func (d *digest) AppendBinary(b []byte) ([]byte, error) {
	b = append(b, magic...)
	for _, v := range d.h {
		b = binary.BigEndian.AppendUint64(b, v)
	}
	b = append(b, d.x[:d.nx]...)
	b = append(b, make([]byte, BlockSize-d.nx)...)
	b = binary.BigEndian.AppendUint64(b, d.lenHi)
	b = binary.BigEndian.AppendUint64(b, d.lenLo)
	return b, nil
}

// UnmarshalBinary restores a state saved by MarshalBinary
// (encoding.BinaryUnmarshaler).
func (d *digest) UnmarshalBinary(b []byte) error {
	if len(b) < len(magic) || string(b[:len(magic)]) != magic {
		return errors.New("whirlpool: invalid hash state identifier")
	}
	if len(b) != marshaledSize {
		return errors.New("whirlpool: invalid hash state size")
	}
	b = b[len(magic):]
	for i := range d.h {
		d.h[i] = binary.BigEndian.Uint64(b)
		b = b[8:]
	}
	copy(d.x[:], b[:BlockSize])
	b = b[BlockSize:]
	d.lenHi = binary.BigEndian.Uint64(b)
	d.lenLo = binary.BigEndian.Uint64(b[8:])
	d.nx = int(d.lenLo % BlockSize)
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
