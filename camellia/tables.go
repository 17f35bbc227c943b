package camellia

// sbox1 is SBOX1 of RFC 3713, section 2.4.4. The other three S-boxes are
// derived from it (section 2.4.4): SBOX2[x] = SBOX1[x] <<< 1,
// SBOX3[x] = SBOX1[x] <<< 7 and SBOX4[x] = SBOX1[x <<< 1].
var sbox1 = [256]byte{
	112, 130, 44, 236, 179, 39, 192, 229, 228, 133, 87, 53, 234, 12, 174, 65,
	35, 239, 107, 147, 69, 25, 165, 33, 237, 14, 79, 78, 29, 101, 146, 189,
	134, 184, 175, 143, 124, 235, 31, 206, 62, 48, 220, 95, 94, 197, 11, 26,
	166, 225, 57, 202, 213, 71, 93, 61, 217, 1, 90, 214, 81, 86, 108, 77,
	139, 13, 154, 102, 251, 204, 176, 45, 116, 18, 43, 32, 240, 177, 132, 153,
	223, 76, 203, 194, 52, 126, 118, 5, 109, 183, 169, 49, 209, 23, 4, 215,
	20, 88, 58, 97, 222, 27, 17, 28, 50, 15, 156, 22, 83, 24, 242, 34,
	254, 68, 207, 178, 195, 181, 122, 145, 36, 8, 232, 168, 96, 252, 105, 80,
	170, 208, 160, 125, 161, 137, 98, 151, 84, 91, 30, 149, 224, 255, 100, 210,
	16, 196, 0, 72, 163, 247, 117, 219, 138, 3, 230, 218, 9, 63, 221, 148,
	135, 92, 131, 2, 205, 74, 144, 51, 115, 103, 246, 243, 157, 127, 191, 226,
	82, 155, 216, 38, 200, 55, 198, 59, 129, 150, 111, 75, 19, 190, 99, 46,
	233, 121, 167, 140, 159, 110, 188, 142, 41, 245, 249, 182, 47, 253, 180, 89,
	120, 152, 6, 106, 231, 70, 113, 186, 212, 37, 171, 66, 136, 162, 141, 250,
	114, 7, 185, 85, 248, 238, 172, 10, 54, 73, 42, 104, 60, 56, 241, 164,
	64, 40, 211, 123, 187, 201, 67, 193, 21, 227, 173, 244, 119, 199, 128, 158,
}

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
var sp = func() (t [8][256]uint64) {
	for i := range 8 {
		for x := range 256 {
			var v [8]byte
			v[i] = sbox(sboxOfByte[i], byte(x))
			t[i][x] = pFunc(v)
		}
	}
	return t
}()

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
