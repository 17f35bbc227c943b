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
// The 16-register variants have no register for either: they encrypt each
// batch's IVs at its start and advance one set per step, as the unit
// routine does.
// The part of each sector that is not a whole vector (S mod V: 16, 32 or 48
// bytes with ymm/zmm) runs one block of each of the four sectors at a time.
// A last batch of c < 4 sectors repeats sector c-1 in the missing lanes:
// same input, same IV, same output, written twice (all four lanes load
// before any stores, so in place is safe too).

// General-purpose registers of the sector routines (R14, R15, BP untouched).
var (
	sKS     = reg.RAX // *keySchedule
	sRounds = reg.RBX // 10, 12 or 14
	sLeft   = reg.RCX // bytes of the current sectors still to process
	sSector = reg.RDX // IV counter: the next lane's sector number
	sSrc    = reg.RSI
	sDst    = reg.RDI
	sO1     = reg.R8  // byte offsets of lanes 1-3 from lane 0
	sO2     = reg.R9  // (j * sectorSize; repeats in a short last batch)
	sKey0   = reg.R10 // 16 * the first row of the schedule
	sO3     = reg.R11
	sTotal  = reg.R12 // bytes of src from the current batch on
	sTmp    = reg.R13
)

func genXTSSectors() {
	for _, p := range xtsVariants {
		genSectorsRoutine(p, false)
		genSectorsRoutine(p, true)
	}
}

// paramMem returns the argument slot of a parameter, to re-read it where
// no register is left to hold it.
func paramMem(name string) Mem {
	b, err := Param(name).Resolve()
	if err != nil {
		panic(err)
	}
	return b.Addr
}

// returnMem returns the slot of a result.
func returnMem(name string) Mem {
	b, err := Return(name).Resolve()
	if err != nil {
		panic(err)
	}
	return b.Addr
}

