package main

import (
	"fmt"

	"github.com/fastxts/xts/_asm/internal/gf2p8"
	"github.com/fastxts/xts/internal/cipherspec"
)

// pi is the substitution π of GOST R 34.12-2015 (RFC 7801, section
// 4.1.1): pi[x] for x = 0..255, the root module's table (the portable
// package and the key schedule use it too).
var pi = cipherspec.KuznyechikPi

// inverse returns the inverse permutation of s (it panics if s is not a
// permutation).
func inverse(s [256]byte) (inv [256]byte) {
	var seen [256]bool
	for x, y := range s {
		if seen[y] {
			panic(fmt.Sprintf("kuznyechik generator: %d appears twice in the S-box", y))
		}
		seen[y] = true
		inv[y] = byte(x)
	}
	return inv
}

// lCoef are the coefficients of ℓ (RFC 7801, section 4.1.2) for the
// block's bytes in memory order: byte 0 is a_15, the first byte of the
// standard's examples, byte 15 is a_0.
var lCoef = [16]byte{148, 32, 133, 16, 194, 192, 1, 251, 1, 192, 194, 16, 133, 32, 148, 1}

// lPoly is the modulus of ℓ's field, x^8 + x^7 + x^6 + x + 1.
const lPoly = 0x1C3

// mulMatrix returns the VGF2P8AFFINEQB matrix of multiplication by c in
// ℓ's field (gf2p8.MulMatrix, which checks it on every byte).
func mulMatrix(c byte) uint64 { return gf2p8.MulMatrix(c, lPoly) }

// distinctCoefs are the coefficients of ℓ other than 1, in the order of
// the matrix table emitted: index k of mulCoefs is at offset 8k.
var mulCoefs = func() []byte {
	var cs []byte
	for _, c := range lCoef {
		found := c == 1
		for _, d := range cs {
			found = found || d == c
		}
		if !found {
			cs = append(cs, c)
		}
	}
	return cs
}()

// coefIndex returns the index of c in mulCoefs.
func coefIndex(c byte) int {
	for i, d := range mulCoefs {
		if d == c {
			return i
		}
	}
	panic(fmt.Sprintf("kuznyechik generator: no matrix for %d", c))
}

// checkTables verifies, before anything is emitted, what the routines rely
// on: lPoly makes a field (no zero divisors), every matrix reproduces its
// product on all 256 inputs under the SDM's semantics (mulMatrix panics
// otherwise), ℓ's symmetry, and π is a permutation.
func checkTables() {
	for a := 1; a < 256; a++ {
		for b := 1; b < 256; b++ {
			if gf2p8.Mul(byte(a), byte(b), lPoly) == 0 {
				panic("kuznyechik generator: zero divisor")
			}
		}
	}
	for _, c := range mulCoefs {
		mulMatrix(c)
	}
	for k := range 7 {
		if lCoef[k] != lCoef[14-k] {
			panic("kuznyechik generator: ℓ is not symmetric")
		}
	}
	if lCoef[6] != 1 || lCoef[8] != 1 || lCoef[15] != 1 {
		panic("kuznyechik generator: ℓ's unit coefficients moved")
	}
	inverse(pi)
}
