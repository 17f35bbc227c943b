package streebog

// keyCache holds the keys K_1..K_13 of E in g_N(h, m), which depend only
// on h and N.
//
// HMAC, and so PBKDF2, restores the same saved state (the hash of the
// key's pad block) for every message, and the first g it then computes
// has that state's h and N. A digest restored with UnmarshalBinary
// therefore keeps the keys of its first g and reuses them while h and N
// are the same: in PBKDF2-HMAC-Streebog that saves 13 of the 25 LPS of
// one g in four. The cache is a pure function of (h, N), checked on every
// use, so it never changes a result.
type keyCache struct {
	valid bool
	h     [8]uint64
	n     uint64
	k     [13][8]uint64
}

// g sets h = g_N(h, m) for N = n (a 64-bit count), with cached keys,
// computing them first if they are not (h, n)'s.
func (c *keyCache) g(h *[8]uint64, n uint64, m *[8]uint64) {
	lpsOnce.Do(fillLPS)
	if !c.valid || c.n != n || c.h != *h {
		k0, k1, k2, k3, k4, k5, k6, k7 := lps(h[0]^n, h[1], h[2], h[3], h[4], h[5], h[6], h[7])
		c.k[0] = [8]uint64{k0, k1, k2, k3, k4, k5, k6, k7}
		for r := range iterC {
			ci := &iterC[r]
			k0, k1, k2, k3, k4, k5, k6, k7 = lps(k0^ci[0], k1^ci[1], k2^ci[2], k3^ci[3], k4^ci[4], k5^ci[5], k6^ci[6], k7^ci[7])
			c.k[r+1] = [8]uint64{k0, k1, k2, k3, k4, k5, k6, k7}
		}
		c.h, c.n, c.valid = *h, n, true
	}
	s0, s1, s2, s3, s4, s5, s6, s7 := m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7]
	for r := 0; r < 12; r++ {
		k := &c.k[r]
		s0, s1, s2, s3, s4, s5, s6, s7 = lps(s0^k[0], s1^k[1], s2^k[2], s3^k[3], s4^k[4], s5^k[5], s6^k[6], s7^k[7])
	}
	k := &c.k[12]
	h[0] ^= s0 ^ k[0] ^ m[0]
	h[1] ^= s1 ^ k[1] ^ m[1]
	h[2] ^= s2 ^ k[2] ^ m[2]
	h[3] ^= s3 ^ k[3] ^ m[3]
	h[4] ^= s4 ^ k[4] ^ m[4]
	h[5] ^= s5 ^ k[5] ^ m[5]
	h[6] ^= s6 ^ k[6] ^ m[6]
	h[7] ^= s7 ^ k[7] ^ m[7]
}
