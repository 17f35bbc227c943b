package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The sector-batch routines, encryptSectors<name> and decryptSectors<name>:
// many whole data units per call, sector k with the IV
// SectorTweak(first + k*step).
//
// Design: four sectors at a time, side by side ("multi-buffer"). Vector j
// of the main loop holds L consecutive blocks of sector j of the batch, so
// one step moves L blocks of each of four sectors, and each sector's tweak
// vector advances by x^L per step. Compared with one sector after another:
//   - the four IVs of a batch are encrypted together, one tweak-key chain
//     for four sectors (one zmm, two ymm, or four independent xmm chains
//     that AES-NI pipelines), and nothing of it waits on the data: the
//     out-of-order core runs it under the previous batch's last rounds;
//   - a sector of S bytes is S/V steps of the full four-vector loop, with
//     no per-sector drain or start-up;
//   - the round keys are broadcast once per call.
// With AVX-512 (32 registers) the batch after the current one has its IVs
// built and encrypted at the start of the current batch, into 30 (and 31
// for ymm), so the chain's latency hides under this batch's data rounds;
// and two tweak sets alternate between the steps of the main loop, each
// advanced by x^(2L) while the other is in use (a whole-byte shift for zmm).
// With sectors of an even number of vectors (512 and 4096 bytes: the
// usual ones), the next batch's first tweak set is also derived ahead,
// between the rounds of this batch's last step (evenBatches).
// The 16-register variants have no register for either: they encrypt each
// batch's IVs at its start and advance one set per step, as the unit
// routine does.
// The part of each sector that is not a whole vector (S mod V: 16, 32 or 48
// bytes with ymm/zmm) runs one block of each of the four sectors at a time.
// A last batch of c < 4 sectors repeats sector c-1 in the missing lanes:
// same input, same IV, same output, written twice (all four lanes load
// before any stores, so in place is safe too).

func genXTSSectors() {
	for _, p := range xtsVariants {
		genSectorsRoutine(p, false)
		genSectorsRoutine(p, true)
	}
}

// sectorGen generates one sector routine: the shared generator and the
// labels its phases jump between.
type sectorGen struct {
	*xg
	ret, batch, loop, btail, end string
}

// genSectorsRoutine emits encryptSectors<name> or decryptSectors<name>.
// Outline:
//
//	arguments: return at once on a bad sector size
//	round keys and constants, once per call
//	main loop, per batch of four sectors: the batch's tweaks, then L
//	    blocks of each sector a step (AVX-512: the next batch's tweaks
//	    encrypted under this batch's rounds, two tweak sets)
//	block tail (ymm, zmm): one block of each sector at a time
//	next batch
func genSectorsRoutine(p xtsParams, dec bool) {
	name := "encryptSectors" + p.name
	if dec {
		name = "decryptSectors" + p.name
	}
	g := &sectorGen{xg: newXG(p, dec, true)}
	g.arguments(name)
	Comment("Round keys and constants, once per call.")
	g.loadRoundKeys()
	g.loop, g.btail, g.end = g.label("loop"), g.label("block_tail"), g.label("batch_end")
	if p.vlen == 16 {
		g.btail = g.end
	}
	if p.avx512 {
		g.mainLoop512()
	} else {
		g.mainLoop16()
	}
	g.blockTail()
	g.nextBatch()
	g.returnAt(g.ret)
}

// arguments loads the arguments and the key base, and returns at once on
// a sector size that is not a positive multiple of 16.
func (g *sectorGen) arguments(name string) {
	g.begin(name, "func(ks *keySchedule, dst, src []byte, sectorSize int, first, step uint64)", sTotal,
		name+" processes whole data units with the "+g.impl,
		"variant: unit k of src (each sectorSize bytes) with the IV SectorTweak(first + k*step), modulo 2^64,",
		"exactly as one unit call with flags&1 per unit would. Preconditions, checked by",
		"the Go callers: sectorSize a positive multiple of 16, len(src) a multiple of it,",
		"len(dst) >= len(src), dst and src the same memory or not overlapping. It reads",
		"exactly len(src) bytes of src and writes exactly len(src) bytes of dst",
		"(defensively it returns at once on a bad sectorSize and stops before a partial",
		"last unit).")
	Load(Param("sectorSize"), sLeft)
	Load(Param("first"), sSector)
	MOVQ(Mem{Base: rKS, Disp: ksRounds}, rRounds)

	g.ret = g.label("ret")
	g.batch = g.label("batch")
	Comment("A sector size that is not a positive multiple of 16 breaks the contract:")
	Comment("do nothing rather than misread.")
	CMPQ(sLeft, U8(16))
	JB(LabelRef(g.ret))
	TESTQ(U32(15), sLeft)
	JNZ(LabelRef(g.ret))
	g.keyBase(sTmp)
}

