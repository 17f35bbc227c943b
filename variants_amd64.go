//go:build !purego

package xts

// asmFunc is the signature shared by every generated XTS routine.
type asmFunc func(ks *keySchedule, dst, src []byte, tweak *[16]byte, flags uint64)

// asmVariant names one generated variant and its two routines. The names
// are the public implementation names (see Implementations).
type asmVariant struct {
	name     string
	enc, dec asmFunc
}

// asmVariants lists the generated variants from the narrowest to the
// widest. Whether the CPU can run one is decided by the dispatch policy.
var asmVariants = [...]asmVariant{
	{"aesni", encryptAESNI, decryptAESNI},
	{"aesni-avx", encryptAESNIAVX, decryptAESNIAVX},
	{"vaes-avx2", encryptVAESAVX2, decryptVAESAVX2},
	{"vaes-avx10_256", encryptVAESAVX10_256, decryptVAESAVX10_256},
	{"vaes-avx10_512", encryptVAESAVX10_512, decryptVAESAVX10_512},
}
