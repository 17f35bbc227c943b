// Copyright 2026 The fastxts Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package twofish

import (
	"encoding/binary"
	"math/bits"

	"github.com/fastxts/xts/internal/cipherspec"
)

// The nibble permutations that define q0 and q1 (Twofish paper, section
// 4.3.5): qt[i][0..3] are t0..t3 of q_i.
var qt = [2][4][16]byte{
	{
		{0x8, 0x1, 0x7, 0xD, 0x6, 0xF, 0x3, 0x2, 0x0, 0xB, 0x5, 0x9, 0xE, 0xC, 0xA, 0x4},
		{0xE, 0xC, 0xB, 0x8, 0x1, 0x2, 0x3, 0x5, 0xF, 0x4, 0xA, 0x6, 0x7, 0x0, 0x9, 0xD},
		{0xB, 0xA, 0x5, 0xE, 0x6, 0xD, 0x9, 0x0, 0xC, 0x8, 0xF, 0x3, 0x2, 0x4, 0x7, 0x1},
		{0xD, 0x7, 0xF, 0x4, 0x1, 0x2, 0x6, 0xE, 0x9, 0xB, 0x3, 0x0, 0x8, 0x5, 0xC, 0xA},
	},
	{
		{0x2, 0x8, 0xB, 0xD, 0xF, 0x7, 0x6, 0xE, 0x3, 0x1, 0x9, 0x4, 0x0, 0xA, 0xC, 0x5},
		{0x1, 0xE, 0x2, 0xB, 0x4, 0xC, 0x3, 0x7, 0x6, 0xD, 0xA, 0x5, 0xF, 0x9, 0x0, 0x8},
		{0x4, 0xC, 0x7, 0x5, 0x1, 0x6, 0x9, 0xA, 0x0, 0xE, 0xD, 0x8, 0x2, 0xB, 0x3, 0xF},
		{0xB, 0x9, 0x5, 0x1, 0xC, 0x3, 0xD, 0xE, 0x6, 0x4, 0x7, 0xF, 0x2, 0x0, 0x8, 0xA},
	},
}

// The MDS matrix (over GF(2^8) modulo mdsPoly) and the Reed-Solomon
// matrix (modulo rsPoly) of the paper, sections 4.3.2 and 4.3.
var (
	mds = [4][4]byte{
		{0x01, 0xEF, 0x5B, 0x5B},
		{0x5B, 0xEF, 0xEF, 0x01},
		{0xEF, 0x5B, 0x01, 0xEF},
		{0xEF, 0x01, 0xEF, 0x5B},
	}
	rs = [4][8]byte{
		{0x01, 0xA4, 0x55, 0x87, 0x5A, 0x58, 0xDB, 0x9E},
		{0xA4, 0x56, 0x82, 0xF3, 0x1E, 0xC6, 0x68, 0xE5},
		{0x02, 0xA1, 0xFC, 0xC1, 0x47, 0xAE, 0x3D, 0x19},
		{0xA4, 0x55, 0x87, 0x5A, 0x58, 0xDB, 0x9E, 0x03},
	}
)

const (
	mdsPoly = 0x169 // x^8 + x^6 + x^5 + x^3 + 1
	rsPoly  = 0x14D // x^8 + x^6 + x^3 + x^2 + 1
)

// The fixed tables, computed once at start-up: q[i] is the permutation
// q_i, and mdsCol[j][y] is column j of the MDS matrix times y, as a
// little-endian word.
var (
	q      [2][256]byte
	mdsCol [4][256]uint32
)

func init() {
	for i := range q {
		for x := range 256 {
			q[i][x] = qPerm(&qt[i], byte(x))
		}
	}
	for j := range 4 {
		for y := range 256 {
			var w uint32
			for r := range 4 {
				w |= uint32(cipherspec.GFMul(mds[r][j], byte(y), mdsPoly)) << (8 * r)
			}
			mdsCol[j][y] = w
		}
	}
}

// qPerm computes q(x) from its nibble permutations t.
func qPerm(t *[4][16]byte, x byte) byte {
	a, b := x>>4, x&15
	a, b = a^b, a^ror4(b)^(a<<3&15)
	a, b = t[0][a], t[1][b]
	a, b = a^b, a^ror4(b)^(a<<3&15)
	a, b = t[2][a], t[3][b]
	return b<<4 | a
}

// ror4 rotates a nibble right by one bit.
func ror4(x byte) byte { return (x>>1 | x<<3) & 15 }

// qOrder says which q each stage of qChain uses, by byte position: the
// stages for the fourth, third, second and first key word, then the last.
var qOrder = [4][5]byte{
	{1, 1, 0, 0, 1},
	{0, 1, 1, 0, 0},
	{0, 0, 0, 1, 1},
	{1, 0, 1, 1, 0},
}

// qChain passes byte x of word position j through the q permutations and
// the key bytes l[len(l)-1] .. l[0] (byte j of each word), as the h
// function of the paper does before the MDS matrix.
func qChain(j int, x byte, l []uint32) byte {
	o := &qOrder[j]
	sh := 8 * uint(j)
	switch len(l) {
	case 4:
		x = q[o[0]][x] ^ byte(l[3]>>sh)
		fallthrough
	case 3:
		x = q[o[1]][x] ^ byte(l[2]>>sh)
	}
	x = q[o[2]][x] ^ byte(l[1]>>sh)
	x = q[o[3]][x] ^ byte(l[0]>>sh)
	return q[o[4]][x]
}

// h is the paper's h function: the four bytes of x through qChain, then
// the MDS matrix.
func h(x uint32, l []uint32) uint32 {
	return mdsCol[0][qChain(0, byte(x), l)] ^ mdsCol[1][qChain(1, byte(x>>8), l)] ^
		mdsCol[2][qChain(2, byte(x>>16), l)] ^ mdsCol[3][qChain(3, byte(x>>24), l)]
}

// expandKey computes the subkeys and the key-dependent S-boxes fused with
// the MDS matrix ("full keying").
func (tf *twofishCipher) expandKey(key []byte) {
	k := len(key) / 8
	var me, mo, sk [4]uint32
	for i := range k {
		me[i] = binary.LittleEndian.Uint32(key[8*i:])
		mo[i] = binary.LittleEndian.Uint32(key[8*i+4:])
		// S_i = RS times key bytes 8i..8i+7; the S-box key is S_{k-1}..S_0.
		var s uint32
		for r := range 4 {
			var v byte
			for c := range 8 {
				v ^= cipherspec.GFMul(rs[r][c], key[8*i+c], rsPoly)
			}
			s |= uint32(v) << (8 * r)
		}
		sk[k-1-i] = s
	}
	const rho = 0x01010101
	for i := range uint32(20) {
		a := h(2*i*rho, me[:k])
		b := bits.RotateLeft32(h((2*i+1)*rho, mo[:k]), 8)
		tf.k[2*i] = a + b
		tf.k[2*i+1] = bits.RotateLeft32(a+2*b, 9)
	}
	for j := range 4 {
		for x := range 256 {
			tf.s[j][x] = mdsCol[j][qChain(j, byte(x), sk[:k])]
		}
	}
	clear(me[:])
	clear(mo[:])
	clear(sk[:])
}