// advance moves on by one step of the main loop.
func (g *sectorGen) advance() { g.xg.advance(g.vlen, sLeft) }

// batchStart opens a batch: sLeft counts the bytes of each sector still
// to do; a partial last sector ends the call.
func (g *sectorGen) batchStart() {
	Comment("Batches of four sectors.")
	Label(g.batch)
	MOVQ(paramMem("sectorSize"), sLeft)
	Comment("Stop before a partial sector (the caller rules it out).")
	CMPQ(sTotal, sLeft)
	JB(LabelRef(g.ret))
}

// mainLoop16 emits the batches of the 16-register variants: each batch's
// IVs encrypted at its start, one tweak set advanced per step.
func (g *sectorGen) mainLoop16() {
	g.batchStart()
	g.batchIVs(g.tweak[:4/(g.vlen/16)])
	g.batchTweaks()

	CMPQ(sLeft, U32(g.vlen))
	JB(LabelRef(g.btail))

	Comment("Main loop: L blocks of each of the four sectors per step.")
	g.twoStepLoop(g.loop, g.sectorStep, g.advance)
}

// mainLoop512 emits the batches of the AVX-512 variants: the next batch's
// IVs encrypted at the start of this one, two tweak sets alternating; for
// sectors of an even number of vectors, evenBatches instead.
func (g *sectorGen) mainLoop512() {
	ivs := []int{30, 31}[:4/(g.vlen/16)]
	Comment("The first batch's tweaks; every later batch's are encrypted one batch ahead.")
	g.nextIVs(ivs)
	g.encryptTweaks(ivs, false)
	even := g.label("even_batch")
	firstDone := g.label("first_derived")
	Comment("Sectors of an even number of vectors (512, 4096): batches derive the next")
	Comment("batch's first tweak set during their last step (evenBatches); the first")
	Comment("batch's is derived here.")
	g.testEven()
	JNZ(LabelRef(firstDone))
	g.emit(g.deriveFirst(ivs))
	Label(firstDone)

	partial, ready := g.label("partial_batch"), g.label("batch_ready")
	g.batchStart()
	MOVQ(sLeft, sTmp)
	SHLQ(U8(2), sTmp)
	CMPQ(sTotal, sTmp)
	JB(LabelRef(partial))
	MOVQ(sLeft, sO1)
	LEAQ(Mem{Base: sLeft, Index: sLeft, Scale: 1}, sO2)
	LEAQ(Mem{Base: sO2, Index: sLeft, Scale: 1}, sO3)
	g.testEven()
	JZ(LabelRef(even))
	g.deriveTweaks(ivs)
	Comment("The next batch's IVs and their encryption: the out-of-order core runs this")
	Comment("chain alongside this batch's data rounds, so its latency is hidden.")
	g.nextIVs(ivs)
	g.encryptTweaks(ivs, false)
	JMP(LabelRef(ready))

	Comment("A last batch of fewer than four sectors: repeat the last one in the")
	Comment("missing lanes, and encrypt its IVs here.")
	Label(partial)
	MOVQ(paramMem("step"), sTmp)
	SHLQ(U8(2), sTmp)
	SUBQ(sTmp, sSector)
	g.batchIVs(ivs)
	g.encryptTweaks(ivs, false)
	g.deriveTweaks(ivs)
	Label(ready)

	CMPQ(sLeft, U32(g.vlen))
	JB(LabelRef(g.btail))
	Comment("Main loop: L blocks of each of the four sectors per step, unrolled twice:")
	Comment("the tweak set of one step advances by x^(2L) while the other is in use.")
	Comment("The first step: the other set is still to be used.")
	afterB := g.label("after_second")
	g.sectorStep512(g.tweak, nil)
	g.advance()
	JB(LabelRef(afterB))
	Label(g.loop)
	g.sectorStep512(g.next, g.tweak[:])
	g.advance()
	JB(LabelRef(g.btail))
	g.sectorStep512(g.tweak, g.next[:])
	g.advance()
	JAE(LabelRef(g.loop))
	Label(afterB)
	for j := 0; j < 4; j++ {
		g.mov(g.v(g.next[j]), g.v(g.tweak[j]))
	}
	JMP(LabelRef(g.btail))
	g.evenBatches(ivs, even)
}

