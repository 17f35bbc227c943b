package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// xtsParams describe one variant: its names and the three properties the
// generated code depends on (vector length, AVX-512, VEX encoding).
type xtsParams struct {
	name   string // suffix of the Go names: encrypt<name>, decrypt<name>
	impl   string // the implementation's public name
	vlen   int    // vector length in bytes: 16 (xmm), 32 (ymm), 64 (zmm)
	avx512 bool   // 32 registers, opmasks, VPTERNLOGD, EVEX encodings
	vex    bool   // VEX (or EVEX) encoding; false: legacy SSE
}

// xtsVariants are the five variants: the table in variants_amd64.go names
// the routines generated for each.
var xtsVariants = []xtsParams{
	{"AESNI", "aesni", 16, false, false},
	{"AESNIAVX", "aesni-avx", 16, false, true},
	{"VAESAVX2", "vaes-avx2", 32, false, true},
	{"VAESAVX10_256", "vaes-avx10_256", 32, true, true},
	{"VAESAVX10_512", "vaes-avx10_512", 64, true, true},
}

// Offsets in keySchedule (keyschedule_amd64.go).
const (
	ksEnc    = 0
	ksDec    = 240
	ksTweak  = 480
	ksRounds = 720
)

func genXTS() {
	genXTSData()
	for _, p := range xtsVariants {
		genXTSRoutine(p, false)
		genXTSRoutine(p, true)
	}
}

// unitSignature is the Go declaration of every unit routine: the tweak in
// and out by value, as two 64-bit words (see the engine type in the root
// package), so that calls through function values allocate nothing.
const unitSignature = "func(ks *keySchedule, dst, src []byte, tweakLo, tweakHi, flags uint64) (lo, hi uint64)"

// unitGen generates one unit routine: the shared generator and the labels
// its phases jump between.
type unitGen struct {
	*xg
	vtail, btail, steal, done, ret, loop string
}

// genXTSRoutine emits encrypt<name> or decrypt<name>: one whole XTS data
// unit (or a part of one) per call. Outline:
//
//	arguments: bulk = len &^ 15, less the last full block if stealing
//	tweak: T = tweak (in every lane); if flags&1: T = AES-Enc(tweak key, T)
//	round keys and constants
//	first tweaks: if bulk >= 4 vectors, tweak vectors 0-3 (T·x^0 ..
//	    T·x^(4L-1)), else if bulk >= 1 vector, tweak vector 0
//	main loop: 4 vectors a step, next tweaks between the rounds
//	vector tail: one vector at a time
//	block tail (ymm, zmm): one block at a time
//	stealing: if len % 16 != 0
//	finish: if flags&2, return T·x^(len/16)
func genXTSRoutine(p xtsParams, dec bool) {
	name := "encrypt" + p.name
	if dec {
		name = "decrypt" + p.name
	}
	g := &unitGen{xg: newXG(p, dec, false)}
	g.arguments(name)
	g.unitTweak()
	Comment("Round keys and constants.")
	g.loadRoundKeys()
	g.firstTweaks()
	g.mainLoop()
	g.vectorTail()
	g.blockTail()
	g.stealing()
	g.finish()
}

// arguments loads the arguments and the key base, returns at once on a
// length under 16, and sets rLen to the bulk bytes and rTail to len % 16.
func (g *unitGen) arguments(name string) {
	g.begin(name, unitSignature, rLen,
		name+" processes one whole data unit, or a part of one, with",
		"the "+g.impl+" variant. Preconditions, checked by the Go callers:",
		"len(src) >= 16, len(dst) >= len(src), and dst and src the same memory",
		"or not overlapping. It reads exactly len(src) bytes of src, writes",
		"exactly len(src) bytes of dst, and steals ciphertext when len(src) is",
		"not a multiple of 16. With flags&1 the tweak is the IV, encrypted first",
		"with the tweak key; with flags&2 it returns T·x^(len(src)/16),",
		"otherwise an unspecified value.")
	Comment("The tweak arrives by value: tweakLo and tweakHi are adjacent argument slots,")
	Comment("read as one 16-byte tweak in memory (as two 8-byte loads, which the caller's")
	Comment("two 8-byte stores forward to).")
	LEAQ(paramMem("tweakLo"), rTweakP)
	Load(Param("flags"), rFlags)
	MOVQ(Mem{Base: rKS, Disp: ksRounds}, rRounds)
	g.keyBase(rT1)

	g.vtail = g.label("vector_tail")
	g.btail = g.label("block_tail")
	g.steal = g.label("steal")
	g.done = g.label("done")
	g.ret = g.label("ret")
	g.loop = g.label("loop")

	Comment("Fewer than 16 bytes breaks the contract: do nothing rather than misread.")
	CMPQ(rLen, U8(16))
	JB(LabelRef(g.ret))

	Comment("Bulk bytes: the full blocks, less the last one when stealing.")
	MOVQ(rLen, rTail)
	ANDQ(U8(15), rTail)
	ANDQ(I8(-16), rLen)
	LEAQ(Mem{Base: rLen, Disp: -16}, rT1)
	TESTQ(rTail, rTail)
	CMOVQNE(rT1, rLen)
}

