// Command _asm generates zasm_amd64.s, every x86-64 assembly routine of
// package xts, and zasm_amd64.go, their Go declarations, from one source.
// Run it with `go generate` inside _asm.
package main

import . "github.com/mmcloughlin/avo/build"

//go:generate go run . -out ../zasm_amd64.s -stubs ../zasm_amd64.go -pkg xts

func main() {
	Package("github.com/fastxts/xts")
	ConstraintExpr("!purego")
	genKeyExpansion() // keyexp.go
	genXTS()          // xts.go
	genXTSSectors()   // xts_sectors.go
	Generate()
}