// testEven sets ZF when sLeft, the sector size, is an even number of
// vectors (evenBatches' case).
func (g *sectorGen) testEven() { TESTQ(U32(2*g.vlen-1), sLeft) }

// evenBatches emits the full batches of sectors whose size is an even
// number of vectors (2k·V: 512 and 4096 bytes), entered at even with the
// batch's first tweak set already in tweak. The next batch's IVs are
// encrypted at the start, as in the general loop; its first tweak set is
// derived between the rounds of this batch's last step, which uses the
// second set (the step count is even), so the next batch's first step
// finds it ready instead of waiting behind this batch for its
// derivation. The batch's second set is derived between the rounds of
// its first step. Steps: first (tweak; next = tweak·x^L), then pairs
// (next; tweak·x^2L) (tweak; next·x^2L), then the last (next; the next
// batch's tweak from its encrypted IVs).
//
// With zmm the next batch's IV encryption, too, leaves the batch start
// but for its key-size-dependent head: its rows 5-14 go between the first
// step's rounds.
//
// Timing-only variants of the general loop on a Zen 5, 512-byte sectors:
// without the batch's derivation +7 %, without it and the next batch's
// IV encryption +12 % (interleaved runs of five). Measured after each
// change: +7.5 % and +3 % at 512-byte sectors, AES-256 decryption.
func (g *sectorGen) evenBatches(ivs []int, even string) {
	L := g.vlen / 16
	Label(even)
	Comment("The next batch's IVs and their encryption, under this batch's rounds.")
	g.nextIVs(ivs)
	var ivTail []func()
	if L == 4 {
		// zmm: one IV register, and 31 free to hold the tweak key's rows:
		// the rows every key size runs go between the first step's
		// rounds, after its derivation of the second set.
		g.encryptIVsHead(ivs[0])
		ivTail = g.encryptIVsTail(ivs[0], 31)
	} else {
		g.encryptTweaks(ivs, false)
	}
	a, b := g.v(g.scratch[0]), g.v(g.scratch[1])
	var second []func()
	for j := 0; j < 4; j++ {
		second = append(second, g.mulX(xPow{k: L}, g.v(g.tweak[j]), g.v(g.next[j]), a, b)...)
	}
	g.step512(g.tweak, append(second, ivTail...))
	g.advance()
	last, loop := g.label("even_last"), g.label("even_loop")
	JBE(LabelRef(last))
	Label(loop)
	g.sectorStep512(g.next, g.tweak[:])
	g.advance()
	g.sectorStep512(g.tweak, g.next[:])
	g.advance()
	JA(LabelRef(loop))
	Label(last)
	g.step512(g.next, g.deriveFirst(ivs))
	ADDQ(U32(g.vlen), rSrc)
	ADDQ(U32(g.vlen), rDst)
	JMP(LabelRef(g.end))
}

// encryptIVsHead emits the key-size-dependent start of the IV register
// iv's encryption with the tweak key (zmm): the first XOR and the rows
// before 5, one row at a time through scratch[0].
func (g *sectorGen) encryptIVsHead(iv int) {
	k, r := g.v(g.scratch[0]), g.v(iv)
	g.fullRoundsHead(func(row int) {
		g.loadKey(tweakKeyMem(row), k)
		g.xor(k, r, r)
	}, func(row int) {
		g.loadKey(tweakKeyMem(row), k)
		g.aes(false, false, k, r)
	})
}

// encryptIVsTail returns the rest of that encryption, rows 5-14, as
// single instructions for a step's fill, the rows loaded into register
// key (not a scratch register: the fill's tweak arithmetic uses those).
func (g *sectorGen) encryptIVsTail(iv, key int) []func() {
	k, r := g.v(key), g.v(iv)
	var fs []func()
	for row := 5; row <= 14; row++ {
		m := tweakKeyMem(row)
		last := row == 14
		fs = append(fs, func() { g.loadKey(m, k) }, func() { g.aes(false, last, k, r) })
	}
	return fs
}

// blockTail emits the rest of each sector, one block of each of the four
// at a time (ymm and zmm variants, for sector sizes that are not a
// multiple of the vector): lane 0 of each tweak vector, which then
// doubles. The upper lanes are no longer needed for this batch.
func (g *sectorGen) blockTail() {
	if g.vlen == 16 {
		return
	}
	Comment("The rest of each sector, one block of each at a time.")
	Label(g.btail)
	CMPQ(sLeft, U8(16))
	JB(LabelRef(g.end))
	g.blocks(16, func(j int) Mem { return laneMem(rSrc, j) }, g.data[:], g.tweak[:], false)
	for j := 0; j < 4; j++ {
		dj, tj := g.x(g.data[j]), g.x(g.tweak[j])
		g.xor(tj, dj, dj)
		g.storeu(dj, laneMem(rDst, j))
		g.double(tj, tj)
	}
	g.loopOn(U8(16), sLeft, g.btail)
}