// unitTweak sets T in tweak[0], in every lane: the argument, encrypted
// with the tweak key if flags&1.
func (g *unitGen) unitTweak() {
	Comment("The tweak, encrypted with the tweak key if flags&1. The encryption is a")
	Comment("serial chain before any data can move: wider variants run it in every lane")
	Comment("(the IV broadcast on load, the tweak key in registers) so that no shuffle")
	Comment("follows it, and the first round's XOR has a fixed address per key size.")
	ready := g.label("tweak_ready")
	tv := g.v(g.tweak[0])
	if g.vlen == 16 {
		g.loadTweak128(tv)
	} else {
		VPBROADCASTQ(Mem{Base: rTweakP}, tv)
		VPBROADCASTQ(Mem{Base: rTweakP, Disp: 8}, g.v(g.scratch[0]))
		VPUNPCKLQDQ(g.v(g.scratch[0]), tv, tv)
	}
	TESTQ(U32(1), rFlags)
	JZ(LabelRef(ready))
	g.encryptTweaks(g.tweak[:1], true)
	Label(ready)
}

// loadTweak128 loads the tweak argument as two 8-byte halves: callers
// build it with two 8-byte stores, which cannot forward to one 16-byte
// load (the load would wait for the stores to retire, and consecutive
// calls would no longer overlap).
func (g *unitGen) loadTweak128(x reg.VecPhysical) {
	if !g.vex {
		MOVQ(Mem{Base: rTweakP}, x)
		MOVHPS(Mem{Base: rTweakP, Disp: 8}, x)
		return
	}
	VMOVQ(Mem{Base: rTweakP}, x)
	VPINSRQ(U8(1), Mem{Base: rTweakP, Disp: 8}, x, x)
}

// firstTweaks sets the tweak vectors the main loop starts with, or only
// the first one when the bulk is less than four vectors, and jumps to the
// tail that fits.
func (g *unitGen) firstTweaks() {
	V := g.vlen
	if V == 16 {
		CMPQ(rLen, U32(4*V))
		JB(LabelRef(g.vtail))
		Comment("Tweaks of blocks 1-3.")
		for j := 1; j < 4; j++ {
			g.double(g.v(g.tweak[j-1]), g.v(g.tweak[j]))
		}
		return
	}
	Comment("Tweak vectors from T in every lane: lane l of vector j gets T·x^(jL+l),")
	Comment("all four at once (per-lane shift counts, one multiply for the carries).")
	full := g.label("four_vectors")
	CMPQ(rLen, U32(V))
	JB(LabelRef(g.btail))
	CMPQ(rLen, U32(4*V))
	JAE(LabelRef(full))
	g.laneTweaks(0)
	JMP(LabelRef(g.vtail))
	Label(full)
	for j := 3; j >= 0; j-- {
		g.laneTweaks(j)
	}
}

// laneTweaks sets tweak vector j to T·x^(jL+l) in lane l, from tweak[0]
// holding T in every lane (so tweak[0] itself goes last).
func (g *unitGen) laneTweaks(j int) {
	L := g.vlen / 16
	g.emit(g.mulX(xPow{k: j * L, perLane: true},
		g.v(g.tweak[0]), g.v(g.tweak[j]), g.v(g.scratch[0]), g.v(g.next[j])))
}

