//go:build (amd64 || arm64) && !purego

package xts

// This file is the engine over generated assembly, shared by every
// architecture that has some: each architecture's table (variants_*.go)
// lists its variants, each with the asmVariant that names its generated
// routines, and each variant becomes one asmEngine per key.
//
// The Cipher calls an asmEngine's methods on the concrete type, not
// through the engine interface, and each method calls the selected
// variant's routine directly, in a switch over the variant (the table
// file's methods). A routine reached through a function value would pay
// for more than the indirect call: a function value of an assembly routine
// points to an ABI wrapper that the compiler generates to move the
// arguments from the register ABI to the stack ABI, one more call frame
// that stores and reloads every argument; a direct call from Go code
// writes the arguments where the routine reads them.

// asmEngine runs one variant's routines with one expanded key. The engine
// contract's preconditions are the routines' preconditions, so its methods
// only pass their arguments through: one assembly call per data unit, or
// per run of sectors, which allocates nothing (the routines do not let
// their pointers escape, and the tweak travels by value).
//
// encryptSectors and decryptSectors process many consecutive data units in
// one call: unit k of src (each sectorSize bytes, a multiple of 16) uses
// the IV SectorTweak(first + k*step), modulo 2^64. The portable engine has
// no such entry point: the Cipher drives it one data unit at a time.
type asmEngine struct {
	ks *keySchedule
	v  asmVariant
}

func newAsmEngine(v asmVariant, key []byte) *asmEngine {
	return &asmEngine{ks: newKeySchedule(key), v: v}
}

// wipe zeroes the round keys (Cipher.Wipe).
func (e *asmEngine) wipe() { e.ks.wipe() }

// errVariant is the panic of a variant missing from the table file's
// switches: a build error in spirit, caught by every test of the variant.
const errVariant = "xts: internal error: assembly variant without routines"