// nextBatch moves past the batch, and loops while sectors are left.
func (g *sectorGen) nextBatch() {
	Comment("Next batch: past lane 3's sector (lane 0's pointers have moved one sector).")
	Label(g.end)
	ADDQ(sO3, rSrc)
	ADDQ(sO3, rDst)
	SUBQ(paramMem("sectorSize"), sTotal)
	SUBQ(sO3, sTotal)
	JA(LabelRef(g.batch))
}

// laneMem is the address of lane j's data at base (sector j of the batch).
func laneMem(base reg.Register, j int) Mem {
	switch j {
	case 0:
		return Mem{Base: base}
	case 1:
		return Mem{Base: base, Index: sO1, Scale: 1}
	case 2:
		return Mem{Base: base, Index: sO2, Scale: 1}
	}
	return Mem{Base: base, Index: sO3, Scale: 1}
}

// batchIVs sets the lane offsets and the IVs of the next batch: lane j is
// sector min(j, c-1) of the c whole sectors left (at most 4), its IV the little-
// endian sector number in the low quadword, zero above. The IVs go into
// lane j%L of tweak register j/L. sLeft holds sectorSize on entry;
// sSector ends as the sector number of the batch after.
func (g *sectorGen) batchIVs(ivs []int) {
	step := paramMem("step")
	g.putIV(ivs, 0)
	Comment("Lane j exists if a whole sector is left at its offset: total - sectorSize >= offset.")
	MOVQ(sTotal, sTmp)
	SUBQ(sLeft, sTmp)
	prev := []reg.Register{nil, sO1, sO2}
	offs := []reg.Register{nil, sO1, sO2, sO3}
	for j := 1; j < 4; j++ {
		o := offs[j]
		skip, next := g.label("lane_repeat"), g.label("lane_ready")
		if j == 1 {
			MOVQ(sLeft, o)
		} else {
			LEAQ(Mem{Base: prev[j-1], Index: sLeft, Scale: 1}, o)
		}
		CMPQ(sTmp, o)
		JB(LabelRef(skip))
		ADDQ(step, sSector)
		JMP(LabelRef(next))
		Label(skip)
		if j == 1 {
			XORQ(o, o)
		} else {
			MOVQ(prev[j-1], o)
		}
		Label(next)
		g.putIV(ivs, j)
	}
	ADDQ(step, sSector)
}

// putIV puts the IV of sector sSector into lane j%L of IV register j/L
// (lane 0 first: it zeroes the rest of the register).
func (g *sectorGen) putIV(ivs []int, j int) {
	L := g.vlen / 16
	scratch := g.x(g.scratch[0])
	dst := g.x(ivs[j/L])
	if j%L != 0 {
		dst = scratch
	}
	if g.vex {
		VMOVQ(sSector, dst)
	} else {
		MOVQ(sSector, dst)
	}
	if j%L == 0 {
		return
	}
	if g.avx512 {
		VINSERTI32X4(U8(j%L), scratch, g.v(ivs[j/L]), g.v(ivs[j/L]))
	} else {
		VINSERTI128(U8(1), scratch, g.v(ivs[j/L]), g.v(ivs[j/L]))
	}
}

// nextIVs puts the IVs of sectors sSector + j*step, j = 0..3, into the IV
// registers and advances sSector by 4*step (a full batch: no repeats).
func (g *sectorGen) nextIVs(ivs []int) {
	for j := 0; j < 4; j++ {
		g.putIV(ivs, j)
		ADDQ(paramMem("step"), sSector)
	}
}

// spreadIV returns the instruction that puts E(IV_j), lane j%L of IV
// register ivs[j/L], into every lane of dst (ymm and zmm).
func (g *sectorGen) spreadIV(ivs []int, j int, dst reg.VecPhysical) func() {
	L := g.vlen / 16
	src := g.v(ivs[j/L])
	if L == 4 {
		imm := U8(j * 0x55)
		return func() { VSHUFI64X2(imm, src, src, dst) }
	}
	imm := U8([]uint8{0x44, 0xee}[j%2])
	return func() { VPERMQ(imm, src, dst) }
}

