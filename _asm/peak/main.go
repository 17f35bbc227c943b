// Command peak generates internal/peak/peak_amd64.s: the AES round loops
// that `xts bench` times to find this CPU's AES-round bound, and the CPUID
// and XGETBV probes that decide which loops may run.
//
// Run it from _asm: `go run ./peak -out ../internal/peak/peak_amd64.s`, or
// `go generate ./...` there.
package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

//go:generate go run . -out ../../internal/peak/peak_amd64.s

// accumulators is the number of independent AES rounds per iteration. It
// must cover latency × throughput of the AES units (4 cycles × 2 per cycle
// on current cores) with room to spare, and leave registers for the key.
const accumulators = 12

func main() {
	Package("github.com/fastxts/xts/internal/peak")
	ConstraintExpr("!purego")

	for _, chains := range []int{accumulators, 1} {
		genLoop(loopName("SSE", chains), xmm(), func(k, a VecPhysical) { AESENC(k, a) }, pxor, false, chains)
		genLoop(loopName("VEX128", chains), xmm(), vaesenc, vpxor, false, chains)
		genLoop(loopName("VEX256", chains), ymm(), vaesenc, vpxor, true, chains)
		genLoop(loopName("EVEX512", chains), zmm(), vaesenc, vpxord, true, chains)
	}

	Generate()
}

// Physical registers only: 0..accumulators-1 hold the state and the next
// one the round key. Every number stays below 16 so that the xmm and ymm
// loops encode as SSE or VEX and run on CPUs without AVX-512.
func xmm() []VecPhysical { return []VecPhysical{X0, X1, X2, X3, X4, X5, X6, X7, X8, X9, X10, X11, X12} }
func ymm() []VecPhysical { return []VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12} }
func zmm() []VecPhysical { return []VecPhysical{Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12} }

func vaesenc(k, a VecPhysical) { VAESENC(k, a, a) }
func pxor(r VecPhysical)       { PXOR(r, r) }
func vpxor(r VecPhysical)      { VPXOR(r, r, r) }
func vpxord(r VecPhysical)     { VPXORD(r, r, r) }

// loopName names a loop: rounds<ISA> for the throughput loops (chains =
// accumulators), chain<ISA> for the latency loops (one chain).
func loopName(isa string, chains int) string {
	if chains == 1 {
		return "chain" + isa
	}
	return "rounds" + isa
}

// genLoop emits one function `name(n uint64)` that runs n iterations of
// accumulators AES rounds with the same key, spread round-robin over
// chains registers: with chains = accumulators each round has its own
// register (throughput), with 1 every round waits for the one before
// (latency). The registers start at zero: the values are never secret and
// never read, the point is only that each round depends on the one before
// it in the same register and on nothing else.
func genLoop(name string, regs []VecPhysical, round func(k, a VecPhysical), zero func(VecPhysical), vzeroupper bool, chains int) {
	TEXT(name, NOSPLIT, "func(n uint64)")
	kind := "independent AES rounds"
	if chains == 1 {
		kind = "dependent AES rounds, one chain"
	}
	Doc(name + " runs n iterations of " + kind + "; see peak_amd64.go.")
	key := regs[accumulators]
	for _, r := range regs[:accumulators+1] {
		zero(r)
	}
	n := RCX
	Load(Param("n"), n)
	TESTQ(n, n)
	JZ(LabelRef(name + "_done"))

	Label(name + "_loop")
	for i := range accumulators {
		round(key, regs[i%chains])
	}
	DECQ(n)
	JNZ(LabelRef(name + "_loop"))

	Label(name + "_done")
	if vzeroupper {
		// Leave no dirty upper state behind for SSE code in the runtime.
		VZEROUPPER()
	}
	RET()
}