// mainLoop emits the main loop, 4 vectors a step, and leaves for the
// vector tail. With AVX-512 the last step of a call that ends on it (no
// stealing, no tweak to return) computes no next tweaks: fewer
// instructions between its rounds and the next call's tweak encryption.
func (g *unitGen) mainLoop() {
	V := g.vlen
	advance := func() { g.advance(4*V, rLen) }
	if !g.avx512 {
		Comment("Main loop: 4 vectors per step.")
		g.twoStepLoop(g.loop, func(cur, next [4]int) { g.mainStep(cur, next, false, false) }, advance)
		return
	}
	last := g.label("last_step")
	Comment("Main loop: 4 vectors per step; a last step without next tweaks.")
	MOVQ(rFlags, rT2)
	ANDQ(U8(2), rT2)
	ORQ(rTail, rT2)
	isLast := func() {
		MOVQ(rLen, rT1)
		SUBQ(U32(4*V), rT1)
		ORQ(rT2, rT1)
		JZ(LabelRef(last))
	}
	if V == 64 {
		// The first step is on the critical path from the tweak
		// encryption: its next tweaks go between its rounds, not
		// before them (the loop's steps overlap, the first cannot).
		isLast()
		g.mainStep(g.tweak, g.next, true, false)
		advance()
		JB(LabelRef(g.vtail))
	}
	Label(g.loop)
	isLast()
	g.mainStep(g.tweak, g.next, false, false)
	advance()
	JAE(LabelRef(g.loop))
	JMP(LabelRef(g.vtail))
	Label(last)
	g.mainStep(g.tweak, g.next, false, true)
	JMP(LabelRef(g.ret))
}

// mainStep emits one step of the main loop with tweaks cur: 4 vectors
// through all rounds, the next 4 tweak vectors (in next, or with AVX-512
// cur advanced in place and next the last-round keys) computed between the
// rounds. first: the call's first step (zmm: tweaks between the rounds);
// last: the call's last step, no next tweaks (AVX-512).
//
// Where the tweak computation goes, measured on Zen 4: with zmm all of it
// before the rounds (but over rows 5-13 in a call's first step, which no
// earlier step overlaps), with ymm spread over rows 5-7 (the first rounds
// every key size runs), with xmm over rows 5-13.
func (g *unitGen) mainStep(cur, next [4]int, first, last bool) {
	fill := g.nextTweaks(cur, next, 4*g.vlen/16)
	if last {
		fill = fill[:4] // the last-round keys only
	}
	at := func(base reg.Register) func(j int) Mem {
		return func(j int) Mem { return Mem{Base: base, Disp: j * g.vlen} }
	}
	s := stepSpec{src: at(rSrc), dst: at(rDst), tweak: cur, fill: fill,
		fillBefore: g.vlen == 64 && !first, fillTo: 13}
	if g.vlen == 32 {
		s.fillTo = 7
	}
	if g.avx512 {
		s.lastKeys = next[:]
	}
	g.step(s)
}

// vectorTail emits the loop over the vectors left after the main loop.
func (g *unitGen) vectorTail() {
	V := g.vlen
	Comment("One vector at a time.")
	Label(g.vtail)
	next := g.btail
	if V == 16 {
		next = g.steal
	}
	CMPQ(rLen, U32(V))
	JB(LabelRef(next))
	g.oneBlock(V, Mem{Base: rSrc}, g.data[0], g.tweak[0])
	g.storeu(g.v(g.data[0]), Mem{Base: rDst})
	tv := g.v(g.tweak[0])
	g.emit(g.mulX(xPow{k: V / 16}, tv, tv, g.v(g.scratch[0]), g.v(g.scratch[1])))
	g.loopOn(U32(V), rLen, g.vtail)
}

// oneBlock runs vector data (width bytes, loaded from m unless m is
// empty) with tweak through the cipher, the tweak folded into the last
// round.
func (g *unitGen) oneBlock(width int, m Mem, data, tweak int) {
	var src func(int) Mem
	if m.Base != nil {
		src = func(int) Mem { return m }
	}
	g.blocks(width, src, []int{data}, []int{tweak}, true)
}

// blockTail emits the loop over the blocks left after the vector tail
// (ymm and zmm variants).
func (g *unitGen) blockTail() {
	if g.vlen == 16 {
		return
	}
	xt := g.x(g.tweak[0])
	Comment("One block at a time.")
	Label(g.btail)
	CMPQ(rLen, U8(16))
	JB(LabelRef(g.steal))
	g.oneBlock(16, Mem{Base: rSrc}, g.data[0], g.tweak[0])
	g.storeu(g.x(g.data[0]), Mem{Base: rDst})
	g.double(xt, xt)
	g.loopOn(U8(16), rLen, g.btail)
}

