package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/reg"
)

// genCPUID emits cpuidex and xgetbv, the two raw probes behind feature
// detection (declared in asm_amd64.go). They take no frame and touch no
// memory besides their arguments, so they are safe to call from package
// initialisation.
func genCPUID() {
	// cpuidex executes CPUID with EAX=leaf and ECX=sub. Every leaf we ask
	// for reads ECX as a sub-leaf or ignores it, so always setting it is
	// harmless and keeps one routine for both kinds.
	Implement("cpuidex")
	Attributes(NOSPLIT)
	Load(Param("leaf"), EAX)
	Load(Param("sub"), ECX)
	CPUID()
	Store(EAX, Return("eax"))
	Store(EBX, Return("ebx"))
	Store(ECX, Return("ecx"))
	Store(EDX, Return("edx"))
	RET()

	// xgetbv executes XGETBV with ECX=index. It faults unless the OS set
	// CR4.OSXSAVE, which CPUID.1:ECX bit 27 reports: the Go caller checks.
	Implement("xgetbv")
	Attributes(NOSPLIT)
	Load(Param("index"), ECX)
	XGETBV()
	Store(EAX, Return("eax"))
	Store(EDX, Return("edx"))
	RET()
}
