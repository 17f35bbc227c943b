// Command serpent generates zserpent_amd64.s, the AVX-512 Serpent-XTS
// routines of package xts, and zserpent_amd64.go, their Go declarations.
//
// Serpent is bitsliced over 16 blocks per set of four zmm registers (a 4x4
// dword transpose inside each 128-bit lane puts word i of 16 blocks in
// register i), four independent sets (64 blocks, 1 KiB) per loop
// iteration, then two and one set for the rest; the rounds are a loop of
// eight. Every S-box is a short circuit of VPTERNLOGD instructions found
// from its truth table by the search in sbox.go (the fewest nodes for the
// four-set step, which is bound by throughput; at most two deep for the
// others, bound by latency); the linear transformation uses VPROLD; round
// keys are broadcast from memory.
//
// Measured on Zen 5 (thread CPU time, 512 B / 4 KiB / 64 KiB units,
// Serpent-256): a level of the round chain takes about 0.75 ns (some 2.6
// cycles at 3.5 GHz), so one set alone (16 blocks) is latency-bound (~185 ns for 256
// bytes) and a single block encrypted with these instructions would be
// slower than the portable Go block cipher (~100 ns), which therefore
// still encrypts the tweak: a third of a 512-byte call.
//
// Run it from _asm: `go generate ./...` there.
package main

import . "github.com/mmcloughlin/avo/build"

//go:generate go run . -out ../../zserpent_amd64.s -stubs ../../zserpent_amd64.go -pkg xts

func main() {
	Package("github.com/fastxts/xts")
	ConstraintExpr("!purego")
	genSerpentData()
	// The fewest nodes for the four-set steps (throughput), depth 2 for
	// the one- and two-set steps (latency).
	enc := [2][8]*circuit{sboxCircuits(false, 0), sboxCircuits(false, 2)}
	dec := [2][8]*circuit{sboxCircuits(true, 0), sboxCircuits(true, 2)}
	genSerpentXTS("serpentXTSEncryptAVX512", false, enc)
	genSerpentXTS("serpentXTSDecryptAVX512", true, dec)
	Generate()
}
