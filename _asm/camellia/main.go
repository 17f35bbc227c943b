// Command camellia generates zcamellia_amd64.s, the AVX-512 + GFNI
// Camellia-XTS routines of package xts, and zcamellia_amd64.go, their Go
// declarations.
//
// The data is byte-sliced: 64 blocks (1 KiB) are loaded into 16 zmm
// registers (four blocks each), and a 16×16 byte transpose inside every
// 128-bit lane (four rounds of VPUNPCK[LH]BW) leaves byte b of all 64
// blocks in one register. Camellia's F-function then works a register at
// a time: the subkey byte is XORed from a broadcast, every S-box is two
// GFNI instructions (VGF2P8AFFINEQB, then VGF2P8AFFINEINVQB) with matrices
// derived in sbox.go from RFC 3713's SBOX1 and checked on every input, and
// the P-function is a network of VPTERNLOGD. FL/FL⁻¹ are byte-wise
// AND/OR with broadcast subkey bytes; the 32-bit rotation by one is an add
// (<<1) and a GFNI shift (>>7) of the neighbouring byte. No table lookup
// depends on data or key. The XTS tweaks are computed in registers with
// VPCLMULQDQ and parked in dst (the place of their block's output) until
// the output XOR reads them back.
//
// A second routine (block.go) encrypts one block at a time, for the XTS
// engine's tweak and tail blocks, in constant time too.
//
// Run it from _asm: `go generate ./...` there.
package main

import (
	"fmt"
	"os"

	. "github.com/mmcloughlin/avo/build"
)

//go:generate go run . -out ../../zcamellia_amd64.s -stubs ../../zcamellia_amd64.go -pkg xts

func main() {
	g, err := deriveGFNI()
	if err != nil {
		fmt.Fprintln(os.Stderr, "camellia generator:", err)
		os.Exit(1)
	}
	checkTranspose()
	Package("github.com/fastxts/xts")
	ConstraintExpr("!purego")
	genCamelliaData(g)
	genBlockData(g)
	// Decryption is encryption with the reversed schedule (RFC 3713,
	// section 2.3.3): one routine serves both directions.
	genCamelliaXTS("camelliaXTSGFNI", g)
	genCamelliaBlock("camelliaBlockGFNI")
	Generate()
}
