package argon2

import "math/bits"

// compressGeneric is the compression function G of RFC 9106 section 3.5 in
// Go: with R = x XOR y, out = P-columns(P-rows(R)) XOR R, further XORed
// with the old out when xor is set (passes after the first, version 0x13).
// tmp is the work block; out may be x or y (the address generator uses
// that), never tmp.
func compressGeneric(out, x, y, tmp *block, xor bool) {
	for i := range tmp {
		tmp[i] = x[i] ^ y[i]
	}
	if xor {
		for i := range out {
			out[i] ^= tmp[i]
		}
	} else {
		*out = *tmp
	}
	// Rows: eight runs of P over 16 consecutive words.
	for r := 0; r < 8; r++ {
		permute((*[16]uint64)(tmp[16*r : 16*r+16]))
	}
	// Columns: column c is the word pair (2c, 2c+1) of every row.
	var v [16]uint64
	for c := 0; c < 8; c++ {
		for k := 0; k < 8; k++ {
			v[2*k], v[2*k+1] = tmp[16*k+2*c], tmp[16*k+2*c+1]
		}
		permute(&v)
		for k := 0; k < 8; k++ {
			tmp[16*k+2*c], tmp[16*k+2*c+1] = v[2*k], v[2*k+1]
		}
	}
	clear(v[:])
	for i := range out {
		out[i] ^= tmp[i]
	}
}

// permute is the permutation P of RFC 9106 section 3.6 on v0..v15: GB on
// the four columns of the 4x4 matrix, then on its four diagonals.
func permute(v *[16]uint64) {
	v0, v1, v2, v3, v4, v5, v6, v7 := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
	v8, v9, v10, v11, v12, v13, v14, v15 := v[8], v[9], v[10], v[11], v[12], v[13], v[14], v[15]
	v0, v4, v8, v12 = mixHalf2(mixHalf1(v0, v4, v8, v12))
	v1, v5, v9, v13 = mixHalf2(mixHalf1(v1, v5, v9, v13))
	v2, v6, v10, v14 = mixHalf2(mixHalf1(v2, v6, v10, v14))
	v3, v7, v11, v15 = mixHalf2(mixHalf1(v3, v7, v11, v15))
	v0, v5, v10, v15 = mixHalf2(mixHalf1(v0, v5, v10, v15))
	v1, v6, v11, v12 = mixHalf2(mixHalf1(v1, v6, v11, v12))
	v2, v7, v8, v13 = mixHalf2(mixHalf1(v2, v7, v8, v13))
	v3, v4, v9, v14 = mixHalf2(mixHalf1(v3, v4, v9, v14))
	v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7] = v0, v1, v2, v3, v4, v5, v6, v7
	v[8], v[9], v[10], v[11], v[12], v[13], v[14], v[15] = v8, v9, v10, v11, v12, v13, v14, v15
}

// mixHalf1 and mixHalf2 are GB of RFC 9106 section 3.6 (BLAKE2b's G with
// each addition a + b replaced by BlaMka's a + b + 2*lo32(a)*lo32(b)), in
// two halves so that the compiler inlines each.
func mixHalf1(a, b, c, d uint64) (uint64, uint64, uint64, uint64) {
	a += b + 2*uint64(uint32(a))*uint64(uint32(b))
	d = bits.RotateLeft64(d^a, -32)
	c += d + 2*uint64(uint32(c))*uint64(uint32(d))
	b = bits.RotateLeft64(b^c, -24)
	return a, b, c, d
}

func mixHalf2(a, b, c, d uint64) (uint64, uint64, uint64, uint64) {
	a += b + 2*uint64(uint32(a))*uint64(uint32(b))
	d = bits.RotateLeft64(d^a, -16)
	c += d + 2*uint64(uint32(c))*uint64(uint32(d))
	b = bits.RotateLeft64(b^c, -63)
	return a, b, c, d
}
