// Command _asm generates zasm_amd64.s, every x86-64 assembly routine of
// package xts, from one source. Run it with `go generate` inside _asm.
package main

import . "github.com/mmcloughlin/avo/build"

//go:generate go run . -out ../zasm_amd64.s

func main() {
	Package("github.com/fastxts/xts")
	ConstraintExpr("!purego")
	genCPUID()        // cpuid.go
	genKeyExpansion() // keyexp.go
	genXTS()          // xts.go
	genXTSSectors()   // xts_sectors.go
	Generate()
}
