package ripemd160

import (
	"encoding/binary"
	"errors"
	"hash"
	"math/bits"
)

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

// The message word order, rotation amounts and constants of the left and
// right lines, five rounds of sixteen steps each.
var (
	rl = [80]uint8{
		0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
		7, 4, 13, 1, 10, 6, 15, 3, 12, 0, 9, 5, 2, 14, 11, 8,
		3, 10, 14, 4, 9, 15, 8, 1, 2, 7, 0, 6, 13, 11, 5, 12,
		1, 9, 11, 10, 0, 8, 12, 4, 13, 3, 7, 15, 14, 5, 6, 2,
		4, 0, 5, 9, 7, 12, 2, 10, 14, 1, 3, 8, 11, 6, 15, 13,
	}
	rr = [80]uint8{
		5, 14, 7, 0, 9, 2, 11, 4, 13, 6, 15, 8, 1, 10, 3, 12,
		6, 11, 3, 7, 0, 13, 5, 10, 14, 15, 8, 12, 4, 9, 1, 2,
		15, 5, 1, 3, 7, 14, 6, 9, 11, 8, 12, 2, 10, 0, 4, 13,
		8, 6, 4, 1, 3, 11, 15, 0, 5, 12, 2, 13, 9, 7, 10, 14,
		12, 15, 10, 4, 1, 5, 8, 7, 6, 2, 13, 14, 0, 3, 9, 11,
	}
	sl = [80]uint8{
		11, 14, 15, 12, 5, 8, 7, 9, 11, 13, 14, 15, 6, 7, 9, 8,
		7, 6, 8, 13, 11, 9, 7, 15, 7, 12, 15, 9, 11, 7, 13, 12,
		11, 13, 6, 7, 14, 9, 13, 15, 14, 8, 13, 6, 5, 12, 7, 5,
		11, 12, 14, 15, 14, 15, 9, 8, 9, 14, 5, 6, 8, 6, 5, 12,
		9, 15, 5, 11, 6, 8, 13, 12, 5, 12, 13, 14, 11, 8, 5, 6,
	}
	sr = [80]uint8{
		8, 9, 9, 11, 13, 15, 15, 5, 7, 7, 8, 11, 14, 14, 12, 6,
		9, 13, 15, 7, 12, 8, 9, 11, 7, 7, 12, 7, 6, 15, 13, 11,
		9, 7, 15, 11, 8, 6, 6, 14, 12, 13, 5, 14, 13, 13, 7, 5,
		15, 5, 8, 11, 14, 14, 6, 14, 6, 9, 12, 9, 12, 5, 15, 8,
		8, 5, 12, 9, 12, 5, 14, 6, 8, 13, 6, 5, 15, 13, 11, 11,
	}
	kl = [5]uint32{0x00000000, 0x5a827999, 0x6ed9eba1, 0x8f1bbcdc, 0xa953fd4e}
	kr = [5]uint32{0x50a28be6, 0x5c4dd124, 0x6d703ef3, 0x7a6d76e9, 0x00000000}
)

// f is the round function of round j (0..4).
func f(j int, x, y, z uint32) uint32 {
	switch j {
	case 0:
		return x ^ y ^ z
	case 1:
		return (x & y) | (^x & z)
	case 2:
		return (x | ^y) ^ z
	case 3:
		return (x & z) | (y &^ z)
	default:
		return x ^ (y | ^z)
	}
}

// blocks compresses each 64-byte block of p into h; len(p) is a multiple
// of BlockSize.
func blocks(h *[5]uint32, p []byte) {
	var x [16]uint32
	for len(p) >= BlockSize {
		for i := range x {
			x[i] = binary.LittleEndian.Uint32(p[4*i:])
		}
		al, bl, cl, dl, el := h[0], h[1], h[2], h[3], h[4]
		ar, br, cr, dr, er := al, bl, cl, dl, el
		for j := 0; j < 80; j++ {
			r := j >> 4
			t := bits.RotateLeft32(al+f(r, bl, cl, dl)+x[rl[j]]+kl[r], int(sl[j])) + el
			al, el, dl, cl, bl = el, dl, bits.RotateLeft32(cl, 10), bl, t
			t = bits.RotateLeft32(ar+f(4-r, br, cr, dr)+x[rr[j]]+kr[r], int(sr[j])) + er
			ar, er, dr, cr, br = er, dr, bits.RotateLeft32(cr, 10), br, t
		}
		t := h[1] + cl + dr
		h[1] = h[2] + dl + er
		h[2] = h[3] + el + ar
		h[3] = h[4] + al + br
		h[4] = h[0] + bl + cr
		h[0] = t
		p = p[BlockSize:]
	}
}
