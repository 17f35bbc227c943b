package whirlpool

import "encoding/binary"

// keyCache holds the key schedule of W for one chaining value h: the
// round keys K^1..K^10 derived from K^0 = h.
//
// HMAC, and so PBKDF2, restores the same saved state (the hash of the
// key's pad block) for every message, and the first block it then
// compresses has that state as its chaining value, which is W's key. A
// digest restored with UnmarshalBinary therefore keeps the schedule of
// the first block it compresses and reuses it while the chaining value is
// the same: in PBKDF2-HMAC-Whirlpool that is a quarter of the work (10 of
// the 40 round computations of an HMAC). The cache is a pure function of
// h, checked on every use, so it never changes a result.
type keyCache struct {
	valid bool
	h     [8]uint64
	rk    [rounds][8]uint64
}

// schedule fills c with the round keys for h.
func (c *keyCache) schedule(h *[8]uint64) {
	k0, k1, k2, k3, k4, k5, k6, k7 := h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]
	for r := 0; r < rounds; r++ {
		k0, k1, k2, k3, k4, k5, k6, k7 =
			mix(k0, k7, k6, k5, k4, k3, k2, k1)^rc[r],
			mix(k1, k0, k7, k6, k5, k4, k3, k2),
			mix(k2, k1, k0, k7, k6, k5, k4, k3),
			mix(k3, k2, k1, k0, k7, k6, k5, k4),
			mix(k4, k3, k2, k1, k0, k7, k6, k5),
			mix(k5, k4, k3, k2, k1, k0, k7, k6),
			mix(k6, k5, k4, k3, k2, k1, k0, k7),
			mix(k7, k6, k5, k4, k3, k2, k1, k0)
		c.rk[r] = [8]uint64{k0, k1, k2, k3, k4, k5, k6, k7}
	}
	c.h = *h
	c.valid = true
}

// blockCached compresses the one 64-byte block p into h with the cached
// schedule, computing it first if it is not h's.
func (c *keyCache) blockCached(h *[8]uint64, p []byte) {
	tablesOnce.Do(fillTables)
	if !c.valid || c.h != *h {
		c.schedule(h)
	}
	m0 := binary.BigEndian.Uint64(p[0:])
	m1 := binary.BigEndian.Uint64(p[8:])
	m2 := binary.BigEndian.Uint64(p[16:])
	m3 := binary.BigEndian.Uint64(p[24:])
	m4 := binary.BigEndian.Uint64(p[32:])
	m5 := binary.BigEndian.Uint64(p[40:])
	m6 := binary.BigEndian.Uint64(p[48:])
	m7 := binary.BigEndian.Uint64(p[56:])
	s0, s1, s2, s3, s4, s5, s6, s7 := m0^h[0], m1^h[1], m2^h[2], m3^h[3], m4^h[4], m5^h[5], m6^h[6], m7^h[7]
	for r := range c.rk {
		k := &c.rk[r]
		s0, s1, s2, s3, s4, s5, s6, s7 =
			mix(s0, s7, s6, s5, s4, s3, s2, s1)^k[0],
			mix(s1, s0, s7, s6, s5, s4, s3, s2)^k[1],
			mix(s2, s1, s0, s7, s6, s5, s4, s3)^k[2],
			mix(s3, s2, s1, s0, s7, s6, s5, s4)^k[3],
			mix(s4, s3, s2, s1, s0, s7, s6, s5)^k[4],
			mix(s5, s4, s3, s2, s1, s0, s7, s6)^k[5],
			mix(s6, s5, s4, s3, s2, s1, s0, s7)^k[6],
			mix(s7, s6, s5, s4, s3, s2, s1, s0)^k[7]
	}
	h[0] ^= s0 ^ m0
	h[1] ^= s1 ^ m1
	h[2] ^= s2 ^ m2
	h[3] ^= s3 ^ m3
	h[4] ^= s4 ^ m4
	h[5] ^= s5 ^ m5
	h[6] ^= s6 ^ m6
	h[7] ^= s7 ^ m7
}
