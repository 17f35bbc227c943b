package argon2

import (
	"encoding/binary"
	"math/bits"
)

// BLAKE2b (RFC 7693), unkeyed, with any digest length from 1 to 64 bytes:
// the hash that Argon2's H0 and H' are built on, written here so that the
// luks package needs no x/crypto package at run time (tests check it
// against the RFC's vector and golang.org/x/crypto/blake2b).

const (
	blake2bSize      = 64  // the longest digest, BLAKE2b-512
	blake2bBlockSize = 128 // bytes compressed at a time
)

// blake2bIV is the initialisation vector: SHA-512's (RFC 7693 section 2.6).
var blake2bIV = [8]uint64{
	0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
	0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179,
}

// blake2bSigma is the message schedule of rounds 0-9; rounds 10 and 11
// reuse rows 0 and 1 (RFC 7693 section 2.7).
var blake2bSigma = [10][16]uint8{
	{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
	{14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
	{11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
	{7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
	{9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
	{2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
	{12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
	{13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
	{6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
	{10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
}

// blake2b is one running hash. The last block, full or not, must be
// compressed with the final flag, so a full buffer is only compressed
// once more input arrives.
type blake2b struct {
	h    [8]uint64
	t    [2]uint64 // bytes compressed so far, a 128-bit counter
	buf  [blake2bBlockSize]byte
	n    int // bytes in buf
	size int // digest length
}

// newBlake2b returns an unkeyed BLAKE2b with a size-byte digest (1 to 64).
func newBlake2b(size int) *blake2b {
	if size < 1 || size > blake2bSize {
		panic("xts: argon2: BLAKE2b digest size out of range")
	}
	d := &blake2b{size: size}
	d.Reset()
	return d
}

// Reset starts a new hash of the same size.
func (d *blake2b) Reset() {
	d.h = blake2bIV
	d.h[0] ^= 0x01010000 ^ uint64(d.size) // fan-out 1, depth 1, no key
	d.t = [2]uint64{}
	d.n = 0
	clear(d.buf[:])
}

// Write adds p to the hash; it never fails.
func (d *blake2b) Write(p []byte) (int, error) {
	written := len(p)
	for len(p) > 0 {
		if d.n == blake2bBlockSize {
			d.compress(&d.buf, false)
			d.n = 0
		}
		c := copy(d.buf[d.n:], p)
		d.n += c
		p = p[c:]
	}
	return written, nil
}

// Sum appends the digest to b without changing the running hash.
func (d *blake2b) Sum(b []byte) []byte {
	e := *d
	clear(e.buf[e.n:])
	e.compress(&e.buf, true)
	var out [blake2bSize]byte
	for i, w := range e.h {
		binary.LittleEndian.PutUint64(out[8*i:], w)
	}
	clear(e.buf[:])
	return append(b, out[:d.size]...)
}

// compress mixes one block, counting d.n of its bytes (RFC 7693 section
// 3.2, function F).
func (d *blake2b) compress(block *[blake2bBlockSize]byte, final bool) {
	d.t[0] += uint64(d.n)
	if d.t[0] < uint64(d.n) {
		d.t[1]++
	}
	var m [16]uint64
	for i := range m {
		m[i] = binary.LittleEndian.Uint64(block[8*i:])
	}
	var v [16]uint64
	copy(v[:8], d.h[:])
	copy(v[8:], blake2bIV[:])
	v[12] ^= d.t[0]
	v[13] ^= d.t[1]
	if final {
		v[14] = ^v[14]
	}
	g := func(a, b, c, e int, x, y uint64) {
		v[a] += v[b] + x
		v[e] = bits.RotateLeft64(v[e]^v[a], -32)
		v[c] += v[e]
		v[b] = bits.RotateLeft64(v[b]^v[c], -24)
		v[a] += v[b] + y
		v[e] = bits.RotateLeft64(v[e]^v[a], -16)
		v[c] += v[e]
		v[b] = bits.RotateLeft64(v[b]^v[c], -63)
	}
	for r := range 12 {
		s := &blake2bSigma[r%10]
		g(0, 4, 8, 12, m[s[0]], m[s[1]])
		g(1, 5, 9, 13, m[s[2]], m[s[3]])
		g(2, 6, 10, 14, m[s[4]], m[s[5]])
		g(3, 7, 11, 15, m[s[6]], m[s[7]])
		g(0, 5, 10, 15, m[s[8]], m[s[9]])
		g(1, 6, 11, 12, m[s[10]], m[s[11]])
		g(2, 7, 8, 13, m[s[12]], m[s[13]])
		g(3, 4, 9, 14, m[s[14]], m[s[15]])
	}
	for i := range d.h {
		d.h[i] ^= v[i] ^ v[i+8]
	}
	clear(m[:])
	clear(v[:])
}
