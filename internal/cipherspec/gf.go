package cipherspec

// GFMul multiplies a and b in GF(2^8) modulo poly, the field's modulus
// with its x^8 term: 0x11B (AES, Camellia's S-box), 0x11D (Whirlpool),
// 0x14D and 0x169 (Twofish's RS and MDS matrices), 0x1C3 (Kuznyechik's
// ℓ). poly must be of degree 8; the result is meaningless otherwise.
//
// It has no branch and no index on a or b, since the Twofish key
// schedule multiplies key bytes with it; the table set-ups and the
// assembly generators (_asm) use it on public constants.
func GFMul(a, b byte, poly uint16) byte {
	var r uint32
	x, p := uint32(a), uint32(poly)
	for i := range 8 {
		r ^= x & -(uint32(b) >> i & 1) // + a·x^i when bit i of b is set
		x = x<<1 ^ p&-(x>>7&1)         // a·x^(i+1), reduced
	}
	return byte(r)
}
