package whirlpool

import "encoding/binary"

// mix computes one output row of a round of W without the key addition:
// SubBytes, ShiftColumns (column t moves down t rows) and MixRows. Output
// row i takes, for each column t, the byte in column t of input row i-t:
// the caller passes rows i, i-1, ..., i-7 (mod 8) as a0..a7.
func mix(a0, a1, a2, a3, a4, a5, a6, a7 uint64) uint64 {
	return ct[0][byte(a0>>56)] ^
		ct[1][byte(a1>>48)] ^
		ct[2][byte(a2>>40)] ^
		ct[3][byte(a3>>32)] ^
		ct[4][byte(a4>>24)] ^
		ct[5][byte(a5>>16)] ^
		ct[6][byte(a6>>8)] ^
		ct[7][byte(a7)]
}

// blocks compresses each 64-byte block of p into h with the
// Miyaguchi-Preneel construction around W; len(p) is a multiple of
// BlockSize. The rows of the key and the state live in locals so that
// the compiler can keep them in registers.
func blocks(h *[8]uint64, p []byte) {
	tablesOnce.Do(fillTables)
	for len(p) >= BlockSize {
		m0 := binary.BigEndian.Uint64(p[0:])
		m1 := binary.BigEndian.Uint64(p[8:])
		m2 := binary.BigEndian.Uint64(p[16:])
		m3 := binary.BigEndian.Uint64(p[24:])
		m4 := binary.BigEndian.Uint64(p[32:])
		m5 := binary.BigEndian.Uint64(p[40:])
		m6 := binary.BigEndian.Uint64(p[48:])
		m7 := binary.BigEndian.Uint64(p[56:])
		k0, k1, k2, k3, k4, k5, k6, k7 := h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]
		s0, s1, s2, s3, s4, s5, s6, s7 := m0^k0, m1^k1, m2^k2, m3^k3, m4^k4, m5^k5, m6^k6, m7^k7
		for r := 0; r < rounds; r++ {
			// Key schedule: K ← ρ[c_r](K).
			k0, k1, k2, k3, k4, k5, k6, k7 =
				mix(k0, k7, k6, k5, k4, k3, k2, k1)^rc[r],
				mix(k1, k0, k7, k6, k5, k4, k3, k2),
				mix(k2, k1, k0, k7, k6, k5, k4, k3),
				mix(k3, k2, k1, k0, k7, k6, k5, k4),
				mix(k4, k3, k2, k1, k0, k7, k6, k5),
				mix(k5, k4, k3, k2, k1, k0, k7, k6),
				mix(k6, k5, k4, k3, k2, k1, k0, k7),
				mix(k7, k6, k5, k4, k3, k2, k1, k0)
			// State: S ← ρ[K](S).
			s0, s1, s2, s3, s4, s5, s6, s7 =
				mix(s0, s7, s6, s5, s4, s3, s2, s1)^k0,
				mix(s1, s0, s7, s6, s5, s4, s3, s2)^k1,
				mix(s2, s1, s0, s7, s6, s5, s4, s3)^k2,
				mix(s3, s2, s1, s0, s7, s6, s5, s4)^k3,
				mix(s4, s3, s2, s1, s0, s7, s6, s5)^k4,
				mix(s5, s4, s3, s2, s1, s0, s7, s6)^k5,
				mix(s6, s5, s4, s3, s2, s1, s0, s7)^k6,
				mix(s7, s6, s5, s4, s3, s2, s1, s0)^k7
		}
		h[0] ^= s0 ^ m0
		h[1] ^= s1 ^ m1
		h[2] ^= s2 ^ m2
		h[3] ^= s3 ^ m3
		h[4] ^= s4 ^ m4
		h[5] ^= s5 ^ m5
		h[6] ^= s6 ^ m6
		h[7] ^= s7 ^ m7
		p = p[BlockSize:]
	}
}
