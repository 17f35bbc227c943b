package streebog

// lpsTab[b][v] is what byte value v contributes, through π, τ and l, to
// the LPS output word w when it is byte w of input word b: output word w
// is the XOR over b of lpsTab[b][byte w of input word b].
var lpsTab [8][256]uint64

func init() {
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

// lps sets dst = LPS(src).
func lps(dst, src *[8]uint64) {
	for w := 0; w < 8; w++ {
		s := 8 * uint(w)
		dst[w] = lpsTab[0][byte(src[0]>>s)] ^
			lpsTab[1][byte(src[1]>>s)] ^
			lpsTab[2][byte(src[2]>>s)] ^
			lpsTab[3][byte(src[3]>>s)] ^
			lpsTab[4][byte(src[4]>>s)] ^
			lpsTab[5][byte(src[5]>>s)] ^
			lpsTab[6][byte(src[6]>>s)] ^
			lpsTab[7][byte(src[7]>>s)]
	}
}

// g sets h = g_N(h, m) = E(LPS(h ⊕ N), m) ⊕ h ⊕ m (RFC 6986, 7).
func g(h, n, m *[8]uint64) {
	var k, s, t [8]uint64
	for i := range t {
		t[i] = h[i] ^ n[i]
	}
	lps(&k, &t) // K_1
	s = *m
	for r := 0; r < 12; r++ {
		// X[K_r], then LPS.
		for i := range t {
			t[i] = s[i] ^ k[i]
		}
		lps(&s, &t)
		// K_{r+1} = LPS(K_r ⊕ C_r).
		for i := range t {
			t[i] = k[i] ^ iterC[r][i]
		}
		lps(&k, &t)
	}
	// X[K_13].
	for i := range h {
		h[i] ^= s[i] ^ k[i] ^ m[i]
	}
}
