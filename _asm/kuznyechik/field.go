package main

import (
	"fmt"

	"github.com/fastxts/xts/_asm/internal/gf2p8"
)

// pi is the substitution π of GOST R 34.12-2015 (RFC 7801, section
// 4.1.1): pi[x] for x = 0..255.
var pi = [256]byte{
	252, 238, 221, 17, 207, 110, 49, 22, 251, 196, 250, 218, 35, 197, 4, 77,
	233, 119, 240, 219, 147, 46, 153, 186, 23, 54, 241, 187, 20, 205, 95, 193,
	249, 24, 101, 90, 226, 92, 239, 33, 129, 28, 60, 66, 139, 1, 142, 79,
	5, 132, 2, 174, 227, 106, 143, 160, 6, 11, 237, 152, 127, 212, 211, 31,
	235, 52, 44, 81, 234, 200, 72, 171, 242, 42, 104, 162, 253, 58, 206, 204,
	181, 112, 14, 86, 8, 12, 118, 18, 191, 114, 19, 71, 156, 183, 93, 135,
	21, 161, 150, 41, 16, 123, 154, 199, 243, 145, 120, 111, 157, 158, 178, 177,
	50, 117, 25, 61, 255, 53, 138, 126, 109, 84, 198, 128, 195, 189, 13, 87,
	223, 245, 36, 169, 62, 168, 67, 201, 215, 121, 214, 246, 124, 34, 185, 3,
	224, 15, 236, 222, 122, 148, 176, 188, 220, 232, 40, 80, 78, 51, 10, 74,
	167, 151, 96, 115, 30, 0, 98, 68, 26, 184, 56, 130, 100, 159, 38, 65,
	173, 69, 70, 146, 39, 94, 85, 47, 140, 163, 165, 125, 105, 213, 149, 59,
	7, 88, 179, 64, 134, 172, 29, 247, 48, 55, 107, 228, 136, 217, 231, 137,
	225, 27, 131, 73, 76, 63, 248, 254, 141, 83, 170, 144, 202, 216, 133, 97,
	32, 113, 103, 164, 45, 43, 9, 91, 203, 155, 37, 208, 190, 229, 108, 82,
	89, 166, 116, 210, 230, 244, 180, 192, 209, 102, 175, 194, 57, 75, 99, 182,
}

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
