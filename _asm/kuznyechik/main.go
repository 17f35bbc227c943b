// Command kuznyechik generates zkuznyechik_amd64.s, the AVX-512 (VBMI,
// GFNI) Kuznyechik-XTS routines of package xts, and zkuznyechik_amd64.go,
// their Go declarations.
//
// The routines are byte-sliced: 64 blocks (1,024 bytes) are loaded into
// sixteen zmm registers, four blocks per register, and transposed so that
// register i holds byte i of all 64 blocks. Then:
//
//   - S (π, or π^-1 when decrypting) is a byte lookup in a 256-entry table
//     held in four zmm registers: two VPERMI2B (128 entries each, index
//     bits 0-6) merged under the mask of the index's top bit. No memory
//     address depends on the data or the key.
//   - L = R^16 costs no byte moves at all: R shifts the bytes by one
//     position, which is a renaming of the sixteen registers, and adds one
//     new byte ℓ(a), a GF(2^8)-linear combination of the sixteen. ℓ's
//     coefficients are symmetric (c_k = c_(14-k)) and three are 1, so ℓ
//     is five XORs of pairs, eight multiplications by a constant
//     (VGF2P8AFFINEQB with the constant's 8x8 bit matrix, derived and
//     checked by gf2p8.MulMatrix) and six three-way XORs (VPTERNLOGD); a byte of
//     round key material comes in as a broadcast memory operand, and the
//     key schedule (kuznyechik_amd64.go) makes that material such that
//     the sixteen injected bytes give L(x) XOR K.
//
// A group is 512 bytes (32 blocks); an odd last group runs the same code
// with the upper half of the registers zero. The tweaks are made in vector
// registers with VPCLMULQDQ, four blocks per register.
//
// Run it from _asm: `go generate ./...` there.
package main

import . "github.com/mmcloughlin/avo/build"

//go:generate go run . -out ../../zkuznyechik_amd64.s -stubs ../../zkuznyechik_amd64.go -pkg xts

func main() {
	Package("github.com/fastxts/xts")
	ConstraintExpr("!purego")
	checkTables()

	genData()
	genXTS("kuznyechikXTSEncryptAVX512", false)
	genXTS("kuznyechikXTSDecryptAVX512", true)
	Generate()
}
