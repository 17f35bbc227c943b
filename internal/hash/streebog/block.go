package streebog

import "sync"

// lpsTab[b][v] is what byte value v contributes, through π, τ and l, to
// the LPS output word w when it is byte w of input word b: output word w
// is the XOR over b of lpsTab[b][byte w of input word b].
// It is filled at the first compression (g), not at start-up.
var (
	lpsTab  [8][256]uint64
	lpsOnce sync.Once
)

func fillLPS() {
	// After S, byte k of the 64-byte state is π(x_k); P moves byte
	// τ(i) = 8(i mod 8) + i/8 to position i, so output word w, byte b
	// (position 8w+b) holds π(x_{8b+w}): byte w of input word b. l then
	// maps bit 8b+t of a word (t = 0 least significant) to row
	// A_{63-8b-t}.
	for b := 0; b < 8; b++ {
		for v := 0; v < 256; v++ {
			s := pi[v]
			var acc uint64
			for t := 0; t < 8; t++ {
				if s>>t&1 != 0 {
					acc ^= matA[63-8*b-t]
				}
			}
			lpsTab[b][v] = acc
		}
	}
}

// col computes output word w of LPS from the input words x0..x7, given
// sh = 8w: the XOR over b of lpsTab[b][byte w of input word b].
func col(x0, x1, x2, x3, x4, x5, x6, x7 uint64, sh uint) uint64 {
	return lpsTab[0][byte(x0>>sh)] ^
		lpsTab[1][byte(x1>>sh)] ^
		lpsTab[2][byte(x2>>sh)] ^
		lpsTab[3][byte(x3>>sh)] ^
		lpsTab[4][byte(x4>>sh)] ^
		lpsTab[5][byte(x5>>sh)] ^
		lpsTab[6][byte(x6>>sh)] ^
		lpsTab[7][byte(x7>>sh)]
}

// lps returns LPS(x0..x7), the words in and out least significant first.
func lps(x0, x1, x2, x3, x4, x5, x6, x7 uint64) (y0, y1, y2, y3, y4, y5, y6, y7 uint64) {
	return col(x0, x1, x2, x3, x4, x5, x6, x7, 0),
		col(x0, x1, x2, x3, x4, x5, x6, x7, 8),
		col(x0, x1, x2, x3, x4, x5, x6, x7, 16),
		col(x0, x1, x2, x3, x4, x5, x6, x7, 24),
		col(x0, x1, x2, x3, x4, x5, x6, x7, 32),
		col(x0, x1, x2, x3, x4, x5, x6, x7, 40),
		col(x0, x1, x2, x3, x4, x5, x6, x7, 48),
		col(x0, x1, x2, x3, x4, x5, x6, x7, 56)
}

// g sets h = g_N(h, m) = E(LPS(h ⊕ N), m) ⊕ h ⊕ m (RFC 6986, 7). The key
// and state words live in locals so that the compiler can keep them in
// registers.
func g(h, n, m *[8]uint64) {
	lpsOnce.Do(fillLPS)
	// K_1 = LPS(h ⊕ N).
	k0, k1, k2, k3, k4, k5, k6, k7 := lps(h[0]^n[0], h[1]^n[1], h[2]^n[2], h[3]^n[3],
		h[4]^n[4], h[5]^n[5], h[6]^n[6], h[7]^n[7])
	s0, s1, s2, s3, s4, s5, s6, s7 := m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7]
	for r := range iterC {
		c := &iterC[r]
		// LPSX[K_r].
		s0, s1, s2, s3, s4, s5, s6, s7 = lps(s0^k0, s1^k1, s2^k2, s3^k3, s4^k4, s5^k5, s6^k6, s7^k7)
		// K_{r+1} = LPS(K_r ⊕ C_r).
		k0, k1, k2, k3, k4, k5, k6, k7 = lps(k0^c[0], k1^c[1], k2^c[2], k3^c[3], k4^c[4], k5^c[5], k6^c[6], k7^c[7])
	}
	// X[K_13], then the feed-forward.
	h[0] ^= s0 ^ k0 ^ m[0]
	h[1] ^= s1 ^ k1 ^ m[1]
	h[2] ^= s2 ^ k2 ^ m[2]
	h[3] ^= s3 ^ k3 ^ m[3]
	h[4] ^= s4 ^ k4 ^ m[4]
	h[5] ^= s5 ^ k5 ^ m[5]
	h[6] ^= s6 ^ k6 ^ m[6]
	h[7] ^= s7 ^ k7 ^ m[7]
}
