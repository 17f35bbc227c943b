//go:build !purego

package xts

import "testing"

// benchBare times the named variant's generated routine called directly
// (a static call, no function value, no interface) on c's key schedule.
func benchBare(b *testing.B, c *Cipher, k dispatchKind, buf []byte) {
	if g, ok := c.eng.(*genericEngine); ok {
		benchBareGeneric(b, g, k, buf)
		return
	}
	ks := c.asm.ks
	const f = flagEncryptTweak
	switch {
	case c.name != "armv8-ce":
		b.Fatalf("no bare routine for %s", c.name)
	case k.sectors:
		for i := uint64(0); b.Loop(); i++ {
			decryptSectorsARMv8(ks, buf, buf, 512, i, 1)
		}
	case k.decrypt:
		for i := uint64(0); b.Loop(); i++ {
			decryptARMv8(ks, buf, buf, i, 0, f)
		}
	default:
		for i := uint64(0); b.Loop(); i++ {
			encryptARMv8(ks, buf, buf, i, 0, f)
		}
	}
}
