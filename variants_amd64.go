//go:build !purego

package xts

import "github.com/fastxts/xts/internal/cpuid"

// This file is the one place that lists the x86-64 assembly variants (the
// generator in _asm/xts.go emits their routines): for each, its public
// name, what the dispatch policy (policy_x86.go) needs to know, and its four
// generated routines, best first.
var x86Variants = []struct {
	x86Policy
	asmRoutines
}{
	{x86Policy{"vaes-avx10_512", needsAVX10, true},
		asmRoutines{encryptVAESAVX10_512, decryptVAESAVX10_512, encryptSectorsVAESAVX10_512, decryptSectorsVAESAVX10_512}},
	{x86Policy{"vaes-avx10_256", needsAVX10, false},
		asmRoutines{encryptVAESAVX10_256, decryptVAESAVX10_256, encryptSectorsVAESAVX10_256, decryptSectorsVAESAVX10_256}},
	{x86Policy{"vaes-avx2", needsVAESAVX2, false},
		asmRoutines{encryptVAESAVX2, decryptVAESAVX2, encryptSectorsVAESAVX2, decryptSectorsVAESAVX2}},
	{x86Policy{"aesni-avx", needsAESNIAVX, false},
		asmRoutines{encryptAESNIAVX, decryptAESNIAVX, encryptSectorsAESNIAVX, decryptSectorsAESNIAVX}},
	{x86Policy{"aesni", needsAESNI, false},
		asmRoutines{encryptAESNI, decryptAESNI, encryptSectorsAESNI, decryptSectorsAESNI}},
}

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
			if r := &x86Variants[i].asmRoutines; x86Variants[i].name == v.Name {
				impls = append(impls, platformImpl{
					name:      v.Name,
					available: v.Available,
					note:      v.Note,
					newAES:    func(key []byte) engine { return newAsmEngine(r, key) },
				})
			}
		}
	}
	return impls
}
