//go:build !purego

package xts

import "github.com/fastxts/xts/internal/cpuid"

// This file is the one place that lists the x86-64 assembly variants (the
// generator in _asm/xts.go emits their routines): for each, its public
// name, what the dispatch policy (policy_x86.go) needs to know, and which
// generated routines it runs, best first.
var x86Variants = []struct {
	x86Policy
	variant asmVariant
}{
	{x86Policy{"vaes-avx10_512", needsAVX10, true}, variantVAESAVX10_512},
	{x86Policy{"vaes-avx10_256", needsAVX10, false}, variantVAESAVX10_256},
	{x86Policy{"vaes-avx2", needsVAESAVX2, false}, variantVAESAVX2},
	{x86Policy{"aesni-avx", needsAESNIAVX, false}, variantAESNIAVX},
	{x86Policy{"aesni", needsAESNI, false}, variantAESNI},
}

// asmVariant names one variant's four generated routines: variantX runs
// encryptX, decryptX, encryptSectorsX and decryptSectorsX (the generator's
// suffixes). asmEngine's methods below switch on it to call them directly.
type asmVariant uint8

const (
	variantVAESAVX10_512 asmVariant = iota
	variantVAESAVX10_256
	variantVAESAVX2
	variantAESNIAVX
	variantAESNI
)

// What each variant executes. aesni byte-shuffles with PSHUFB: every CPU
// with AES-NI has SSSE3, but a hypervisor may mask one and not the other.
// Each wider variant inherits the narrower one's needs, which keeps the
// order monotone. The VAES variants also run VEX-encoded VPCLMULQDQ on
// xmm registers, which the PCLMULQDQ bit (not VPCLMULQDQ's) promises.

func needsAESNI(c cpuid.X86) []requirement {
	return []requirement{{"AES-NI", c.AES, false}, {"SSSE3", c.SSSE3, false}}
}

func needsAESNIAVX(c cpuid.X86) []requirement {
	return append(needsAESNI(c),
		requirement{"AVX", c.AVX, false},
		requirement{"YMM", c.UsableYMM(), true})
}

func needsVAESAVX2(c cpuid.X86) []requirement {
	return append(needsAESNIAVX(c),
		requirement{"AVX2", c.AVX2, false},
		requirement{"PCLMULQDQ", c.PCLMULQDQ, false},
		requirement{"VAES", c.VAES, false},
		requirement{"VPCLMULQDQ", c.VPCLMULQDQ, false})
}

func needsAVX10(c cpuid.X86) []requirement {
	return append(needsVAESAVX2(c),
		requirement{"AVX-512F", c.AVX512F, false},
		requirement{"AVX-512BW", c.AVX512BW, false},
		requirement{"AVX-512VL", c.AVX512VL, false},
		requirement{"BMI2", c.BMI2, false},
		requirement{"ZMM", c.UsableZMM(), true})
}

// x86Policies is the table as the policy sees it.
func x86Policies() []x86Policy {
	ps := make([]x86Policy, len(x86Variants))
	for i, v := range x86Variants {
		ps[i] = v.x86Policy
	}
	return ps
}

func init() {
	platformImplementations = x86Implementations
}

// x86Implementations lists the variants in the policy's order for this
// machine, each with its verdict and its engine constructor.
func x86Implementations() []platformImpl {
	c, _ := cpuid.Host()
	verdicts := rankVariants(c, x86Policies())
	impls := make([]platformImpl, 0, len(verdicts))
	for _, v := range verdicts {
		for i := range x86Variants {
			if av := x86Variants[i].variant; x86Variants[i].name == v.Name {
				impls = append(impls, platformImpl{
					name:      v.Name,
					available: v.Available,
					note:      v.Note,
					newAES:    func(key []byte) engine { return newAsmEngine(av, key) },
				})
			}
		}
	}
	return impls
}

// sectorBatch is how many sectors the sector-batch routines run side by
// side: a call whose last batch has fewer pays for a whole one (see
// sectorsAsm). The generator's design note (_asm/xts_sectors.go) says why.
const sectorBatch = 4

// The engine's entry points: one direct call of the variant's routine.

func (e *asmEngine) encrypt(dst, src []byte, t tweak128, flags uint64) tweak128 {
	switch e.v {
	case variantVAESAVX10_512:
		t.lo, t.hi = encryptVAESAVX10_512(e.ks, dst, src, t.lo, t.hi, flags)
	case variantVAESAVX10_256:
		t.lo, t.hi = encryptVAESAVX10_256(e.ks, dst, src, t.lo, t.hi, flags)
	case variantVAESAVX2:
		t.lo, t.hi = encryptVAESAVX2(e.ks, dst, src, t.lo, t.hi, flags)
	case variantAESNIAVX:
		t.lo, t.hi = encryptAESNIAVX(e.ks, dst, src, t.lo, t.hi, flags)
	case variantAESNI:
		t.lo, t.hi = encryptAESNI(e.ks, dst, src, t.lo, t.hi, flags)
	default:
		panic(errVariant)
	}
	return t
}

func (e *asmEngine) decrypt(dst, src []byte, t tweak128, flags uint64) tweak128 {
	switch e.v {
	case variantVAESAVX10_512:
		t.lo, t.hi = decryptVAESAVX10_512(e.ks, dst, src, t.lo, t.hi, flags)
	case variantVAESAVX10_256:
		t.lo, t.hi = decryptVAESAVX10_256(e.ks, dst, src, t.lo, t.hi, flags)
	case variantVAESAVX2:
		t.lo, t.hi = decryptVAESAVX2(e.ks, dst, src, t.lo, t.hi, flags)
	case variantAESNIAVX:
		t.lo, t.hi = decryptAESNIAVX(e.ks, dst, src, t.lo, t.hi, flags)
	case variantAESNI:
		t.lo, t.hi = decryptAESNI(e.ks, dst, src, t.lo, t.hi, flags)
	default:
		panic(errVariant)
	}
	return t
}

func (e *asmEngine) encryptSectors(dst, src []byte, sectorSize int, first, step uint64) {
	switch e.v {
	case variantVAESAVX10_512:
		encryptSectorsVAESAVX10_512(e.ks, dst, src, sectorSize, first, step)
	case variantVAESAVX10_256:
		encryptSectorsVAESAVX10_256(e.ks, dst, src, sectorSize, first, step)
	case variantVAESAVX2:
		encryptSectorsVAESAVX2(e.ks, dst, src, sectorSize, first, step)
	case variantAESNIAVX:
		encryptSectorsAESNIAVX(e.ks, dst, src, sectorSize, first, step)
	case variantAESNI:
		encryptSectorsAESNI(e.ks, dst, src, sectorSize, first, step)
	default:
		panic(errVariant)
	}
}

func (e *asmEngine) decryptSectors(dst, src []byte, sectorSize int, first, step uint64) {
	switch e.v {
	case variantVAESAVX10_512:
		decryptSectorsVAESAVX10_512(e.ks, dst, src, sectorSize, first, step)
	case variantVAESAVX10_256:
		decryptSectorsVAESAVX10_256(e.ks, dst, src, sectorSize, first, step)
	case variantVAESAVX2:
		decryptSectorsVAESAVX2(e.ks, dst, src, sectorSize, first, step)
	case variantAESNIAVX:
		decryptSectorsAESNIAVX(e.ks, dst, src, sectorSize, first, step)
	case variantAESNI:
		decryptSectorsAESNI(e.ks, dst, src, sectorSize, first, step)
	default:
		panic(errVariant)
	}
}
