//go:build !purego

package xts

import (
	"crypto/cipher"

	"github.com/fastxts/xts/internal/cpuid"
)

// x86Variant is one row of a cipher family's x86-64 variant table
// (serpent_amd64.go, twofish_amd64.go, camellia_amd64.go,
// kuznyechik_amd64.go): its name, the CPU features it needs, and its
// generated routines, whose shape is the family's.
type x86Variant[F any] struct {
	name  string
	needs func(cpuid.X86) []requirement
	funcs F
}

// x86FamilyImplementations turns a family's variant table into its
// implementation list for the registry: each variant's needs checked on
// this CPU (the note says what is missing), newEngine making an engine of
// a variant's routines for an XTS key.
func x86FamilyImplementations[F any](vs []x86Variant[F], note string, newEngine func(f F, key []byte, k1, k2 cipher.Block) engine) []otherImpl {
	c, _ := cpuid.Host()
	impls := make([]otherImpl, 0, len(vs))
	for _, v := range vs {
		why := missing(v.needs(c))
		n := note
		if why != "" {
			n += "; " + why
		}
		impls = append(impls, otherImpl{
			name:      v.name,
			available: why == "",
			note:      n,
			newEngine: func(key []byte, k1, k2 cipher.Block) engine { return newEngine(v.funcs, key, k1, k2) },
		})
	}
	return impls
}

// needsAVX512VBMIGFNI is what twofish-avx512 and kuznyechik-avx512 need.
// VPERMI2B on zmm is AVX-512 VBMI; VGF2P8AFFINEQB the GFNI bit (its EVEX
// form with AVX-512F); VPSLLDQ, VPUNPCK*BW/WD, VPMOVB2M, KNOTQ and KXORQ
// on zmm AVX-512BW; VPXORD on xmm (the final zeroing) AVX-512VL;
// VPCLMULQDQ on zmm the VPCLMULQDQ bit; VMOVQ, VPINSRQ and VPEXTRQ on
// xmm0-15 are plain AVX (VEX), which AVX-512F implies; everything else
// AVX-512F.
func needsAVX512VBMIGFNI(c cpuid.X86) []requirement {
	return []requirement{
		{"AVX-512F", c.AVX512F, false},
		{"AVX-512BW", c.AVX512BW, false},
		{"AVX-512VL", c.AVX512VL, false},
		{"AVX-512VBMI", c.AVX512VBMI, false},
		{"GFNI", c.GFNI, false},
		{"VPCLMULQDQ", c.VPCLMULQDQ, false},
		{"ZMM", c.UsableZMM(), true},
	}
}
