//go:build !purego

package xts

import "testing"

// benchBare times the named variant's generated routine called directly
// (a static call, no function value, no interface) on c's key schedule.
func benchBare(b *testing.B, c *Cipher, k dispatchKind, buf []byte) {
	g, ok := c.eng.(*genericEngine)
	if ok {
		benchBareGeneric(b, g, k, buf)
		return
	}
	ks := c.asm.ks
	const f = flagEncryptTweak
	switch {
	case k.sectors && c.name == "vaes-avx10_512":
		for i := uint64(0); b.Loop(); i++ {
			decryptSectorsVAESAVX10_512(ks, buf, buf, 512, i, 1)
		}
	case k.sectors && c.name == "vaes-avx10_256":
		for i := uint64(0); b.Loop(); i++ {
			decryptSectorsVAESAVX10_256(ks, buf, buf, 512, i, 1)
		}
	case k.sectors && c.name == "vaes-avx2":
		for i := uint64(0); b.Loop(); i++ {
			decryptSectorsVAESAVX2(ks, buf, buf, 512, i, 1)
		}
	case k.sectors && c.name == "aesni-avx":
		for i := uint64(0); b.Loop(); i++ {
			decryptSectorsAESNIAVX(ks, buf, buf, 512, i, 1)
		}
	case k.sectors && c.name == "aesni":
		for i := uint64(0); b.Loop(); i++ {
			decryptSectorsAESNI(ks, buf, buf, 512, i, 1)
		}
	case k.decrypt && c.name == "vaes-avx10_512":
		for i := uint64(0); b.Loop(); i++ {
			decryptVAESAVX10_512(ks, buf, buf, i, 0, f)
		}
	case k.decrypt && c.name == "vaes-avx10_256":
		for i := uint64(0); b.Loop(); i++ {
			decryptVAESAVX10_256(ks, buf, buf, i, 0, f)
		}
	case k.decrypt && c.name == "vaes-avx2":
		for i := uint64(0); b.Loop(); i++ {
			decryptVAESAVX2(ks, buf, buf, i, 0, f)
		}
	case k.decrypt && c.name == "aesni-avx":
		for i := uint64(0); b.Loop(); i++ {
			decryptAESNIAVX(ks, buf, buf, i, 0, f)
		}
	case k.decrypt && c.name == "aesni":
		for i := uint64(0); b.Loop(); i++ {
			decryptAESNI(ks, buf, buf, i, 0, f)
		}
	case c.name == "vaes-avx10_512":
		for i := uint64(0); b.Loop(); i++ {
			encryptVAESAVX10_512(ks, buf, buf, i, 0, f)
		}
	case c.name == "vaes-avx10_256":
		for i := uint64(0); b.Loop(); i++ {
			encryptVAESAVX10_256(ks, buf, buf, i, 0, f)
		}
	case c.name == "vaes-avx2":
		for i := uint64(0); b.Loop(); i++ {
			encryptVAESAVX2(ks, buf, buf, i, 0, f)
		}
	case c.name == "aesni-avx":
		for i := uint64(0); b.Loop(); i++ {
			encryptAESNIAVX(ks, buf, buf, i, 0, f)
		}
	case c.name == "aesni":
		for i := uint64(0); b.Loop(); i++ {
			encryptAESNI(ks, buf, buf, i, 0, f)
		}
	default:
		b.Fatalf("no bare routine for %s", c.name)
	}
}
