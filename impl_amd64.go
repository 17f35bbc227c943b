//go:build !purego

package xts

import "unsafe"

// This file registers the generated assembly variants with the core
// registry: the dispatch policy (policy.go) ranks them for this CPU
// (cpu_amd64.go) and each becomes an engine over one expanded key.

func init() {
	platformImplementations = asmImplementations
}

// asmImplementations lists the five variants in the policy's order for
// this machine, each with its verdict.
func asmImplementations() []platformImpl {
	c, _ := host()
	verdicts := rankVariants(c)
	impls := make([]platformImpl, 0, len(verdicts))
	for _, v := range verdicts {
		impls = append(impls, platformImpl{
			name:      v.Name,
			available: v.Available,
			note:      v.Note,
			newAES:    asmConstructor(v.Name),
		})
	}
	return impls
}

// Indexes of the variants in asmVariants, for asmEngine's dispatch.
const (
	variantAESNI = iota
	variantAESNIAVX
	variantVAESAVX2
	variantAVX10_256
	variantAVX10_512
)

// asmConstructor returns the engine constructor of the variant called
// name in asmVariants. The registry calls it only for available variants.
func asmConstructor(name string) func(key []byte) engine {
	for i, av := range asmVariants {
		if av.name == name {
			return func(key []byte) engine {
				return &asmEngine{ks: newKeySchedule(key), variant: i}
			}
		}
	}
	panic("xts: internal error: the dispatch policy names " + name + ", which asmVariants lacks")
}

// asmEngine runs one generated variant with one expanded key. The engine
// contract's preconditions are the routines' preconditions, so it only
// passes its arguments through: one assembly call per data unit.
//
// It calls the routine directly, chosen by a switch, rather than through
// asmVariants' function values: the routines are go:noescape, but escape
// analysis cannot see that through an indirect call, and the tweak,
// passed by pointer, would then be moved to the heap on every call.
type asmEngine struct {
	ks      *keySchedule
	variant int // index in asmVariants
}

func (e *asmEngine) encrypt(dst, src []byte, t tweak128, flags uint64) tweak128 {
	// t's memory is the tweak's 16 bytes, written as two 8-byte words
	// that the routines read back as two 8-byte words.
	tweak := (*[16]byte)(unsafe.Pointer(&t))
	switch e.variant {
	case variantAESNI:
		encryptAESNI(e.ks, dst, src, tweak, flags)
	case variantAESNIAVX:
		encryptAESNIAVX(e.ks, dst, src, tweak, flags)
	case variantVAESAVX2:
		encryptVAESAVX2(e.ks, dst, src, tweak, flags)
	case variantAVX10_256:
		encryptVAESAVX10_256(e.ks, dst, src, tweak, flags)
	case variantAVX10_512:
		encryptVAESAVX10_512(e.ks, dst, src, tweak, flags)
	default:
		panic("xts: internal error: bad assembly variant")
	}
	return t
}

func (e *asmEngine) decrypt(dst, src []byte, t tweak128, flags uint64) tweak128 {
	// t's memory is the tweak's 16 bytes, written as two 8-byte words
	// that the routines read back as two 8-byte words.
	tweak := (*[16]byte)(unsafe.Pointer(&t))
	switch e.variant {
	case variantAESNI:
		decryptAESNI(e.ks, dst, src, tweak, flags)
	case variantAESNIAVX:
		decryptAESNIAVX(e.ks, dst, src, tweak, flags)
	case variantVAESAVX2:
		decryptVAESAVX2(e.ks, dst, src, tweak, flags)
	case variantAVX10_256:
		decryptVAESAVX10_256(e.ks, dst, src, tweak, flags)
	case variantAVX10_512:
		decryptVAESAVX10_512(e.ks, dst, src, tweak, flags)
	default:
		panic("xts: internal error: bad assembly variant")
	}
	return t
}

// encryptSectors and decryptSectors make asmEngine a sectorEngine: one
// assembly call for a whole run of data units (see the sector routines in
// asm_amd64.go), dispatched by a switch for the same reason as above.
func (e *asmEngine) encryptSectors(dst, src []byte, sectorSize int, first, step uint64) {
	switch e.variant {
	case variantAESNI:
		encryptSectorsAESNI(e.ks, dst, src, sectorSize, first, step)
	case variantAESNIAVX:
		encryptSectorsAESNIAVX(e.ks, dst, src, sectorSize, first, step)
	case variantVAESAVX2:
		encryptSectorsVAESAVX2(e.ks, dst, src, sectorSize, first, step)
	case variantAVX10_256:
		encryptSectorsVAESAVX10_256(e.ks, dst, src, sectorSize, first, step)
	case variantAVX10_512:
		encryptSectorsVAESAVX10_512(e.ks, dst, src, sectorSize, first, step)
	default:
		panic("xts: internal error: bad assembly variant")
	}
}

func (e *asmEngine) decryptSectors(dst, src []byte, sectorSize int, first, step uint64) {
	switch e.variant {
	case variantAESNI:
		decryptSectorsAESNI(e.ks, dst, src, sectorSize, first, step)
	case variantAESNIAVX:
		decryptSectorsAESNIAVX(e.ks, dst, src, sectorSize, first, step)
	case variantVAESAVX2:
		decryptSectorsVAESAVX2(e.ks, dst, src, sectorSize, first, step)
	case variantAVX10_256:
		decryptSectorsVAESAVX10_256(e.ks, dst, src, sectorSize, first, step)
	case variantAVX10_512:
		decryptSectorsVAESAVX10_512(e.ks, dst, src, sectorSize, first, step)
	default:
		panic("xts: internal error: bad assembly variant")
	}
}
