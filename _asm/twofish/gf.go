package main

// mdsPoly is the modulus of Twofish's MDS matrix: x^8+x^6+x^5+x^3+1.
const mdsPoly = 0x169

// gfMul multiplies a and b in GF(2^8) modulo mdsPoly (the generator's
// reference; public constants only).
func gfMul(a, b byte) byte {
	var r byte
	x := uint16(a)
	for i := range 8 {
		if b>>i&1 != 0 {
			r ^= byte(x)
		}
		x <<= 1
		if x&0x100 != 0 {
			x ^= mdsPoly
		}
	}
	return r
}

// mulMatrix returns the GF2P8AFFINEQB matrix (one qword) of y -> c·y:
// bit i of the result is the parity of row i AND y, and row i is the
// qword's byte 7-i (Intel SDM, GF2P8AFFINEQB). Row i has bit j set when
// bit i of c·x^j is set.
func mulMatrix(c byte) uint64 {
	var m uint64
	for i := range 8 {
		var row byte
		for j := range 8 {
			if gfMul(c, 1<<j)>>i&1 != 0 {
				row |= 1 << j
			}
		}
		m |= uint64(row) << (8 * (7 - i))
	}
	if !checkMatrix(m, c) {
		panic("twofish generator: affine matrix disagrees with gfMul")
	}
	return m
}

// affine evaluates GF2P8AFFINEQB with matrix m and no constant on one
// byte, as the SDM defines it.
func affine(m uint64, x byte) byte {
	var r byte
	for i := range 8 {
		row := byte(m >> (8 * (7 - i)))
		p := row & x
		p ^= p >> 4
		p ^= p >> 2
		p ^= p >> 1
		r |= (p & 1) << i
	}
	return r
}

// checkMatrix compares the affine map with multiplication by c on all 256
// bytes.
func checkMatrix(m uint64, c byte) bool {
	for x := range 256 {
		if affine(m, byte(x)) != gfMul(c, byte(x)) {
			return false
		}
	}
	return true
}

// signMatrix is the GF2P8AFFINEQB matrix whose every row is 0x80: each
// result bit is the input's bit 7.
const signMatrix = 0x8080808080808080
