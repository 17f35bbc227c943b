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
	case k.sectors && c.asm.v == variantVAESAVX10_512:
		for ; i < end; i++ {
			decryptSectorsVAESAVX10_512(ks, buf, buf, 512, i, 1)
		}
	case k.sectors && c.asm.v == variantVAESAVX10_256:
		for ; i < end; i++ {
			decryptSectorsVAESAVX10_256(ks, buf, buf, 512, i, 1)
		}
	case k.sectors && c.asm.v == variantVAESAVX2:
		for ; i < end; i++ {
			decryptSectorsVAESAVX2(ks, buf, buf, 512, i, 1)
		}
	case k.sectors && c.asm.v == variantAESNIAVX:
		for ; i < end; i++ {
			decryptSectorsAESNIAVX(ks, buf, buf, 512, i, 1)
		}
	case k.sectors && c.asm.v == variantAESNI:
		for ; i < end; i++ {
			decryptSectorsAESNI(ks, buf, buf, 512, i, 1)
		}
	case k.decrypt && c.asm.v == variantVAESAVX10_512:
		for ; i < end; i++ {
			decryptVAESAVX10_512(ks, buf, buf, i, 0, f)
		}
	case k.decrypt && c.asm.v == variantVAESAVX10_256:
		for ; i < end; i++ {
			decryptVAESAVX10_256(ks, buf, buf, i, 0, f)
		}
	case k.decrypt && c.asm.v == variantVAESAVX2:
		for ; i < end; i++ {
			decryptVAESAVX2(ks, buf, buf, i, 0, f)
		}
	case k.decrypt && c.asm.v == variantAESNIAVX:
		for ; i < end; i++ {
			decryptAESNIAVX(ks, buf, buf, i, 0, f)
		}
	case k.decrypt && c.asm.v == variantAESNI:
		for ; i < end; i++ {
			decryptAESNI(ks, buf, buf, i, 0, f)
		}
	case c.asm.v == variantVAESAVX10_512:
		for ; i < end; i++ {
			encryptVAESAVX10_512(ks, buf, buf, i, 0, f)
		}
	case c.asm.v == variantVAESAVX10_256:
		for ; i < end; i++ {
			encryptVAESAVX10_256(ks, buf, buf, i, 0, f)
		}
	case c.asm.v == variantVAESAVX2:
		for ; i < end; i++ {
			encryptVAESAVX2(ks, buf, buf, i, 0, f)
		}
	case c.asm.v == variantAESNIAVX:
		for ; i < end; i++ {
			encryptAESNIAVX(ks, buf, buf, i, 0, f)
		}
	case c.asm.v == variantAESNI:
		for ; i < end; i++ {
			encryptAESNI(ks, buf, buf, i, 0, f)
		}
	default:
		panic("xts: no bare routine for " + c.name)
	}
}
