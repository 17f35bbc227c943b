// Package gf2p8 is the GF(2^8) arithmetic the cipher generators use to
// derive GFNI matrices (VGF2P8AFFINEQB): multiplication modulo a given
// polynomial, the affine map of a matrix on one byte as the Intel SDM
// defines it, and the matrix of multiplication by a constant.
//
// The twofish, kuznyechik and camellia generators each had their own copy,
// the same but for the field's polynomial; here the polynomial is a
// parameter, and the multiplication is the root module's
// (internal/cipherspec.GFMul, which the cipher packages' tables use too).
// It runs in the generators only, on public constants.
package gf2p8

import (
	"fmt"

	"github.com/fastxts/xts/internal/cipherspec"
)

// Mul multiplies a and b in GF(2^8) modulo poly, the modulus with its x^8
// term: 0x11B (AES, Camellia's S-box), 0x169 (Twofish's MDS matrix),
// 0x1C3 (Kuznyechik's ℓ).
func Mul(a, b byte, poly uint16) byte {
	if poly>>8 != 1 {
		panic(fmt.Sprintf("gf2p8: modulus %#x is not of degree 8", poly))
	}
	return cipherspec.GFMul(a, b, poly)
}

// Affine evaluates VGF2P8AFFINEQB with matrix m and a zero constant on one
// byte: bit i of the result is the parity of x AND row i, which is byte
// 7-i of m.
func Affine(m uint64, x byte) byte {
	var y byte
	for i := range 8 {
		row := byte(m >> (8 * (7 - i)))
		p := row & x
		p ^= p >> 4
		p ^= p >> 2
		p ^= p >> 1
		y |= (p & 1) << i
	}
	return y
}

// MulMatrix returns the VGF2P8AFFINEQB matrix (one qword) of y ↦ c·y
// modulo poly: row i has bit j set when bit i of c·x^j is set. It checks
// the matrix against Mul on all 256 bytes and panics on a difference.
func MulMatrix(c byte, poly uint16) uint64 {
	var m uint64
	for j := range 8 {
		col := Mul(c, 1<<j, poly)
		for i := range 8 {
			if col>>i&1 != 0 {
				m |= uint64(1) << (8*(7-i) + j)
			}
		}
	}
	for x := range 256 {
		if Affine(m, byte(x)) != Mul(c, byte(x), poly) {
			panic(fmt.Sprintf("gf2p8: the matrix of %#x modulo %#x disagrees with Mul at %#x", c, poly, x))
		}
	}
	return m
}
