package ripemd160

import (
	"encoding/binary"
	"errors"
	"hash"
)

//go:generate go run gen.go

// Size is the size of a RIPEMD-160 digest in bytes.
const Size = 20

// BlockSize is the block size of RIPEMD-160 in bytes.
const BlockSize = 64

const (
	magic         = "rmd\x01"
	marshaledSize = len(magic) + 5*4 + BlockSize + 8
)

// digest is the running state of one RIPEMD-160 computation.
type digest struct {
	h   [5]uint32
	x   [BlockSize]byte // pending input, x[:nx] valid
	nx  int
	len uint64 // bytes written
}

// New returns a new hash.Hash computing RIPEMD-160.
func New() hash.Hash {
	d := new(digest)
	d.Reset()
	return d
}

// Sum returns the RIPEMD-160 digest of data.
func Sum(data []byte) [Size]byte {
	var d digest
	d.Reset()
	d.Write(data)
	var out [Size]byte
	d.checkSum(&out)
	return out
}

func (d *digest) Reset() {
	d.h = [5]uint32{0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0}
	d.nx = 0
	d.len = 0
}

func (d *digest) Size() int      { return Size }
func (d *digest) BlockSize() int { return BlockSize }

func (d *digest) Write(p []byte) (int, error) {
	n := len(p)
	d.len += uint64(n)
	if d.nx > 0 {
		c := copy(d.x[d.nx:], p)
		d.nx += c
		p = p[c:]
		if d.nx < BlockSize {
			return n, nil
		}
		blocks(&d.h, d.x[:])
		d.nx = 0
	}
	if len(p) >= BlockSize {
		m := len(p) &^ (BlockSize - 1)
		blocks(&d.h, p[:m])
		p = p[m:]
	}
	d.nx = copy(d.x[:], p)
	return n, nil
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
	bitLen := d.len << 3
	var pad [BlockSize + 8]byte
	pad[0] = 0x80
	// Pad to 56 mod 64, then the length in bits, little-endian.
	padLen := (55-int(d.len%BlockSize))&(BlockSize-1) + 1
	binary.LittleEndian.PutUint64(pad[padLen:], bitLen)
	d.Write(pad[:padLen+8])
	if d.nx != 0 {
		panic("ripemd160: internal error: padding left a partial block")
	}
	for i, v := range d.h {
		binary.LittleEndian.PutUint32(out[4*i:], v)
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
		b = binary.BigEndian.AppendUint32(b, v)
	}
	b = append(b, d.x[:d.nx]...)
	b = append(b, make([]byte, BlockSize-d.nx)...)
	b = binary.BigEndian.AppendUint64(b, d.len)
	return b, nil
}

// UnmarshalBinary restores a state saved by MarshalBinary
// (encoding.BinaryUnmarshaler).
func (d *digest) UnmarshalBinary(b []byte) error {
	if len(b) < len(magic) || string(b[:len(magic)]) != magic {
		return errors.New("ripemd160: invalid hash state identifier")
	}
	if len(b) != marshaledSize {
		return errors.New("ripemd160: invalid hash state size")
	}
	b = b[len(magic):]
	for i := range d.h {
		d.h[i] = binary.BigEndian.Uint32(b)
		b = b[4:]
	}
	copy(d.x[:], b[:BlockSize])
	b = b[BlockSize:]
	d.len = binary.BigEndian.Uint64(b)
	d.nx = int(d.len % BlockSize)
	return nil
}

// Clone returns an independent copy of the running state (hash.Cloner).
func (d *digest) Clone() (hash.Cloner, error) {
	d0 := *d
	return &d0, nil
}