// newSectorsXG sets up the register plan, close to the unit routine's:
// data 0-3, tweaks 4-7, next tweaks 8-11 (the second tweak set with
// AVX-512), constant 12, first round key 15; with AVX-512 round keys 16-29,
// scratch 13 and 14, the next batch's encrypted IVs 30 (and 31); without,
// scratch 13 and the per-round key register 14.
func newSectorsXG(p xtsParams, dec bool) *xg {
	g := &xg{xtsParams: p, dec: dec, keyOff: ksEnc}
	if dec {
		g.keyOff = ksDec
	}
	g.d = [4]int{0, 1, 2, 3}
	g.t = [4]int{4, 5, 6, 7}
	g.n = [4]int{8, 9, 10, 11}
	g.poly = 12
	g.key0 = 15
	if p.avx512 {
		g.s = [4]int{13, 14, 13, 14} // 30, 31: the next batch's encrypted IVs
		g.kt = -1
		for row := 1; row <= 14; row++ {
			g.krow[row] = 15 + row
		}
	} else {
		g.s = [4]int{13, 8, 13, 8} // 8 (n[0]) is free outside the main loop
		g.kt = 14
	}
	return g
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

func genSectorsRoutine(p xtsParams, dec bool) {
	g := newSectorsXG(p, dec)
	name := "encryptSectors" + p.name
	if dec {
		name = "decryptSectors" + p.name
	}
	V := p.vlen
	L := V / 16

	TEXT(name, NOSPLIT, "func(ks *keySchedule, dst, src []byte, sectorSize int, first, step uint64)")
	Pragma("noescape")
	Doc(name+" processes whole data units with the "+p.impl,
		"variant: unit k of src (each sectorSize bytes) with the IV SectorTweak(first + k*step), modulo 2^64,",
		"exactly as one unit call with flags&1 per unit would. Preconditions, checked by",
		"the Go callers: sectorSize a positive multiple of 16, len(src) a multiple of it,",
		"len(dst) >= len(src), dst and src the same memory or not overlapping. It reads",
		"exactly len(src) bytes of src and writes exactly len(src) bytes of dst",
		"(defensively it returns at once on a bad sectorSize and stops before a partial",
		"last unit).")
	ss := paramMem("sectorSize")
	Load(Param("ks"), sKS)
	Load(Param("dst").Base(), sDst)
	Load(Param("src").Base(), sSrc)
	Load(Param("src").Len(), sTotal)
	Load(Param("sectorSize"), sLeft)
	Load(Param("first"), sSector)
	MOVQ(Mem{Base: sKS, Disp: ksRounds}, sRounds)

	ret := g.label("ret")
	batch := g.label("batch")
	Comment("A sector size that is not a positive multiple of 16 breaks the contract:")
	Comment("do nothing rather than misread.")
	CMPQ(sLeft, U8(16))
	JB(LabelRef(ret))
	TESTQ(U32(15), sLeft)
	JNZ(LabelRef(ret))

	Comment("First row of the schedule: 14 - rounds.")
	MOVQ(U32(224), sKey0)
	MOVQ(sRounds, sTmp)
	SHLQ(U8(4), sTmp)
	SUBQ(sTmp, sKey0)

	Comment("Round keys and constants, once per call.")
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

	loop, btail, end := g.label("loop"), g.label("block_tail"), g.label("batch_end")
	if L == 1 {
		btail = end
	}
	advance := func() {
		ADDQ(U32(V), sSrc)
		ADDQ(U32(V), sDst)
		SUBQ(U32(V), sLeft)
		CMPQ(sLeft, U32(V))
	}
	// batchStart opens a batch: sLeft counts the bytes of each sector
	// still to do; a partial last sector ends the call.
	batchStart := func() {
		Comment("Batches of four sectors.")
		Label(batch)
		MOVQ(ss, sLeft)
		Comment("Stop before a partial sector (the caller rules it out).")
		CMPQ(sTotal, sLeft)
		JB(LabelRef(ret))
	}
	if p.avx512 {
		ivs := []int{30, 31}[:4/L]
		Comment("The first batch's tweaks; every later batch's are encrypted one batch ahead.")
		g.nextIVs(ivs)
		g.encryptIVs(ivs)

		partial, ready := g.label("partial_batch"), g.label("batch_ready")
		batchStart()
		MOVQ(sLeft, sTmp)
		SHLQ(U8(2), sTmp)
		CMPQ(sTotal, sTmp)
		JB(LabelRef(partial))
		MOVQ(sLeft, sO1)
		LEAQ(Mem{Base: sLeft, Index: sLeft, Scale: 1}, sO2)
		LEAQ(Mem{Base: sO2, Index: sLeft, Scale: 1}, sO3)
		g.deriveTweaks(ivs)
		Comment("The next batch's IVs and their encryption: the out-of-order core runs this")
		Comment("chain alongside this batch's data rounds, so its latency is hidden.")
		g.nextIVs(ivs)
		g.encryptIVs(ivs)
		JMP(LabelRef(ready))

		Comment("A last batch of fewer than four sectors: repeat the last one in the")
		Comment("missing lanes, and encrypt its IVs here.")
		Label(partial)
		MOVQ(paramMem("step"), sTmp)
		SHLQ(U8(2), sTmp)
		SUBQ(sTmp, sSector)
		g.batchIVs(ivs)
		g.encryptIVs(ivs)
		g.deriveTweaks(ivs)
		Label(ready)

		CMPQ(sLeft, U32(V))
		JB(LabelRef(btail))
		Comment("Main loop: L blocks of each of the four sectors per step, unrolled twice:")
		Comment("the tweak set of one step advances by x^(2L) while the other is in use.")
		Comment("The first step: the other set is still to be used.")
		afterB := g.label("after_second")
		g.sectorStep512(g.t[:], nil)
		advance()
		JB(LabelRef(afterB))
		Label(loop)
		g.sectorStep512(g.n[:], g.t[:])
		advance()
		JB(LabelRef(btail))
		g.sectorStep512(g.t[:], g.n[:])
		advance()
		JAE(LabelRef(loop))
		Label(afterB)
		for j := 0; j < 4; j++ {
			g.mov(g.v(g.n[j]), g.v(g.t[j]))
		}
	} else {
		batchStart()
		g.batchIVs(g.t[:4/L])
		g.batchTweaks()

		CMPQ(sLeft, U32(V))
		JB(LabelRef(btail))

		Comment("Main loop: L blocks of each of the four sectors per step.")
		g.twoStepLoop(loop, g.sectorStep, advance)
	}

	if L > 1 {
		Comment("The rest of each sector, one block of each at a time.")
		Label(btail)
		CMPQ(sLeft, U8(16))
		JB(LabelRef(end))
		g.sectorBlocks()
		ADDQ(U8(16), sSrc)
		ADDQ(U8(16), sDst)
		SUBQ(U8(16), sLeft)
		JMP(LabelRef(btail))
	}

	Comment("Next batch: past lane 3's sector (lane 0's pointers have moved one sector).")
	Label(end)
	ADDQ(sO3, sSrc)
	ADDQ(sO3, sDst)
	SUBQ(ss, sTotal)
	SUBQ(sO3, sTotal)
	JA(LabelRef(batch))

	Label(ret)
	if p.vlen > 16 {
		VZEROUPPER()
	}
	RET()
}

// batchIVs sets the lane offsets and the IVs of the next batch: lane j is
// sector min(j, c-1) of the c whole sectors left (at most 4), its IV the little-
// endian sector number in the low quadword, zero above. The IVs go into
// lane j%L of tweak register j/L. sLeft holds sectorSize on entry;
// sSector ends as the sector number of the batch after.
func (g *xg) batchIVs(ivs []int) {
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
func (g *xg) putIV(ivs []int, j int) {
	L := g.vlen / 16
	scratch := g.x(g.s[0])
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
func (g *xg) nextIVs(ivs []int) {
	for j := 0; j < 4; j++ {
		g.putIV(ivs, j)
		ADDQ(paramMem("step"), sSector)
	}
}

// encryptIVs encrypts the IV registers with the tweak key: one chain for
// all four IVs (one zmm, two ymm, or four interleaved xmm chains).
func (g *xg) encryptIVs(ivs []int) {
	tk := func(row int) Mem { return Mem{Base: sKS, Disp: ksTweak + 16*row} }
	if g.vlen == 16 {
		g.fullRounds(func(row int) {
			for _, r := range ivs {
				g.xor(tk(row), g.x(r), g.x(r))
			}
		}, func(row int) {
			for _, r := range ivs {
				g.aes(false, row == 14, tk(row), g.x(r))
			}
		})
		return
	}
	k := g.v(g.s[0])
	if !g.avx512 {
		k = g.v(g.kt)
	}
	g.fullRounds(func(row int) {
		g.loadKey(tk(row), k)
		for _, r := range ivs {
			g.xor(k, g.v(r), g.v(r))
		}
	}, func(row int) {
		g.loadKey(tk(row), k)
		for _, r := range ivs {
			g.aes(false, row == 14, k, g.v(r))
		}
	})
}

// laneMul sets dst = src·x^c in each lane, c the quadword shift counts at
// offset off of the laneTweaks tables (counts off/8 + lane). Scratch 13, 14.
func (g *xg) laneMul(src, dst reg.VecPhysical, off int) {
	shl, shr := xtsShl, xtsShr
	if g.vlen == 32 {
		shl, shr = xtsShl256, xtsShr256
	}
	a, d := g.v(g.s[0]), g.v(g.s[1])
	if !g.avx512 {
		d = g.v(g.kt)
	}
	VPSRLVQ(shr.Offset(off), src, a)
	VPSLLVQ(shl.Offset(off), src, dst)
	g.pslldq(8, a, d)
	g.clmul(0x01, g.v(g.poly), a, a)
	g.xor3(a, d, dst)
}

// deriveTweaks sets both tweak sets of a batch from its encrypted IVs:
// lane l of t[j] = E(IV_j)·x^l (the first step), of n[j] = E(IV_j)·x^(L+l)
// (the second).
func (g *xg) deriveTweaks(ivs []int) {
	L := g.vlen / 16
	Comment("Both tweak sets of the batch: E(IV_j) in every lane, times x^l and x^(L+l).")
	for j := 0; j < 4; j++ {
		src, tj, nj := g.v(ivs[j/L]), g.v(g.t[j]), g.v(g.n[j])
		if L == 4 {
			VSHUFI64X2(U8(j*0x55), src, src, tj)
		} else {
			VPERMQ(U8([]uint8{0x44, 0xee}[j%2]), src, tj)
		}
		g.laneMul(tj, nj, g.vlen)
		g.laneMul(tj, tj, 0)
	}
}

// batchTweaks encrypts the batch's IVs, in t[0..4/L-1], and spreads them
// in place into the tweak vectors: lane l of t[j] = E(IV_j)·x^l (the
// 16-register variants: no register is left to hold both tweak sets).
func (g *xg) batchTweaks() {
	L := g.vlen / 16
	Comment("The batch's tweaks: one tweak-key chain for all four IVs.")
	g.encryptIVs(g.t[:4/L])
	if L == 1 {
		return
	}
	Comment("Tweak vector j: E(IV_j) in every lane, lane l times x^l.")
	for j := 3; j >= 0; j-- {
		src, dst := g.v(g.t[j/L]), g.v(g.t[j])
		VPERMQ(U8([]uint8{0x44, 0xee}[j%2]), src, dst)
	}
	for j := 0; j < 4; j++ {
		tj, a, d := g.v(g.t[j]), g.v(g.s[0]), g.v(g.n[j])
		VPSRLVQ(xtsShr256, tj, a)
		VPSLLVQ(xtsShl256, tj, tj)
		g.pslldq(8, a, d)
		g.clmul(0x01, g.v(g.poly), a, a)
		g.xor3(a, d, tj)
	}
}

// sectorStep emits one step of the main loop: vector j from sector j of
// the batch, all rounds, each sector's tweaks advanced by x^L between them.
func (g *xg) sectorStep() {
	lane := func(base reg.Register) func(j int) Mem {
		return func(j int) Mem { return laneMem(base, j) }
	}
	g.step(lane(sSrc), lane(sDst), g.sectorNextTweaks(), g.avx512 && g.vlen == 64)
}

// sectorStep512 emits one step of the AVX-512 main loop with tweak set
// cur: vector j from sector j of the batch, all rounds, and the tweak
// XORed after the last round (no register is left for last-round keys).
// Between the rounds, the other set, used by the step before, advances by
// x^(2L) for the step after (unless other is nil: the first step of a
// batch, when the other set is still to be used).
func (g *xg) sectorStep512(cur []int, other []int) {
	for j := 0; j < 4; j++ {
		dj := g.v(g.d[j])
		g.loadu(laneMem(sSrc, j), dj)
		g.xor3(g.v(g.key0), g.v(cur[j]), dj)
	}
	fill := g.advanceTweaks(other)
	from, to := spreadFrom512, spreadTo512
	if g.vlen == 32 {
		from, to = spreadFrom256, spreadTo256
	}
	if from < 0 {
		for _, f := range fill {
			f()
		}
		fill = nil
	}
	g.rounds(func(row int) {
		for j := 0; j < 4; j++ {
			g.aes(g.dec, row == 14, g.v(g.krow[row]), g.v(g.d[j]))
		}
		if row >= from && row <= to {
			n := (len(fill) + to - row) / (to + 1 - row)
			for _, f := range fill[:n] {
				f()
			}
			fill = fill[n:]
		}
	})
	for j := 0; j < 4; j++ {
		dj := g.v(g.d[j])
		g.xor(g.v(cur[j]), dj, dj)
		g.storeu(dj, laneMem(sDst, j))
	}
	for _, f := range fill {
		f()
	}
}

// Where the tweak advance goes in the AVX-512 step: all before the rounds
// (from < 0) or spread after rows from..to.
// Rows 5-13 run for every key size (AES-128 enters at row 5), and spread
// there the advance measured best on Zen 4 with zmm and ymm (AES-256
// decryption, 512- and 4096-byte sectors: +1-3% over all before the rounds).
const spreadFrom512, spreadTo512, spreadFrom256, spreadTo256 = 5, 13, 5, 13

// advanceTweaks returns the instructions that multiply each vector of set
// ts by x^(2L): a whole-byte shift with zmm (the carries folded with shifts
// and three-input XORs: VPCLMULQDQ would take an AES unit's cycle, slower,
// measured on Zen 4), four bits with ymm.
func (g *xg) advanceTweaks(ts []int) []func() {
	L := g.vlen / 16
	var fs []func()
	a, b := g.v(g.s[0]), g.v(g.s[1])
	for _, r := range ts {
		tj := g.v(r)
		if L == 4 {
			fs = append(fs,
				func() { g.psrldq(15, tj, a) },
				func() { g.pslldq(1, tj, tj) })
			fs = append(fs, g.fold(a, b, tj)...)
			continue
		}
		// ymm: four bits, the high half's carries folded by one multiply
		// with 0x87: faster than five shifts and XORs, measured on Zen 4.
		fs = append(fs,
			func() { g.psrlq(64-2*L, tj, a) },
			func() { g.psllq(2*L, tj, tj) },
			func() { g.pslldq(8, a, b) },
			func() { g.clmul(0x01, g.v(g.poly), a, a) },
			func() { g.xor3(a, b, tj) })
	}
	return fs
}

// sectorNextTweaks returns the main step's tweak computation as single
// instructions: each tweak vector times x^L (L = 1, 2 or 4 bits, so bit
// shifts). With AVX-512 the last-round keys K14 ^ t[j] go into n[j] first
// and the tweaks advance in place, the carries folded with shifts and
// three-input XORs; without, n[j] = t[j]·x^L (the last round consumes
// t[j]), by the sign-mask doubling for xmm and one multiply by 0x87 for
// ymm. The ymm fold borrows the per-round key register 14 as scratch: the
// fill goes between one round's AES instructions and the next key load.
func (g *xg) sectorNextTweaks() []func() {
	var fs []func()
	L := g.vlen / 16
	switch {
	case g.avx512:
		for j := 0; j < 4; j++ {
			k14, tj, lk := g.v(g.krow[14]), g.v(g.t[j]), g.v(g.n[j])
			fs = append(fs, func() { g.xor(k14, tj, lk) })
		}
		for j := 0; j < 4; j++ {
			tj := g.v(g.t[j])
			a, b := g.v(g.s[2*(j%2)]), g.v(g.s[2*(j%2)+1])
			fs = append(fs,
				func() { g.psrlq(64-L, tj, a) }, // the top L bits of each half
				func() { g.psllq(L, tj, tj) },
				func() { g.pslldq(8, a, b) }, // low half's carry into the high half
				func() { g.clmul(0x01, g.v(g.poly), a, a) },
				func() { g.xor3(a, b, tj) })
		}
	case L == 2:
		for j := 0; j < 4; j++ {
			tj, nj, sa, sd, poly := g.v(g.t[j]), g.v(g.n[j]), g.v(g.s[0]), g.v(g.kt), g.v(g.poly)
			fs = append(fs,
				func() { g.psrlq(64-L, tj, sa) },
				func() { g.psllq(L, tj, nj) },
				func() { g.pslldq(8, sa, sd) },
				func() { g.xor(sd, nj, nj) },
				func() { g.clmul(0x01, poly, sa, sa) },
				func() { g.xor(sa, nj, nj) })
		}
	default:
		for j := 0; j < 4; j++ {
			src, dst, s, mask := g.v(g.t[j]), g.v(g.n[j]), g.v(g.s[0]), g.v(g.poly)
			fs = append(fs,
				func() { g.pshufd(0x13, src, s) },
				func() { g.psrad31(s, s) },
				func() { g.and(mask, s, s) },
				func() { g.double64(src, dst) },
				func() { g.xor(s, dst, dst) })
		}
	}
	return fs
}

// sectorBlocks emits one block of each of the four sectors (ymm and zmm
// variants, for sector sizes that are not a multiple of the vector): lane 0
// of each tweak vector, which then doubles. The upper lanes are no longer
// needed for this batch.
func (g *xg) sectorBlocks() {
	for j := 0; j < 4; j++ {
		dj := g.x(g.d[j])
		g.loadu(laneMem(sSrc, j), dj)
		g.xor3(g.x(g.key0), g.x(g.t[j]), dj)
	}
	g.rounds(func(row int) {
		k := g.keyAt(row, 16)
		for j := 0; j < 4; j++ {
			g.aes(g.dec, row == 14, k, g.x(g.d[j]))
		}
	})
	for j := 0; j < 4; j++ {
		dj, tj := g.x(g.d[j]), g.x(g.t[j])
		g.xor(tj, dj, dj)
		g.storeu(dj, laneMem(sDst, j))
		g.double(tj, tj, g.x(g.s[0]))
	}
}
