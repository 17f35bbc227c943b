package whirlpool

import "encoding/binary"

// rho computes one round of W without the key addition: SubBytes,
// ShiftColumns (column t moves down t rows) and MixRows. Output row i
// takes, for each column t, the byte in column t of input row i-t.
func rho(dst, src *[8]uint64) {
	for i := 0; i < 8; i++ {
		dst[i] = ct[0][byte(src[i]>>56)] ^
			ct[1][byte(src[(i-1)&7]>>48)] ^
			ct[2][byte(src[(i-2)&7]>>40)] ^
			ct[3][byte(src[(i-3)&7]>>32)] ^
			ct[4][byte(src[(i-4)&7]>>24)] ^
			ct[5][byte(src[(i-5)&7]>>16)] ^
			ct[6][byte(src[(i-6)&7]>>8)] ^
			ct[7][byte(src[(i-7)&7])]
	}
}

// blocks compresses each 64-byte block of p into h with the
// Miyaguchi-Preneel construction around W; len(p) is a multiple of
// BlockSize.
func blocks(h *[8]uint64, p []byte) {
	var m, k, s, t [8]uint64
	for len(p) >= BlockSize {
		for i := range m {
			m[i] = binary.BigEndian.Uint64(p[8*i:])
			k[i] = h[i]
			s[i] = m[i] ^ k[i]
		}
		for r := 0; r < rounds; r++ {
			// Key schedule: K ← ρ[c_r](K).
			rho(&t, &k)
			t[0] ^= rc[r]
			k = t
			// State: S ← ρ[K](S).
			rho(&t, &s)
			for i := range s {
				s[i] = t[i] ^ k[i]
			}
		}
		for i := range h {
			h[i] ^= s[i] ^ m[i]
		}
		p = p[BlockSize:]
	}
}
