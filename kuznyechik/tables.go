package kuznyechik

import (
	"encoding/binary"
	"sync"

	"github.com/fastxts/xts/internal/cipherspec"
)

// pi is the substitution π of GOST R 34.12-2015 (RFC 7801, section
// 4.1.1), applied to each byte by the transformation S
// (internal/cipherspec).
var pi = &cipherspec.KuznyechikPi

// piInv is the inverse of pi, used by S^-1.
var piInv = func() (inv [256]byte) {
	for x, y := range pi {
		inv[y] = byte(x)
	}
	return inv
}()

// block is a 128-bit value in the byte order of the standard's test
// vectors: block[0] is a_15, the most significant byte, written first.
type block [16]byte

// lCoef are the coefficients of the linear map ℓ of RFC 7801, section
// 4.1.2, for a_15 (block[0]) through a_0 (block[15]).
var lCoef = &cipherspec.KuznyechikLCoef

// fieldPoly is p(x) = x^8 + x^7 + x^6 + x + 1 (RFC 7801, section 2), the
// modulus of the field in which ℓ computes.
const fieldPoly = 0x1C3

// gfMul multiplies in that field (cipherspec.GFMul).
func gfMul(a, b byte) byte { return cipherspec.GFMul(a, b, fieldPoly) }

// The byte-oriented transformations below follow RFC 7801, section 4.1,
// literally. They define the tables and are what the tests check against
// the standard's examples; the cipher itself runs on the tables.

// sTransform is S: π on every byte.
func sTransform(a block) block {
	for i, x := range a {
		a[i] = pi[x]
	}
	return a
}

// sInv is S^-1.
func sInv(a block) block {
	for i, x := range a {
		a[i] = piInv[x]
	}
	return a
}

// ellMul returns the products lCoef[i]·x for every position i and byte x,
// computed on first use, so that ℓ is sixteen lookups: building the tables
// takes about 4,600 evaluations of ℓ (74,000 products).
var ellMul = sync.OnceValue(func() *[16][256]byte {
	var m [16][256]byte
	for i, c := range lCoef {
		for x := range 256 {
			m[i][x] = gfMul(c, byte(x))
		}
	}
	return &m
})

// ell is ℓ(a_15, ..., a_0).
func ell(a block) byte {
	m := ellMul()
	var s byte
	for i, x := range a {
		s ^= m[i][x]
	}
	return s
}

// rTransform is R(a) = ℓ(a) || a_15 || ... || a_1.
func rTransform(a block) block {
	var r block
	r[0] = ell(a)
	copy(r[1:], a[:15])
	return r
}

// rInv is R^-1(a) = a_14 || ... || a_0 || ℓ(a_14, ..., a_0, a_15).
func rInv(a block) block {
	var r block
	copy(r[:15], a[1:])
	r[15] = a[0]
	r[15] = ell(r)
	return r
}

// lTransform is L = R^16.
func lTransform(a block) block {
	for range 16 {
		a = rTransform(a)
	}
	return a
}

// lInv is L^-1 = (R^-1)^16.
func lInv(a block) block {
	for range 16 {
		a = rInv(a)
	}
	return a
}

// words is a block as the cipher holds it: two little-endian 64-bit words
// of bytes 0-7 and 8-15. Any fixed byte order would do, since the tables
// only XOR; little-endian loads are plain loads on the common machines.
type words [2]uint64

func toWords(a block) words {
	return words{binary.LittleEndian.Uint64(a[0:8]), binary.LittleEndian.Uint64(a[8:16])}
}

func fromWords(w words) (a block) {
	binary.LittleEndian.PutUint64(a[0:8], w[0])
	binary.LittleEndian.PutUint64(a[8:16], w[1])
	return a
}

// table maps each byte position i and byte value x to a 128-bit word pair.
type table [16][256]words

