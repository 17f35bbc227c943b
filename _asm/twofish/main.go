// Command twofish generates ztwofish_amd64.s, the AVX-512 Twofish-XTS
// routines of package xts, and ztwofish_amd64.go, their Go declarations.
//
// Two groups of 32 blocks (1,024 bytes) per loop iteration, their rounds
// interleaved (one group's round is a chain of dependent permutes; the
// core runs the other group's beside it), then an odd group alone. The
// state is word-sliced: after a 4x4 dword transpose inside each 128-bit
// lane, one zmm holds word w of 16 blocks, two zmm per word. The g
// function works byte-sliced: two byte permutes (VPERMI2B, then
// VSHUFI64X2) gather byte j of R0 of all 32 blocks and byte j of R1<<<8
// into one zmm, whose 64 bytes then go through the key-dependent S-box
// s_j (256 bytes, computed at key setup): one VPERMI2B over entries 0-127
// and one over 128-255 (a 128-byte table each, the low 7 index bits), then
// a select by the index's top bit, which a GFNI affine map spreads over
// the byte. Half of each table is in a zmm register for the whole call,
// the other half VPERMI2B's memory operand, read whole at a fixed
// address: no memory address depends on data. The MDS matrix is applied
// in the byte-sliced form with GFNI affine maps (multiplication by 0xEF
// and 0x5B modulo x^8+x^6+x^5+x^3+1 is GF(2)-linear; gf2p8.MulMatrix derives
// the matrices and checks them on every byte), then the bytes go back into
// words for the PHT.
//
// Run it from _asm: `go generate ./...` there.
package main

import . "github.com/mmcloughlin/avo/build"

//go:generate go run . -out ../../ztwofish_amd64.s -stubs ../../ztwofish_amd64.go -pkg xts

func main() {
	Package("github.com/fastxts/xts")
	ConstraintExpr("!purego")
	genTwofishData()
	genTwofishXTS("twofishXTSEncryptAVX512", false)
	genTwofishXTS("twofishXTSDecryptAVX512", true)
	Generate()
}
