//go:build !purego

package xts

// bareRun makes n calls of the generated routine of c's variant, called
// directly (a static call, no function value, no interface), on c's key
// schedule, in place on buf, sector numbers from i; sector calls are one
// 512-byte sector each.
func bareRun(c *Cipher, k dispatchKind, buf []byte, i uint64, n int) {
	if g, ok := c.eng.(*genericEngine); ok {
		bareRunGeneric(g, k, buf, i, n)
		return
	}
	ks, end := c.asm.ks, i+uint64(n)
	const f = flagEncryptTweak
	switch {
	case c.asm.v != variantARMv8:
		panic("xts: no bare routine for " + c.name)
	case k.sectors:
		for ; i < end; i++ {
			decryptSectorsARMv8(ks, buf, buf, 512, i, 1)
		}
	case k.decrypt:
		for ; i < end; i++ {
			decryptARMv8(ks, buf, buf, i, 0, f)
		}
	default:
		for ; i < end; i++ {
			encryptARMv8(ks, buf, buf, i, 0, f)
		}
	}
}
