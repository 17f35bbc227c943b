package main

import (
	"fmt"
	"strings"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// xtsParams are the three parameters of the one XTS routine.
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

// Offsets in keySchedule (asm_amd64.go).
const (
	ksEnc    = 0
	ksDec    = 240
	ksTweak  = 480
	ksRounds = 720
)

// General-purpose registers, fixed for the whole routine. R14 and R15 are
// left alone (g and the dynamic-linking GOT register), and so is BP.
var (
	rKS     = reg.RAX // *keySchedule
	rRounds = reg.RBX // 10, 12 or 14
	rLen    = reg.RCX // bytes of full blocks still to process in bulk
	rTweakP = reg.RDX // address of the tweakLo, tweakHi arguments
	rSrc    = reg.RSI
	rDst    = reg.RDI
	rFlags  = reg.R8
	rTail   = reg.R9  // len(src) % 16
	rKey0   = reg.R10 // 16 * the first row of the schedule (14 - rounds)
	rT1     = reg.R11 // temporaries
	rT2     = reg.R12
	rT3     = reg.R13
)

// Vector register plan (register numbers; the width is the variant's).
//
// 32 registers (AVX-512): data 0-3, tweaks 4-7, last-round keys 8-11
// (K14 ^ tweak), 0x87 constant 12, scratch 13, 14, 30, 31, round key
// rows s..14 in 15 (the first row of this key size) and 16-29 (rows 1-14),
// all broadcast once per call. The tweak key's rows 0-14 use 16-30 first.
//
// 16 registers: data 0-3, tweaks 4-7, next tweaks 8-11, constant 12
// (0x87 for VPCLMULQDQ, or the doubling mask for xmm), scratch 13, first
// round key 15; the other round keys are memory operands (xmm) or
// broadcast per round into 14 (ymm, where a memory operand would need
// the key twice in memory). The ymm tweak encryption holds its key in
// all registers but the tweak's.
type xg struct {
	xtsParams
	dec    bool
	keyOff int // ksEnc or ksDec
	nlabel int

	d, t, n    [4]int
	poly, key0 int
	s          [4]int // scratch
	kt         int    // per-round key register, 16-register plans
	krow       [15]int
	lastStep   bool // mainStep: the call's last step, no next tweaks (AVX-512)
	firstStep  bool // mainStep: the call's first step (zmm: tweaks between the rounds)
}

func genXTS() {
	genXTSData()
	for _, p := range xtsVariants {
		genXTSRoutine(p, false)
		genXTSRoutine(p, true)
	}
}

func (g *xg) label(s string) string {
	g.nlabel++
	return fmt.Sprintf("%s_%d", s, g.nlabel)
}

// v, x: register i at the vector width, or as xmm.
func (g *xg) v(i int) reg.VecPhysical { return vecReg(g.vlen, i) }
func (g *xg) x(i int) reg.VecPhysical { return vecReg(16, i) }

func (g *xg) keyMem(row int) Mem { return Mem{Base: rKS, Disp: g.keyOff + 16*row} }
func (g *xg) key0Mem(off int) Mem {
	return Mem{Base: rKS, Index: rKey0, Scale: 1, Disp: off}
}

// genXTSRoutine emits encrypt<name> or decrypt<name>: one whole XTS data
// unit (or a part of one) per call. Outline:
//
//	load arguments; bulk = len &^ 15, less the last full block if stealing
//	T = *tweak (in every lane); if flags&1: T = AES-Enc(tweak key, T)
//	load round keys and constants
//	if bulk >= 4 vectors: tweak vectors 0-3 (T·x^0 .. T·x^(4L-1)), then
//	    the main loop, 4 vectors a step, next tweaks between the rounds
//	else if bulk >= 1 vector: tweak vector 0
//	one vector at a time, then (ymm, zmm) one block at a time
//	ciphertext stealing if len % 16 != 0
//	if flags&2: *tweak = T·x^(len/16)
func genXTSRoutine(p xtsParams, dec bool) {
	g := &xg{xtsParams: p, dec: dec, keyOff: ksEnc}
	name := "encrypt" + p.name
	if dec {
		name = "decrypt" + p.name
		g.keyOff = ksDec
	}
	g.d = [4]int{0, 1, 2, 3}
	g.t = [4]int{4, 5, 6, 7}
	g.n = [4]int{8, 9, 10, 11}
	g.poly = 12
	if p.avx512 {
		g.s = [4]int{13, 14, 30, 31}
		g.key0 = 15
		g.kt = -1
		for row := 1; row <= 14; row++ {
			g.krow[row] = 15 + row
		}
	} else {
		g.s = [4]int{13, 8, 13, 8} // 8 (n[0]) is free outside the main loop
		g.kt = 14
		g.key0 = 15
	}
	V := p.vlen
	L := V / 16

	TEXT(name, NOSPLIT, unitSignature)
	Pragma("noescape")
	Doc(name+" processes one whole data unit, or a part of one, with",
		"the "+p.impl+" variant. Preconditions, checked by the Go callers:",
		"len(src) >= 16, len(dst) >= len(src), and dst and src the same memory",
		"or not overlapping. It reads exactly len(src) bytes of src, writes",
		"exactly len(src) bytes of dst, and steals ciphertext when len(src) is",
		"not a multiple of 16. With flags&1 the tweak is the IV, encrypted first",
		"with the tweak key; with flags&2 it returns T·x^(len(src)/16),",
		"otherwise an unspecified value.")
	Load(Param("ks"), rKS)
	Load(Param("dst").Base(), rDst)
	Load(Param("src").Base(), rSrc)
	Load(Param("src").Len(), rLen)
	Comment("The tweak arrives by value: tweakLo and tweakHi are adjacent argument slots,")
	Comment("read as one 16-byte tweak in memory (as two 8-byte loads, which the caller's")
	Comment("two 8-byte stores forward to).")
	LEAQ(paramMem("tweakLo"), rTweakP)
	Load(Param("flags"), rFlags)
	MOVQ(Mem{Base: rKS, Disp: ksRounds}, rRounds)

	Comment("First row of the schedule: 14 - rounds.")
	MOVQ(U32(224), rKey0)
	MOVQ(rRounds, rT1)
	SHLQ(U8(4), rT1)
	SUBQ(rT1, rKey0)

	vtail := g.label("vector_tail")
	btail := g.label("block_tail")
	cts := g.label("steal")
	done := g.label("done")
	ret := g.label("ret")
	loop := g.label("loop")

	Comment("Fewer than 16 bytes breaks the contract: do nothing rather than misread.")
	CMPQ(rLen, U8(16))
	JB(LabelRef(ret))

	Comment("Bulk bytes: the full blocks, less the last one when stealing.")
	MOVQ(rLen, rTail)
	ANDQ(U8(15), rTail)
	ANDQ(I8(-16), rLen)
	LEAQ(Mem{Base: rLen, Disp: -16}, rT1)
	TESTQ(rTail, rTail)
	CMOVQNE(rT1, rLen)

	Comment("The tweak, encrypted with the tweak key if flags&1. The encryption is a")
	Comment("serial chain before any data can move: wider variants run it in every lane")
	Comment("(the IV broadcast on load, the tweak key in registers) so that no shuffle")
	Comment("follows it, and the first round's XOR has a fixed address per key size.")
	xt := g.x(g.t[0])
	tweakReady := g.label("tweak_ready")
	if L == 1 {
		g.loadTweak128(xt)
		TESTQ(U32(1), rFlags)
		JZ(LabelRef(tweakReady))
		tk := func(row int) Mem { return Mem{Base: rKS, Disp: ksTweak + 16*row} }
		g.fullRounds(func(row int) { g.xor(tk(row), xt, xt) },
			func(row int) { g.aes(false, row == 14, tk(row), xt) })
	} else {
		tv := g.v(g.t[0])
		VPBROADCASTQ(Mem{Base: rTweakP}, tv)
		VPBROADCASTQ(Mem{Base: rTweakP, Disp: 8}, g.v(g.s[0]))
		VPUNPCKLQDQ(g.v(g.s[0]), tv, tv)
		TESTQ(U32(1), rFlags)
		JZ(LabelRef(tweakReady))
		tk := func(row int) reg.VecPhysical { return g.v(g.tweakKeyReg(row)) }
		for row := 0; row <= 14; row++ {
			g.loadKey(Mem{Base: rKS, Disp: ksTweak + 16*row}, tk(row))
		}
		g.fullRounds(func(row int) { g.xor(tk(row), tv, tv) },
			func(row int) { g.aes(false, row == 14, tk(row), tv) })
	}
	Label(tweakReady)

	Comment("Round keys and constants.")
	g.loadKey(g.key0Mem(g.keyOff), g.v(g.key0))
	if p.avx512 {
		for row := 1; row <= 14; row++ {
			g.loadKey(g.keyMem(row), g.v(g.krow[row]))
		}
	}
	if p.vlen > 16 || p.avx512 {
		g.loadKey(xtsPoly, g.v(g.poly))
	} else {
		g.loadu(xtsDouble, g.x(g.poly))
	}

	if L > 1 {
		Comment("Tweak vectors from T in every lane: lane l of vector j gets T·x^(jL+l),")
		Comment("all four at once (per-lane shift counts, one multiply for the carries).")
		full := g.label("four_vectors")
		CMPQ(rLen, U32(V))
		JB(LabelRef(btail))
		CMPQ(rLen, U32(4*V))
		JAE(LabelRef(full))
		g.laneTweaks(0)
		JMP(LabelRef(vtail))
		Label(full)
		for j := 3; j >= 0; j-- {
			g.laneTweaks(j)
		}
	} else {
		CMPQ(rLen, U32(4*V))
		JB(LabelRef(vtail))
		Comment("Tweaks of blocks 1-3.")
		for j := 1; j < 4; j++ {
			g.double(g.v(g.t[j-1]), g.v(g.t[j]), g.v(g.s[0]))
		}
	}

	advance := func() {
		ADDQ(U32(4*V), rSrc)
		ADDQ(U32(4*V), rDst)
		SUBQ(U32(4*V), rLen)
		CMPQ(rLen, U32(4*V))
	}
	if p.avx512 {
		// The last step of a call that ends on it (no stealing, no tweak
		// to store) computes no next tweaks: fewer instructions between
		// its rounds and the next call's tweak encryption.
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
		if p.vlen == 64 {
			// The first step is on the critical path from the tweak
			// encryption: its next tweaks go between its rounds, not
			// before them (the loop's steps overlap, the first cannot).
			isLast()
			g.firstStep = true
			g.mainStep()
			g.firstStep = false
			advance()
			JB(LabelRef(vtail))
		}
		Label(loop)
		isLast()
		g.mainStep()
		advance()
		JAE(LabelRef(loop))
		JMP(LabelRef(vtail))
		Label(last)
		g.lastStep = true
		g.mainStep()
		g.lastStep = false
		JMP(LabelRef(ret))
	} else {
		Comment("Main loop: 4 vectors per step.")
		g.twoStepLoop(loop, g.mainStep, advance)
	}

	Comment("One vector at a time.")
	Label(vtail)
	next := btail
	if L == 1 {
		next = cts
	}
	CMPQ(rLen, U32(V))
	JB(LabelRef(next))
	g.oneVector(V, Mem{Base: rSrc}, g.d[0], g.t[0])
	g.storeu(g.v(g.d[0]), Mem{Base: rDst})
	if L == 1 {
		g.double(xt, xt, g.x(g.s[0]))
	} else {
		g.mulX(L, g.v(g.t[0]), g.v(g.t[0]), g.v(g.s[0]), g.v(g.s[1]))
	}
	ADDQ(U32(V), rSrc)
	ADDQ(U32(V), rDst)
	SUBQ(U32(V), rLen)
	JMP(LabelRef(vtail))

	if L > 1 {
		Comment("One block at a time.")
		Label(btail)
		CMPQ(rLen, U8(16))
		JB(LabelRef(cts))
		g.oneVector(16, Mem{Base: rSrc}, g.d[0], g.t[0])
		g.storeu(g.x(g.d[0]), Mem{Base: rDst})
		g.double(xt, xt, g.x(g.s[0]))
		ADDQ(U8(16), rSrc)
		ADDQ(U8(16), rDst)
		SUBQ(U8(16), rLen)
		JMP(LabelRef(btail))
	}

	Comment("Ciphertext stealing (IEEE 1619): the last full block and the partial one.")
	Label(cts)
	TESTQ(rTail, rTail)
	JZ(LabelRef(done))
	tPrev, tLast := g.x(g.t[1]), xt // T_{m-1}, T_m
	g.mov(xt, tPrev)
	g.double(xt, xt, g.x(g.s[0]))
	tA, tB := tPrev, tLast // encryption: T_{m-1} first
	if dec {
		tA, tB = tLast, tPrev
	}
	x0, x1, x2, x3 := g.x(g.d[0]), g.x(g.d[1]), g.x(g.d[2]), g.x(g.d[3])
	g.oneVector(16, Mem{Base: rSrc}, g.d[0], g.regOf(tA))
	if p.avx512 {
		Comment("Byte mask of the partial block: masked loads and stores touch nothing else.")
		MOVQ(I32(-1), rT1)
		BZHIQ(rTail, rT1, rT1)
		KMOVQ(rT1, reg.K1)
		g.mov(x0, x1)
		VMOVDQU8(Mem{Base: rSrc, Disp: 16}, reg.K1, x1) // partial block || tail of x0
		VMOVDQU8(x0, reg.K1, Mem{Base: rDst, Disp: 16}) // after the load: in place is safe
		g.oneVector(16, Mem{}, g.d[1], g.regOf(tB))
		g.storeu(x1, Mem{Base: rDst})
	} else {
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
		g.oneVector(16, Mem{}, g.d[1], g.regOf(tB))
		g.storeu(x0, Mem{Base: rDst, Index: rTail, Scale: 1})
		g.storeu(x1, Mem{Base: rDst})
	}

	Label(done)
	TESTQ(U32(2), rFlags)
	JZ(LabelRef(ret))
	g.storeTweak(xt)
	Label(ret)
	if p.vlen > 16 {
		VZEROUPPER()
	}
	RET()
}

// twoStepLoop emits the 16-register main loop at label loop: step,
// advance, then step again with the roles of the current and next tweak
// registers swapped, so that no moves are needed between steps. advance
// moves the pointers and sets the flags: JB leaves after the first step
// (the next tweaks are then moved into place), JAE loops after the second.
func (g *xg) twoStepLoop(loop string, step, advance func()) {
	Label(loop)
	step()
	advance()
	half, after := g.label("loop_half"), g.label("loop_end")
	JB(LabelRef(half))
	g.t, g.n = g.n, g.t
	step()
	g.t, g.n = g.n, g.t
	advance()
	JAE(LabelRef(loop))
	JMP(LabelRef(after))
	Label(half)
	for j := 0; j < 4; j++ {
		g.mov(g.v(g.n[j]), g.v(g.t[j]))
	}
	Label(after)
}

// mainStep emits one step of the main loop: 4 vectors through all rounds,
// the next 4 tweak vectors computed between the rounds.
func (g *xg) mainStep() {
	// Where the tweak computation goes, measured on Zen 4: with zmm all of
	// it before the rounds (but over rows 5-13 in a call's first step,
	// which no earlier step overlaps), with ymm spread over rows 5-7 (the
	// first rounds every key size runs), with xmm over rows 5-13.
	fill := g.nextTweaks()
	if g.lastStep {
		fill = fill[:4] // the last-round keys only
	}
	at := func(base reg.Register) func(j int) Mem {
		return func(j int) Mem { return Mem{Base: base, Disp: j * g.vlen} }
	}
	g.step(at(rSrc), at(rDst), fill, g.avx512 && g.vlen == 64 && !g.firstStep)
}

// step emits 4 vectors, vector j read from src(j) and written to dst(j),
// through all rounds with their tweaks: the tweak and round key 0 XORed
// in together, K14 ^ tweak as the last round's key. fill is the tweak
// computation for the next step, as single instructions: all of it before
// the rounds if preFill, else spread over rows 5-13 (5-7 for ymm).
func (g *xg) step(src, dst func(j int) Mem, fill []func(), preFill bool) {
	for j := 0; j < 4; j++ {
		m := src(j)
		dj, tj := g.v(g.d[j]), g.v(g.t[j])
		switch {
		case g.avx512:
			g.loadu(m, dj)
			g.xor3(g.v(g.key0), tj, dj)
		case g.vex:
			g.xor(m, tj, dj)
			g.xor(g.v(g.key0), dj, dj)
		default:
			g.loadu(m, dj)
			g.xor3(tj, g.v(g.key0), dj)
		}
	}
	spreadFrom, spreadTo := 5, 13
	if preFill {
		for _, f := range fill {
			f()
		}
		fill = nil
	} else if g.vlen == 32 {
		spreadTo = 7
	}
	g.rounds(func(row int) {
		if row < 14 {
			k := g.roundKey(row)
			for j := 0; j < 4; j++ {
				g.aes(g.dec, false, k, g.v(g.d[j]))
			}
			if row >= spreadFrom && row <= spreadTo {
				n := (len(fill) + spreadTo - row) / (spreadTo + 1 - row)
				for _, f := range fill[:n] {
					f()
				}
				fill = fill[n:]
			}
			return
		}
		if g.avx512 {
			for j := 0; j < 4; j++ {
				g.aes(g.dec, true, g.v(g.n[j]), g.v(g.d[j]))
			}
			return
		}
		k := g.roundKey(14)
		for j := 0; j < 4; j++ {
			g.xor(k, g.v(g.t[j]), g.v(g.t[j]))
			g.aes(g.dec, true, g.v(g.t[j]), g.v(g.d[j]))
		}
	})
	for j := 0; j < 4; j++ {
		g.storeu(g.v(g.d[j]), dst(j))
	}
}

// loadTweak128 loads *tweak as two 8-byte halves: callers usually build
// it with two 8-byte stores, which cannot forward to one 16-byte load (the
// load would wait for the stores to retire, and consecutive calls would no
// longer overlap).
// unitSignature is the Go declaration of every unit routine: the tweak in
// and out by value, as two 64-bit words (see the engine type in the root
// package), so that calls through function values allocate nothing.
const unitSignature = "func(ks *keySchedule, dst, src []byte, tweakLo, tweakHi, flags uint64) (lo, hi uint64)"

// storeTweak returns x, the tweak that follows the last full block, in
// the results lo and hi, as two 8-byte stores (the caller reads them as
// two 8-byte words).
func (g *xg) storeTweak(x reg.VecPhysical) {
	lo, hi := returnMem("lo"), returnMem("hi")
	if !g.vex {
		MOVQ(x, lo)
		MOVHPS(x, hi)
		return
	}
	VMOVQ(x, lo)
	VPEXTRQ(U8(1), x, hi)
}

func (g *xg) loadTweak128(x reg.VecPhysical) {
	if !g.vex {
		MOVQ(Mem{Base: rTweakP}, x)
		MOVHPS(Mem{Base: rTweakP, Disp: 8}, x)
		return
	}
	VMOVQ(Mem{Base: rTweakP}, x)
	VPINSRQ(U8(1), Mem{Base: rTweakP, Disp: 8}, x, x)
}

// tweakKeyReg returns the register that holds tweak-key row during the
// tweak encryption of the ymm and zmm variants: the data-key registers
// (loaded afterwards; renaming removes the wait) or, with 16 registers,
// any but the tweak's own.
func (g *xg) tweakKeyReg(row int) int {
	if g.avx512 {
		return 16 + row // 16-30
	}
	if row < g.t[0] {
		return row
	}
	return row + 1
}

// fullRounds emits a whole AES: first(row) for the initial XOR with the
// first row of this key size, at a fixed row per size (so no address
// waits for the round count), then body(row) for rows first+1..14, body(14)
// being the last round.
func (g *xg) fullRounds(first, body func(row int)) {
	l128, l192, common := g.label("aes128"), g.label("aes192"), g.label("aes_common")
	CMPQ(rRounds, U8(12))
	JB(LabelRef(l128))
	JE(LabelRef(l192))
	first(0)
	for row := 1; row <= 4; row++ {
		body(row)
	}
	JMP(LabelRef(common))
	Label(l192)
	first(2)
	body(3)
	body(4)
	JMP(LabelRef(common))
	Label(l128)
	first(4)
	Label(common)
	for row := 5; row <= 14; row++ {
		body(row)
	}
}

// laneTweaks sets tweak vector j to T·x^(jL+l) in lane l, from t[0]
// holding T in every lane (t[0] itself last): each 64-bit half shifted
// left by its count, the bits shifted out of the low half moved into the
// high half, and those out of the high half folded back with 0x87.
func (g *xg) laneTweaks(j int) {
	b, tj := g.v(g.t[0]), g.v(g.t[j])
	a, d := g.v(g.s[0]), g.v(g.n[j])
	shl, shr := xtsShl, xtsShr
	off := j * g.vlen
	if g.vlen == 32 {
		shl, shr = xtsShl256, xtsShr256
	}
	VPSRLVQ(shr.Offset(off), b, a)
	VPSLLVQ(shl.Offset(off), b, tj)
	g.pslldq(8, a, d)
	g.clmul(0x01, g.v(g.poly), a, a)
	g.xor3(a, d, tj)
}

// regOf returns the number of a physical vector register.
func (g *xg) regOf(r reg.VecPhysical) int { return int(r.PhysicalIndex()) }

// rounds emits the rounds of one key size chosen at run time: rows 1-14
// for AES-256, entering at row 3 for AES-192 and at row 5 for AES-128 (the
// schedule is right-aligned). body(14) is the last round. The compare is
// of the public round count.
func (g *xg) rounds(body func(row int)) {
	l128, l192 := g.label("aes128"), g.label("aes192")
	CMPQ(rRounds, U8(12))
	JB(LabelRef(l128))
	JE(LabelRef(l192))
	body(1)
	body(2)
	Label(l192)
	body(3)
	body(4)
	Label(l128)
	for row := 5; row <= 14; row++ {
		body(row)
	}
}

// roundKey returns round key row at the vector width for the main loop:
// a resident register, or one load (broadcast) into the key register.
func (g *xg) roundKey(row int) Op {
	if g.avx512 {
		return g.v(g.krow[row])
	}
	if g.vlen == 16 {
		return g.keyMem(row)
	}
	g.loadKey(g.keyMem(row), g.v(g.kt))
	return g.v(g.kt)
}

// keyAt returns round key row for one vector of the given width outside
// the main loop: a register, or a memory operand for xmm.
func (g *xg) keyAt(row, width int) Op {
	switch {
	case g.avx512:
		return vecReg(width, g.krow[row])
	case width == 16:
		return g.keyMem(row)
	}
	g.loadKey(g.keyMem(row), vecReg(width, g.kt))
	return vecReg(width, g.kt)
}

// oneVector encrypts or decrypts vector d (of width bytes) with tweak t:
// d = src ^ t (src from memory unless m is empty), the rounds, then the
// last round with K14 ^ t folded into its key.
func (g *xg) oneVector(width int, m Mem, d, t int) {
	dv, tv := vecReg(width, d), vecReg(width, t)
	if m.Base != nil {
		g.loadu(m, dv)
	}
	g.xor3(vecReg(width, g.key0), tv, dv)
	lk := vecReg(width, g.s[2])
	g.rounds(func(row int) {
		k := g.keyAt(row, width)
		if row < 14 {
			g.aes(g.dec, false, k, dv)
			return
		}
		g.xor(k, tv, lk)
		g.aes(g.dec, true, lk, dv)
	})
}

// nextTweaks returns the main loop's tweak computation as single
// instructions, to be spread between its AES rounds. Every lane's tweak
// advances by x^(4L), L blocks per vector: 8 or 16 bits, a whole-byte shift
// of each lane, with the bits shifted out folded back by shifts and
// three-input XORs on AVX-512 (VPCLMULQDQ would take an AES unit's cycle
// each time: slower there, measured on Zen 4).
func (g *xg) nextTweaks() []func() {
	var fs []func()
	L := g.vlen / 16
	b := 4 * L / 8
	switch {
	case g.avx512:
		// Last-round keys first (they need the current tweaks), then the
		// tweaks in place.
		for j := 0; j < 4; j++ {
			k14, tj, lk := g.v(g.krow[14]), g.v(g.t[j]), g.v(g.n[j])
			fs = append(fs, func() { g.xor(k14, tj, lk) })
		}
		for j := 0; j < 4; j++ {
			tj := g.v(g.t[j])
			sa, sb := g.v(g.s[2*(j%2)]), g.v(g.s[2*(j%2)+1])
			fs = append(fs,
				func() { g.psrldq(16-b, tj, sa) },
				func() { g.pslldq(b, tj, tj) })
			fs = append(fs, g.fold(sa, sb, tj)...)
		}
	case L == 2:
		// Into n[j]: t[j] stays for the last round. Without three-input
		// XORs the fold would take nine instructions per vector; one
		// multiply by 0x87 (which borrows an AES unit for a cycle) costs
		// less here, measured on Zen 4.
		for j := 0; j < 4; j++ {
			tj, nj, sa, poly := g.v(g.t[j]), g.v(g.n[j]), g.v(g.s[0]), g.v(g.poly)
			fs = append(fs,
				func() { g.psrldq(16-b, tj, sa) },
				func() { g.pslldq(b, tj, nj) },
				func() { g.clmul(0x00, poly, sa, sa) },
				func() { g.xor(sa, nj, nj) })
		}
	default:
		// xmm: four doublings from the last tweak, each a handful of
		// cheap instructions and no multiply.
		prev := g.v(g.t[3])
		for j := 0; j < 4; j++ {
			src, dst, s, mask := prev, g.v(g.n[j]), g.v(g.s[0]), g.v(g.poly)
			fs = append(fs,
				func() { g.pshufd(0x13, src, s) },
				func() { g.psrad31(s, s) },
				func() { g.and(mask, s, s) },
				func() { g.double64(src, dst) },
				func() { g.xor(s, dst, dst) })
			prev = dst
		}
	}
	return fs
}

// fold returns the instructions for dst ^= c·0x87, the reduction of the
// bits c shifted out of the top of each lane (at most 16 of them, in the
// low quadword of a; its high quadword zero): c ^ c<<1 ^ c<<2 ^ c<<7.
// a and b are clobbered.
func (g *xg) fold(a, b, dst reg.VecPhysical) []func() {
	return []func(){
		func() { g.psllq(1, a, b) },
		func() { g.xor3(a, b, dst) },
		func() { g.psllq(2, a, b) },
		func() { g.psllq(7, a, a) },
		func() { g.xor3(a, b, dst) },
	}
}

// double sets dst = src·x (each lane), with s as scratch: with the sign
// mask trick on xmm variants, with mulX elsewhere.
func (g *xg) double(src, dst, s reg.VecPhysical) {
	if g.vlen == 16 && !g.avx512 {
		g.pshufd(0x13, src, s)
		g.psrad31(s, s)
		g.and(vecReg(int(src.Size()), g.poly), s, s)
		g.double64(src, dst)
		g.xor(s, dst, dst)
		return
	}
	s2 := vecReg(int(src.Size()), g.s[1])
	if s2.Asm() == s.Asm() {
		panic("scratch clash")
	}
	g.mulX(1, src, dst, s, s2)
}

// mulX sets dst = src·x^k in each 128-bit lane (0 < k < 57), with sa and
// sd as scratch: shift each 64-bit half left by k, carry the low half's top
// k bits into the high half, and fold the high half's top k bits back into
// the low half by one carry-less multiply with 0x87.
func (g *xg) mulX(k int, src, dst, sa, sd reg.VecPhysical) {
	poly := vecReg(int(src.Size()), g.poly)
	if k%8 == 0 {
		g.psrldq(16-k/8, src, sa)
		g.pslldq(k/8, src, dst)
		g.clmul(0x00, poly, sa, sa)
		g.xor(sa, dst, dst)
		return
	}
	g.psrlq(64-k, src, sa)
	g.psllq(k, src, dst)
	g.pslldq(8, sa, sd)
	g.clmul(0x01, poly, sa, sa)
	g.xor3(sa, sd, dst)
}

// Read-only data.
var (
	xtsPoly    Mem // 0x87 in the low quadword: the reduction of x^128
	xtsDouble  Mem // doubling mask: dwords 0x87, 0, 1, 0
	xtsShl     Mem // quadword shift counts for laneTweaks, zmm
	xtsShr     Mem
	xtsShl256  Mem // the same for ymm
	xtsShr256  Mem
	xtsCTSShuf Mem // 16 x 0x80, 0..15, 16 x 0x80: PSHUFB masks for stealing
	xtsCTSMask Mem // 16 x 0x00, 16 x 0xff
)

func genXTSData() {
	xtsPoly = GLOBL("xtsPoly", RODATA|NOPTR)
	DATA(0, U64(0x87))
	DATA(8, U64(0))

	xtsDouble = GLOBL("xtsDouble", RODATA|NOPTR)
	DATA(0, U32(0x87))
	DATA(4, U32(0))
	DATA(8, U32(1))
	DATA(12, U32(0))

	// Per-lane shift counts for laneTweaks: vector j, lane l of L lanes
	// gets jL+l (both 64-bit halves), and 64 minus that.
	for _, t := range []struct {
		shl, shr *Mem
		name     string
		lanes    int
	}{{&xtsShl, &xtsShr, "xtsShl512", 4}, {&xtsShl256, &xtsShr256, "xtsShl256", 2}} {
		*t.shl = GLOBL(t.name, RODATA|NOPTR)
		for i := 0; i < 8*t.lanes; i++ {
			DATA(8*i, U64(uint64(i/2)))
		}
		*t.shr = GLOBL(strings.Replace(t.name, "Shl", "Shr", 1), RODATA|NOPTR)
		for i := 0; i < 8*t.lanes; i++ {
			DATA(8*i, U64(uint64(64-i/2)))
		}
	}

	xtsCTSShuf = GLOBL("xtsCTSShuf", RODATA|NOPTR)
	for i := 0; i < 48; i++ {
		b := byte(0x80)
		if i >= 16 && i < 32 {
			b = byte(i - 16)
		}
		DATA(i, U8(b))
	}
	xtsCTSMask = GLOBL("xtsCTSMask", RODATA|NOPTR)
	for i := 0; i < 32; i++ {
		b := byte(0)
		if i >= 16 {
			b = 0xff
		}
		DATA(i, U8(b))
	}
}
