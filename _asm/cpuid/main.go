// Command cpuid generates internal/cpuid/zcpuid_amd64.s and its Go
// declarations: the two raw probes behind x86 feature detection.
//
// Run it from _asm: `go generate ./...` there.
package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/reg"
)

//go:generate go run . -out ../../internal/cpuid/zcpuid_amd64.s -stubs ../../internal/cpuid/zcpuid_amd64.go -pkg cpuid

func main() {
	Package("github.com/fastxts/xts/internal/cpuid")
	ConstraintExpr("!purego")

	// They take no frame and touch no memory besides their arguments, so
	// they are safe to call from package initialisation.
	TEXT("cpuidex", NOSPLIT, "func(leaf, sub uint32) (eax, ebx, ecx, edx uint32)")
	Pragma("noescape")
	Doc("cpuidex executes CPUID with EAX=leaf and ECX=sub. Every leaf we ask",
		"for reads ECX as a sub-leaf or ignores it, so always setting it is",
		"harmless and keeps one routine for both kinds.")
	Load(Param("leaf"), EAX)
	Load(Param("sub"), ECX)
	CPUID()
	Store(EAX, Return("eax"))
	Store(EBX, Return("ebx"))
	Store(ECX, Return("ecx"))
	Store(EDX, Return("edx"))
	RET()

	TEXT("xgetbv", NOSPLIT, "func(index uint32) (eax, edx uint32)")
	Pragma("noescape")
	Doc("xgetbv executes XGETBV with ECX=index. It faults unless the OS set",
		"CR4.OSXSAVE, which CPUID.1:ECX bit 27 reports: the Go caller checks.")
	Load(Param("index"), ECX)
	XGETBV()
	Store(EAX, Return("eax"))
	Store(EDX, Return("edx"))
	RET()

	Generate()
}
