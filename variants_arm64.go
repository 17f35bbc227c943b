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
	name  string
	needs func() []requirement
	note  string
	asmRoutines
}{
	{"armv8-ce", needsARMv8CE, "ARMv8 Cryptography Extensions: AESE/AESMC pairs, 8 blocks a step",
		asmRoutines{encryptARMv8, decryptARMv8, encryptSectorsARMv8, decryptSectorsARMv8}},
}

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
			newAES:    func(key []byte) engine { return newAsmEngine(&v.asmRoutines, key) },
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
