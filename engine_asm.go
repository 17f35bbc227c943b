//go:build (amd64 || arm64) && !purego

package xts

// This file is the engine over generated assembly, shared by every
// architecture that has some: each architecture's table (variants_*.go)
// lists its variants, and each variant's four routines become one
// asmEngine per key.

// unitFunc is the signature of every generated unit routine: one whole data
// unit, or a part of one, per call, the tweak in and out by value (see the
// engine type for why two words and not a pointer or an array).
type unitFunc func(ks *keySchedule, dst, src []byte, tweakLo, tweakHi, flags uint64) (lo, hi uint64)

// sectorsFunc is the signature of every generated sector-batch routine:
// whole data units, unit k with the IV first + k*step.
type sectorsFunc func(ks *keySchedule, dst, src []byte, sectorSize int, first, step uint64)

// asmRoutines are the four routines of one variant.
type asmRoutines struct {
	encrypt, decrypt               unitFunc
	encryptSectors, decryptSectors sectorsFunc
}

// asmEngine runs one variant's routines with one expanded key. The engine
// contract's preconditions are the routines' preconditions, so it only
// passes its arguments through: one assembly call per data unit, or per
// run of sectors. Calling through function values costs no allocation:
// the routines are go:noescape, dst and src already escape at the API, and
// the tweak travels by value.
type asmEngine struct {
	ks *keySchedule
	r  asmRoutines // a copy: one load, not two, to reach a routine
}

func newAsmEngine(r *asmRoutines, key []byte) *asmEngine {
	return &asmEngine{ks: newKeySchedule(key), r: *r}
}

func (e *asmEngine) encrypt(dst, src []byte, t tweak128, flags uint64) tweak128 {
	lo, hi := e.r.encrypt(e.ks, dst, src, t.lo, t.hi, flags)
	return tweak128{lo, hi}
}

func (e *asmEngine) decrypt(dst, src []byte, t tweak128, flags uint64) tweak128 {
	lo, hi := e.r.decrypt(e.ks, dst, src, t.lo, t.hi, flags)
	return tweak128{lo, hi}
}

// wipe zeroes the round keys (Cipher.Wipe).
func (e *asmEngine) wipe() { e.ks.wipe() }

func (e *asmEngine) encryptSectors(dst, src []byte, sectorSize int, first, step uint64) {
	e.r.encryptSectors(e.ks, dst, src, sectorSize, first, step)
}

func (e *asmEngine) decryptSectors(dst, src []byte, sectorSize int, first, step uint64) {
	e.r.decryptSectors(e.ks, dst, src, sectorSize, first, step)
}
