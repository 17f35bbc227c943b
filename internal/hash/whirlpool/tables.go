package whirlpool

import (
	"sync"

	"github.com/fastxts/xts/internal/cipherspec"
)

// The S-box is built as the specification builds it: the input byte's
// high and low nibbles go through the mini boxes E and E⁻¹, are mixed
// through R, and come out through E and E⁻¹ again.
var (
	miniE = [16]byte{0x1, 0xb, 0x9, 0xc, 0xd, 0x6, 0xf, 0x3, 0xe, 0x8, 0x7, 0x4, 0xa, 0x2, 0x5, 0x0}
	miniR = [16]byte{0x7, 0xc, 0xb, 0xd, 0xe, 0x4, 0x9, 0xf, 0x6, 0x3, 0x8, 0xa, 0x2, 0x5, 0x1, 0x0}
)

// mixRow is the first row of the circulant MixRows matrix
// cir(1, 1, 4, 1, 8, 5, 2, 9).
var mixRow = [8]byte{1, 1, 4, 1, 8, 5, 2, 9}

var (
	sbox [256]byte
	// ct[t][x] is the row vector that byte x in column t of a row
	// contributes after SubBytes and MixRows: S[x] times row t of the
	// MixRows matrix, column 0 in the most significant byte. ct[t] is
	// ct[0] rotated right by 8t bits.
	ct [8][256]uint64
	// rc[r] is row 0 of the round constant of round r+1 (its other rows
	// are zero): S[8r], ..., S[8r+7].
	rc [rounds]uint64
	// tablesOnce fills the tables at the first compression, not at
	// start-up: every program linking the package (the xts command, for
	// VeraCrypt's PRFs) would otherwise pay for them at each start. With
	// Twofish's tables, made lazily too, that took xts version 1.5 ms
	// sooner on a VM where a fresh page costs a trap to the host.
	tablesOnce sync.Once
)

// gfMul multiplies in GF(2⁸) modulo x⁸+x⁴+x³+x²+1 (0x11d).
func gfMul(a, b byte) byte { return cipherspec.GFMul(a, b, 0x11D) }

func fillTables() {
	var eInv [16]byte
	for i, v := range miniE {
		eInv[v] = byte(i)
	}
	for x := 0; x < 256; x++ {
		u, l := miniE[x>>4], eInv[x&15]
		r := miniR[u^l]
		sbox[x] = miniE[u^r]<<4 | eInv[l^r]
	}
	for x := 0; x < 256; x++ {
		var v uint64
		for j := 0; j < 8; j++ {
			v = v<<8 | uint64(gfMul(sbox[x], mixRow[j]))
		}
		for t := 0; t < 8; t++ {
			ct[t][x] = v>>(8*t) | v<<(64-8*t)
		}
	}
	for r := 0; r < rounds; r++ {
		var v uint64
		for j := 0; j < 8; j++ {
			v = v<<8 | uint64(sbox[8*r+j])
		}
		rc[r] = v
	}
}