// The lookup tables (2 x 64 KiB), built on first use by NewCipher:
//
//	encT[i][x] = L(π(x) at byte i, zeros elsewhere)
//	decT[i][x] = L^-1(π^-1(x) at byte i, zeros elsewhere)
//
// S(a) is the XOR of the sixteen one-byte vectors π(a_i) at byte i, and
// L and L^-1 are linear, so LS(a) = XOR over i of encT[i][a_i], and
// likewise L^-1 S^-1(a) with decT.
var (
	encT, decT table
	// c holds the key schedule's constants C_1..C_32 = L(Vec128(i)).
	c         [32]words
	tableOnce sync.Once
)

// buildTables fills encT, decT and c. L (and L^-1) of every single-byte
// vector is the XOR of L of its set bits, so only 128 vectors go through
// the slow reference transformation.
func buildTables() {
	fill := func(t *table, lin func(block) block, box *[256]byte) {
		for i := range 16 {
			var byValue [256]words // the linear map on byte i alone
			for bit := range 8 {
				var e block
				e[i] = 1 << bit
				byValue[1<<bit] = toWords(lin(e))
			}
			for v := 3; v < 256; v++ {
				low := v & -v
				if v != low {
					byValue[v] = words{byValue[v^low][0] ^ byValue[low][0], byValue[v^low][1] ^ byValue[low][1]}
				}
			}
			for x := range 256 {
				t[i][x] = byValue[box[x]]
			}
		}
	}
	fill(&encT, lTransform, pi)
	fill(&decT, lInv, &piInv)
	for i := range c {
		var v block
		v[15] = byte(i + 1)
		c[i] = toWords(lTransform(v))
	}
}

// apply returns XOR over i of t[i][byte i of x]: LS(x) with encT,
// L^-1 S^-1(x) with decT. Its sixteen table indices are the bytes of x,
// which depend on the key and the data (see the package doc).
func apply(t *table, x0, x1 uint64) (uint64, uint64) {
	a := &t[0][byte(x0)]
	b := &t[1][byte(x0>>8)]
	d := &t[2][byte(x0>>16)]
	e := &t[3][byte(x0>>24)]
	f := &t[4][byte(x0>>32)]
	g := &t[5][byte(x0>>40)]
	h := &t[6][byte(x0>>48)]
	k := &t[7][byte(x0>>56)]
	y0 := ((a[0] ^ b[0]) ^ (d[0] ^ e[0])) ^ ((f[0] ^ g[0]) ^ (h[0] ^ k[0]))
	y1 := ((a[1] ^ b[1]) ^ (d[1] ^ e[1])) ^ ((f[1] ^ g[1]) ^ (h[1] ^ k[1]))
	a = &t[8][byte(x1)]
	b = &t[9][byte(x1>>8)]
	d = &t[10][byte(x1>>16)]
	e = &t[11][byte(x1>>24)]
	f = &t[12][byte(x1>>32)]
	g = &t[13][byte(x1>>40)]
	h = &t[14][byte(x1>>48)]
	k = &t[15][byte(x1>>56)]
	y0 ^= ((a[0] ^ b[0]) ^ (d[0] ^ e[0])) ^ ((f[0] ^ g[0]) ^ (h[0] ^ k[0]))
	y1 ^= ((a[1] ^ b[1]) ^ (d[1] ^ e[1])) ^ ((f[1] ^ g[1]) ^ (h[1] ^ k[1]))
	return y0, y1
}

// subWord applies box to each byte of x.
func subWord(box *[256]byte, x uint64) uint64 {
	return uint64(box[byte(x)]) | uint64(box[byte(x>>8)])<<8 |
		uint64(box[byte(x>>16)])<<16 | uint64(box[byte(x>>24)])<<24 |
		uint64(box[byte(x>>32)])<<32 | uint64(box[byte(x>>40)])<<40 |
		uint64(box[byte(x>>48)])<<48 | uint64(box[byte(x>>56)])<<56
}