// stealing emits ciphertext stealing (IEEE 1619) when len % 16 != 0: the
// last full block and the partial one, T_{m-1} then T_m for encryption,
// the other way round for decryption.
func (g *unitGen) stealing() {
	Comment("Ciphertext stealing (IEEE 1619): the last full block and the partial one.")
	Label(g.steal)
	TESTQ(rTail, rTail)
	JZ(LabelRef(g.done))
	xt := g.x(g.tweak[0])
	tPrev, tLast := g.x(g.tweak[1]), xt // T_{m-1}, T_m
	g.mov(xt, tPrev)
	g.double(xt, xt)
	tA, tB := tPrev, tLast // encryption: T_{m-1} first
	if g.dec {
		tA, tB = tLast, tPrev
	}
	x0, x1, x2, x3 := g.x(g.data[0]), g.x(g.data[1]), g.x(g.data[2]), g.x(g.data[3])
	g.oneBlock(16, Mem{Base: rSrc}, g.data[0], g.regOf(tA))
	if g.avx512 {
		Comment("Byte mask of the partial block: masked loads and stores touch nothing else.")
		MOVQ(I32(-1), rT1)
		BZHIQ(rTail, rT1, rT1)
		KMOVQ(rT1, reg.K1)
		g.mov(x0, x1)
		VMOVDQU8(Mem{Base: rSrc, Disp: 16}, reg.K1, x1) // partial block || tail of x0
		VMOVDQU8(x0, reg.K1, Mem{Base: rDst, Disp: 16}) // after the load: in place is safe
		g.oneBlock(16, Mem{}, g.data[1], g.regOf(tB))
		g.storeu(x1, Mem{Base: rDst})
		return
	}
	Comment("The partial block is read as the last 16 bytes of src and moved into place")
	Comment("with a shuffle; its output is written as the last 16 bytes of dst, and the")
	Comment("full block's output then overwrites the overlap.")
	g.loadu(Mem{Base: rSrc, Index: rTail, Scale: 1}, x1)
	LEAQ(xtsCTSShuf, rT1)
	MOVQ(U32(32), rT2)
	SUBQ(rTail, rT2)
	g.loadu(Mem{Base: rT1, Index: rT2, Scale: 1}, x2)
	g.shufb(x2, x1, x1) // partial block in bytes 0..r-1, zeros above
	LEAQ(xtsCTSMask, rT3)
	MOVQ(U32(16), rT2)
	SUBQ(rTail, rT2)
	g.loadu(Mem{Base: rT3, Index: rT2, Scale: 1}, x3) // 0xff in bytes r..15
	g.and(x0, x3, x3)
	g.or(x3, x1, x1)
	g.loadu(Mem{Base: rT1, Index: rTail, Scale: 1}, x2)
	g.shufb(x2, x0, x0) // bytes 0..r-1 of x0 moved to r'..15
	g.oneBlock(16, Mem{}, g.data[1], g.regOf(tB))
	g.storeu(x0, Mem{Base: rDst, Index: rTail, Scale: 1})
	g.storeu(x1, Mem{Base: rDst})
}

// finish returns the next tweak if flags&2, and returns.
func (g *unitGen) finish() {
	Label(g.done)
	TESTQ(U32(2), rFlags)
	JZ(LabelRef(g.ret))
	g.storeTweak(g.x(g.tweak[0]))
	g.returnAt(g.ret)
}

// storeTweak returns x, the tweak that follows the last full block, in
// the results lo and hi, as two 8-byte stores (the caller reads them as
// two 8-byte words).
func (g *unitGen) storeTweak(x reg.VecPhysical) {
	lo, hi := returnMem("lo"), returnMem("hi")
	if !g.vex {
		MOVQ(x, lo)
		MOVHPS(x, hi)
		return
	}
	VMOVQ(x, lo)
	VPEXTRQ(U8(1), x, hi)
}

func (g *xg) label(s string) string {
	g.nlabel++
	return fmt.Sprintf("%s_%d", s, g.nlabel)
}
