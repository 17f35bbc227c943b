// Copyright 2026 The fastxts Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package twofish

import (
	"encoding/binary"
	"math/bits"
	"sync"

	"github.com/fastxts/xts/internal/cipherspec"
)

// The tables of the paper, in internal/cipherspec (the root package's
// key schedule for the assembly uses them too): qt[i][0..3] are the nibble
// permutations t0..t3 of q_i, qOrder the q of each stage of h.
var (
	qt     = &cipherspec.TwofishQ
	qOrder = &cipherspec.TwofishQOrder
)

// The MDS matrix (over GF(2^8) modulo mdsPoly) and the Reed-Solomon
// matrix (modulo rsPoly) of the paper, sections 4.3.2 and 4.3.
var (
	mds = &cipherspec.TwofishMDS
	rs  = &cipherspec.TwofishRS
)

const (
	mdsPoly = cipherspec.TwofishMDSPoly
	rsPoly  = cipherspec.TwofishRSPoly
)

// The fixed tables, computed at the first key schedule (tablesOnce), not
// at start-up, which every program linking the package would pay: q[i]
// is the permutation q_i, and mdsCol[j][y] is column j of the MDS matrix
// times y, as a little-endian word.
var (
	q          [2][256]byte
	mdsCol     [4][256]uint32
	tablesOnce sync.Once
)

func fillTables() {
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
	tablesOnce.Do(fillTables)
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
