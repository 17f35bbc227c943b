// Command serpent generates zserpent_amd64.s, the AVX-512 Serpent-XTS
// routines of package xts, and zserpent_amd64.go, their Go declarations.
//
// Serpent is bitsliced over 16 blocks per set of four zmm registers (a 4x4
// dword transpose inside each 128-bit lane puts word i of 16 blocks in
// register i), two independent sets (32 blocks, 512 bytes) per loop
// iteration. Every S-box is a short circuit of VPTERNLOGD instructions
// found from its truth table by the search in sbox.go; the linear
// transformation uses VPROLD; round keys are broadcast from memory.
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
