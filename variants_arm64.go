//go:build !purego

package xts

import (
	"os"
	"strings"

	"golang.org/x/sys/cpu"
)

// This file is the one place that lists the arm64 assembly variants (the
// generator in _asm/arm64 emits their routines into zxts_arm64.s): for
// each, its public name, what it needs of the CPU as golang.org/x/sys/cpu
// reports it (which honours GODEBUG=cpu.aes=off), and its four routines,
// best first.
var arm64Variants = []struct {
	name    string
	needs   func() []requirement
	note    string
	variant asmVariant
}{
	{"armv8-ce", needsARMv8CE, "ARMv8 Cryptography Extensions: AESE/AESMC pairs, 8 blocks a step",
		variantARMv8},
}

// asmVariant names one variant's four generated routines: variantX runs
// encryptX, decryptX, encryptSectorsX and decryptSectorsX (the generator's
// suffixes). asmEngine's methods below switch on it to call them directly.
type asmVariant uint8

const variantARMv8 asmVariant = 0

// needsARMv8CE: the AES instructions (AESE, AESD, AESMC, AESIMC), also
// used by the key expansion. PMULL and SHA3 are not used.
func needsARMv8CE() []requirement {
	return []requirement{{"AES", cpu.ARM64.HasAES, false}}
}

func init() {
	platformImplementations = arm64Implementations
}

// arm64Implementations lists the variants in the table's order, each
// available when the CPU has what it needs.
func arm64Implementations() []platformImpl {
	impls := make([]platformImpl, 0, len(arm64Variants))
	for i := range arm64Variants {
		v := &arm64Variants[i]
		note := missing(v.needs())
		impls = append(impls, platformImpl{
			name:      v.name,
			available: note == "",
			note:      v.note,
			newAES:    func(key []byte) engine { return newAsmEngine(v.variant, key) },
		})
		if note != "" {
			if strings.Contains(os.Getenv("GODEBUG"), "cpu.aes=off") {
				note += " (GODEBUG=cpu.aes=off)"
			}
			impls[len(impls)-1].note = note
		}
	}
	return impls
}

// sectorBatch is 1: the arm64 sector routine runs its units one after
// another (only their IVs are encrypted four at a time), so a short call
// costs in proportion to its sectors and always takes the batch routine.
const sectorBatch = 1

// The engine's entry points: one direct call of the variant's routine.

func (e *asmEngine) encrypt(dst, src []byte, t tweak128, flags uint64) tweak128 {
	switch e.v {
	case variantARMv8:
		t.lo, t.hi = encryptARMv8(e.ks, dst, src, t.lo, t.hi, flags)
	default:
		panic(errVariant)
	}
	return t
}

func (e *asmEngine) decrypt(dst, src []byte, t tweak128, flags uint64) tweak128 {
	switch e.v {
	case variantARMv8:
		t.lo, t.hi = decryptARMv8(e.ks, dst, src, t.lo, t.hi, flags)
	default:
		panic(errVariant)
	}
	return t
}

func (e *asmEngine) encryptSectors(dst, src []byte, sectorSize int, first, step uint64) {
	switch e.v {
	case variantARMv8:
		encryptSectorsARMv8(e.ks, dst, src, sectorSize, first, step)
	default:
		panic(errVariant)
	}
}

func (e *asmEngine) decryptSectors(dst, src []byte, sectorSize int, first, step uint64) {
	switch e.v {
	case variantARMv8:
		decryptSectorsARMv8(e.ks, dst, src, sectorSize, first, step)
	default:
		panic(errVariant)
	}
}
