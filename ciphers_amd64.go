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