// deriveFirst returns the instructions that set the first tweak set of a
// batch from its encrypted IVs (AVX-512): lane l of tweak[j] = E(IV_j)·x^l,
// as single steps to spread between rounds (see evenBatches).
func (g *sectorGen) deriveFirst(ivs []int) []func() {
	var fs []func()
	for j := 0; j < 4; j++ {
		tj := g.v(g.tweak[j])
		fs = append(fs, g.spreadIV(ivs, j, tj))
		fs = append(fs, g.mulX(xPow{k: 0, perLane: true}, tj, tj, g.v(g.scratch[0]), g.v(g.scratch[1]))...)
	}
	return fs
}

// deriveTweaks sets both tweak sets of a batch from its encrypted IVs
// (AVX-512): lane l of tweak[j] = E(IV_j)·x^l (the first step), of next[j]
// = E(IV_j)·x^(L+l) (the second).
func (g *sectorGen) deriveTweaks(ivs []int) {
	L := g.vlen / 16
	Comment("Both tweak sets of the batch: E(IV_j) in every lane, times x^l and x^(L+l).")
	for j := 0; j < 4; j++ {
		tj, nj := g.v(g.tweak[j]), g.v(g.next[j])
		g.spreadIV(ivs, j, tj)()
		sa, sd := g.v(g.scratch[0]), g.v(g.scratch[1])
		g.emit(g.mulX(xPow{k: L, perLane: true}, tj, nj, sa, sd))
		g.emit(g.mulX(xPow{k: 0, perLane: true}, tj, tj, sa, sd))
	}
}

// batchTweaks encrypts the batch's IVs, in tweak[0..4/L-1], and spreads
// them in place into the tweak vectors: lane l of tweak[j] = E(IV_j)·x^l
// (the 16-register variants: no register is left to hold both tweak sets).
func (g *sectorGen) batchTweaks() {
	L := g.vlen / 16
	Comment("The batch's tweaks: one tweak-key chain for all four IVs.")
	g.encryptTweaks(g.tweak[:4/L], false)
	if L == 1 {
		return
	}
	Comment("Tweak vector j: E(IV_j) in every lane, lane l times x^l.")
	for j := 3; j >= 0; j-- {
		g.spreadIV(g.tweak[:4/L], j, g.v(g.tweak[j]))()
	}
	for j := 0; j < 4; j++ {
		tj := g.v(g.tweak[j])
		g.emit(g.mulX(xPow{k: 0, perLane: true}, tj, tj, g.v(g.scratch[0]), g.v(g.next[j])))
	}
}

// sectorStep emits one step of the 16-register main loop with tweaks cur:
// vector j from sector j of the batch, all rounds, each sector's tweaks
// advanced by x^L into next between them.
func (g *sectorGen) sectorStep(cur, next [4]int) {
	lane := func(base reg.Register) func(j int) Mem {
		return func(j int) Mem { return laneMem(base, j) }
	}
	s := stepSpec{src: lane(rSrc), dst: lane(rDst), tweak: cur,
		fill: g.nextTweaks(cur, next, g.vlen/16), fillTo: 13}
	if g.vlen == 32 {
		s.fillTo = 7
	}
	g.step(s)
}

// sectorStep512 emits one step of the AVX-512 main loop with tweak set
// cur: vector j from sector j of the batch, all rounds, and the tweak
// XORed after the last round (no register is left for last-round keys).
// Between the rounds, the other set, used by the step before, advances by
// x^(2L) for the step after (unless other is nil: the first step of a
// batch, when the other set is still to be used).
//
// Spread over rows 5-13 (the rows every key size runs), the advance
// measured best on Zen 4 with zmm and ymm (AES-256 decryption, 512- and
// 4096-byte sectors: +1-3% over all before the rounds).
func (g *sectorGen) sectorStep512(cur [4]int, other []int) {
	var fill []func()
	a, b := g.v(g.scratch[0]), g.v(g.scratch[1])
	for _, r := range other {
		fill = append(fill, g.mulX(xPow{k: 2 * g.vlen / 16}, g.v(r), g.v(r), a, b)...)
	}
	g.step512(cur, fill)
}

// step512 emits one step of the AVX-512 main loop with tweak set cur and
// fill between its rounds, the tweak XORed after the last round.
func (g *sectorGen) step512(cur [4]int, fill []func()) {
	lane := func(base reg.Register) func(j int) Mem {
		return func(j int) Mem { return laneMem(base, j) }
	}
	g.step(stepSpec{src: lane(rSrc), dst: lane(rDst), tweak: cur,
		fill: fill, fillTo: 13, tweakAfter: true})
}
