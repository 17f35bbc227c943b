package camellia

import (
	"sync"

	"github.com/fastxts/xts/internal/cipherspec"
)

// sbox1 is SBOX1 of RFC 3713, section 2.4.4 (internal/cipherspec).
var sbox1 = &cipherspec.CamelliaSBOX1

// sbox returns SBOX1..SBOX4 (n = 1..4) of RFC 3713 at x.
func sbox(n int, x byte) byte {
	switch n {
	case 1:
		return sbox1[x]
	case 2:
		return sbox1[x]<<1 | sbox1[x]>>7
	case 3:
		return sbox1[x]<<7 | sbox1[x]>>1
	default:
		return sbox1[x<<1|x>>7]
	}
}

// pFunc is the P-function of RFC 3713, section 2.4.1: the linear layer of
// F over the eight S-box outputs t[0..7] (t1..t8 there), giving the eight
// output bytes y1..y8, most significant first.
func pFunc(t [8]byte) uint64 {
	y1 := t[0] ^ t[2] ^ t[3] ^ t[5] ^ t[6] ^ t[7]
	y2 := t[0] ^ t[1] ^ t[3] ^ t[4] ^ t[6] ^ t[7]
	y3 := t[0] ^ t[1] ^ t[2] ^ t[4] ^ t[5] ^ t[7]
	y4 := t[1] ^ t[2] ^ t[3] ^ t[4] ^ t[5] ^ t[6]
	y5 := t[0] ^ t[1] ^ t[5] ^ t[6] ^ t[7]
	y6 := t[1] ^ t[2] ^ t[4] ^ t[6] ^ t[7]
	y7 := t[2] ^ t[3] ^ t[4] ^ t[5] ^ t[7]
	y8 := t[0] ^ t[3] ^ t[4] ^ t[5] ^ t[6]
	return uint64(y1)<<56 | uint64(y2)<<48 | uint64(y3)<<40 | uint64(y4)<<32 |
		uint64(y5)<<24 | uint64(y6)<<16 | uint64(y7)<<8 | uint64(y8)
}

// sboxOfByte names the S-box F applies to each input byte, most
// significant first (RFC 3713, section 2.4.1).
var sboxOfByte = [8]int{1, 2, 3, 4, 2, 3, 4, 1}

// sp[i][x] is P applied to the vector whose byte i (0 = most significant)
// is S_i(x) and whose other bytes are zero. P is linear, so
// F(x) = sp[0][x_0] ^ ... ^ sp[7][x_7]: eight lookups per round instead of
// eight S-boxes and the P-function (the "SP table" form the Camellia
// designers describe for 64-bit processors). 8 x 256 x 8 bytes = 16 KiB.
// It is filled at the first NewCipher (spOnce), not at start-up, which
// every program importing the package would pay for.
var (
	sp     [8][256]uint64
	spOnce sync.Once
)

func fillSP() {
	for i := range 8 {
		for x := range 256 {
			var v [8]byte
			v[i] = sbox(sboxOfByte[i], byte(x))
			sp[i][x] = pFunc(v)
		}
	}
}

// f is the F-function of RFC 3713, section 2.4.1, with the subkey already
// added: f(t, in ^ k) = F(in, k) for t = &sp. Its eight table indices are
// the bytes of in ^ k, so they depend on the key and the data (see the
// package doc). The tables come in as one pointer so that the compiler
// addresses all eight from one register.
func f(t *[8][256]uint64, x uint64) uint64 {
	// Parenthesized as a tree, the eight loads are combined in three
	// dependent XORs rather than seven.
	return ((t[0][x>>56] ^ t[1][byte(x>>48)]) ^ (t[2][byte(x>>40)] ^ t[3][byte(x>>32)])) ^
		((t[4][byte(x>>24)] ^ t[5][byte(x>>16)]) ^ (t[6][byte(x>>8)] ^ t[7][byte(x)]))
}

// fl is the FL-function of RFC 3713, section 2.4.2.
func fl(x, ke uint64) uint64 {
	x1, x2 := uint32(x>>32), uint32(x)
	k1, k2 := uint32(ke>>32), uint32(ke)
	t := x1 & k1
	x2 ^= t<<1 | t>>31
	x1 ^= x2 | k2
	return uint64(x1)<<32 | uint64(x2)
}

// flInv is the FLINV-function of RFC 3713, section 2.4.3, the inverse of fl.
func flInv(y, ke uint64) uint64 {
	y1, y2 := uint32(y>>32), uint32(y)
	k1, k2 := uint32(ke>>32), uint32(ke)
	y1 ^= y2 | k2
	t := y1 & k1
	y2 ^= t<<1 | t>>31
	return uint64(y1)<<32 | uint64(y2)
}
