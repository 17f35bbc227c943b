package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The phases the unit routines (xts.go) and the sector routines
// (xts_sectors.go) share, in the order a routine runs them: arguments and
// key base, round keys, tweak encryption, the main step, whole blocks, the
// return.

// v, x: register i at the vector width, or as xmm.
func (g *xg) v(i int) reg.VecPhysical { return vecReg(g.vlen, i) }
func (g *xg) x(i int) reg.VecPhysical { return vecReg(16, i) }

// regOf returns the number of a physical vector register.
func (g *xg) regOf(r reg.VecPhysical) int { return int(r.PhysicalIndex()) }

func (g *xg) keyMem(row int) Mem { return Mem{Base: rKS, Disp: g.keyOff + 16*row} }
func (g *xg) key0Mem(off int) Mem {
	return Mem{Base: rKS, Index: rKey0, Scale: 1, Disp: off}
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

// emit emits instructions returned as single steps (see mulX).
func (g *xg) emit(fs []func()) {
	for _, f := range fs {
		f()
	}
}

// begin opens routine name (no frame, declared noescape) and loads the
// arguments every routine has: ks, dst, src, and len(src) into length.
func (g *xg) begin(name, signature string, length reg.Register, doc ...string) {
	TEXT(name, NOSPLIT, signature)
	Pragma("noescape")
	Doc(doc...)
	Load(Param("ks"), rKS)
	Load(Param("dst").Base(), rDst)
	Load(Param("src").Base(), rSrc)
	Load(Param("src").Len(), length)
}

// keyBase sets rKey0 to the offset of the schedule's first row for this
// key size (rRounds loaded), with tmp as scratch.
func (g *xg) keyBase(tmp reg.Register) {
	Comment("First row of the schedule: 14 - rounds.")
	MOVQ(U32(224), rKey0)
	MOVQ(rRounds, tmp)
	SHLQ(U8(4), tmp)
	SUBQ(tmp, rKey0)
}

// loadRoundKeys loads round key 0 of this key size, with AVX-512 rows
// 1-14 as well (resident for the whole call), and the constant for tweak
// multiplication.
func (g *xg) loadRoundKeys() {
	g.loadKey(g.key0Mem(g.keyOff), g.v(g.key0))
	if g.avx512 {
		for row := 1; row <= 14; row++ {
			g.loadKey(g.keyMem(row), g.v(g.keyRow[row]))
		}
	}
	if g.vlen > 16 || g.avx512 {
		g.loadKey(xtsPoly, g.v(g.poly))
	} else {
		g.loadu(xtsDouble, g.x(g.poly))
	}
}

// tweakKeyMem is row row of the tweak key's schedule.
func tweakKeyMem(row int) Mem { return Mem{Base: rKS, Disp: ksTweak + 16*row} }

// encryptTweaks encrypts the tweak registers ivs with the tweak key, one
// chain for all of them (one zmm, two ymm, or up to four interleaved xmm
// chains that AES-NI pipelines). The key: memory operands with xmm; with
// resident (the unit routines) all 15 rows loaded into registers first
// (see tweakKeyReg); else one row at a time into a scratch register.
func (g *xg) encryptTweaks(ivs []int, resident bool) {
	mem := tweakKeyMem
	var key func(row int) Op
	switch {
	case g.vlen == 16:
		key = func(row int) Op { return mem(row) }
	case resident:
		for row := 0; row <= 14; row++ {
			g.loadKey(mem(row), g.v(g.tweakKeyReg(row)))
		}
		key = func(row int) Op { return g.v(g.tweakKeyReg(row)) }
	default:
		k := g.v(g.scratch[0])
		if !g.avx512 {
			k = g.v(g.keyReg)
		}
		key = func(row int) Op {
			g.loadKey(mem(row), k)
			return k
		}
	}
	g.fullRounds(func(row int) {
		k := key(row)
		for _, r := range ivs {
			g.xor(k, g.v(r), g.v(r))
		}
	}, func(row int) {
		k := key(row)
		for _, r := range ivs {
			g.aes(false, row == 14, k, g.v(r))
		}
	})
}

// tweakKeyReg returns the register that holds tweak-key row during the
// unit routine's tweak encryption (ymm and zmm): the data-key registers
// (loaded afterwards; renaming removes the wait) or, with 16 registers,
// any but the tweak's own.
func (g *xg) tweakKeyReg(row int) int {
	if g.avx512 {
		return 16 + row // 16-30
	}
	if row < g.tweak[0] {
		return row
	}
	return row + 1
}

// fullRounds emits a whole AES: first(row) for the initial XOR with the
// first row of this key size, at a fixed row per size (so no address
// waits for the round count), then body(row) for rows first+1..14, body(14)
// being the last round.
func (g *xg) fullRounds(first, body func(row int)) {
	g.fullRoundsHead(first, body)
	for row := 5; row <= 14; row++ {
		body(row)
	}
}

// fullRoundsHead emits the part of fullRounds that depends on the key
// size: the initial XOR and the rows before 5, which every key size runs
// from there on.
func (g *xg) fullRoundsHead(first, body func(row int)) {
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
}

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
		return g.v(g.keyRow[row])
	}
	if g.vlen == 16 {
		return g.keyMem(row)
	}
	g.loadKey(g.keyMem(row), g.v(g.keyReg))
	return g.v(g.keyReg)
}

// keyAt returns round key row for one vector of the given width outside
// the main loop: a register, or a memory operand for xmm.
func (g *xg) keyAt(row, width int) Op {
	switch {
	case g.avx512:
		return vecReg(width, g.keyRow[row])
	case width == 16:
		return g.keyMem(row)
	}
	g.loadKey(g.keyMem(row), vecReg(width, g.keyReg))
	return vecReg(width, g.keyReg)
}

// stepSpec is one step of a main loop: vector j read from src(j), written
// to dst(j), with the tweak in register tweak[j].
type stepSpec struct {
	src, dst func(j int) Mem
	tweak    [4]int
	// fill is the tweak computation for the next step, as single
	// instructions: all of it before the rounds if fillBefore, else
	// spread after rows 5 (the first that every key size runs) to fillTo.
	fill       []func()
	fillBefore bool
	fillTo     int
	// The last round: with lastKeys, its key for vector j is register
	// lastKeys[j] (K14 ^ tweak, computed in fill); with tweakAfter, it is
	// K14 and the tweak is XORed in afterwards; else K14 ^ tweak is formed
	// in the tweak register itself (which the step then no longer needs).
	lastKeys   []int
	tweakAfter bool
}

// step emits 4 vectors through all rounds with their tweaks: the tweak
// and round key 0 XORed in together, the tweak folded into the last round
// (AESENCLAST(k, s) ^ t = AESENCLAST(k ^ t, s)) or XORed after it.
func (g *xg) step(s stepSpec) {
	for j := 0; j < 4; j++ {
		m := s.src(j)
		dj, tj := g.v(g.data[j]), g.v(s.tweak[j])
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
	const fillFrom = 5
	fill := s.fill
	if s.fillBefore {
		g.emit(fill)
		fill = nil
	}
	g.rounds(func(row int) {
		switch {
		case row < 14:
			k := g.roundKey(row)
			for j := 0; j < 4; j++ {
				g.aes(g.dec, false, k, g.v(g.data[j]))
			}
			if row >= fillFrom && row <= s.fillTo {
				n := (len(fill) + s.fillTo - row) / (s.fillTo + 1 - row)
				g.emit(fill[:n])
				fill = fill[n:]
			}
		case s.lastKeys != nil:
			for j := 0; j < 4; j++ {
				g.aes(g.dec, true, g.v(s.lastKeys[j]), g.v(g.data[j]))
			}
		case s.tweakAfter:
			k := g.roundKey(14)
			for j := 0; j < 4; j++ {
				g.aes(g.dec, true, k, g.v(g.data[j]))
			}
		default:
			k := g.roundKey(14)
			for j := 0; j < 4; j++ {
				tj := g.v(s.tweak[j])
				g.xor(k, tj, tj)
				g.aes(g.dec, true, tj, g.v(g.data[j]))
			}
		}
	})
	g.emit(fill)
	for j := 0; j < 4; j++ {
		dj := g.v(g.data[j])
		if s.tweakAfter {
			g.xor(g.v(s.tweak[j]), dj, dj)
		}
		g.storeu(dj, s.dst(j))
	}
}

// twoStepLoop emits the 16-register main loop at label loop: step(tweak,
// next), advance, then step(next, tweak), the roles of the two tweak sets
// swapped, so that no moves are needed between steps. advance moves the
// pointers and sets the flags: JB leaves after the first step (the next
// tweaks are then moved into place), JAE loops after the second.
func (g *xg) twoStepLoop(loop string, step func(cur, next [4]int), advance func()) {
	Label(loop)
	step(g.tweak, g.next)
	advance()
	half, after := g.label("loop_half"), g.label("loop_end")
	JB(LabelRef(half))
	step(g.next, g.tweak)
	advance()
	JAE(LabelRef(loop))
	JMP(LabelRef(after))
	Label(half)
	for j := 0; j < 4; j++ {
		g.mov(g.v(g.next[j]), g.v(g.tweak[j]))
	}
	Label(after)
}

// advance moves src and dst on by n bytes and counts them off left,
// leaving the flags of left compared with n.
func (g *xg) advance(n int, left reg.Register) {
	ADDQ(U32(n), rSrc)
	ADDQ(U32(n), rDst)
	SUBQ(U32(n), left)
	CMPQ(left, U32(n))
}

// loopOn moves src and dst on by n bytes, counts them off left, and
// jumps back to loop.
func (g *xg) loopOn(n Constant, left reg.Register, loop string) {
	ADDQ(n, rSrc)
	ADDQ(n, rDst)
	SUBQ(n, left)
	JMP(LabelRef(loop))
}

// blocks runs vectors data[j] (width bytes) with tweaks tweak[j] through
// the cipher outside the main loop: loaded from src(j) unless src is nil,
// XORed with the tweak and round key 0, then the rounds. With foldLast
// the last round's key is K14 ^ tweak, formed in scratch[2] (so the
// tweak is done); without, the caller XORs the tweak in afterwards.
func (g *xg) blocks(width int, src func(j int) Mem, data, tweak []int, foldLast bool) {
	for j := range data {
		dv, tv := vecReg(width, data[j]), vecReg(width, tweak[j])
		if src != nil {
			g.loadu(src(j), dv)
		}
		g.xor3(vecReg(width, g.key0), tv, dv)
	}
	lk := vecReg(width, g.scratch[2])
	g.rounds(func(row int) {
		k := g.keyAt(row, width)
		for j := range data {
			dv := vecReg(width, data[j])
			switch {
			case row < 14:
				g.aes(g.dec, false, k, dv)
			case foldLast:
				g.xor(k, vecReg(width, tweak[j]), lk)
				g.aes(g.dec, true, lk, dv)
			default:
				g.aes(g.dec, true, k, dv)
			}
		}
	})
}

// returnAt emits the return at label ret: in the sector routines the
// vector registers cleared first (see clearVectors), then VZEROUPPER after
// ymm and zmm code.
func (g *xg) returnAt(ret string) {
	Label(ret)
	if g.sectors {
		g.clearVectors()
	}
	if g.vlen > 16 {
		VZEROUPPER()
	}
	RET()
}

// clearVectors zeroes every vector register the routine may have written
// (xmm0-15, and zmm16-31 with AVX-512): round keys of both keys, tweaks
// (the last-round keys K14 ^ T of consecutive blocks give away K14) and
// data do not outlive the call, whatever Go code runs next (its async
// preemption saves X0-X15 on the goroutine stack). One zero idiom per
// register: an xmm write zeroes the bits above 128 with VEX and EVEX, and
// the legacy-SSE routines write no more than 128 bits. VZEROALL, one
// instruction for registers 0-15, measured slower than the zero idioms on
// this machine's Intel Xeon (+13-32% at 16 bytes in the unit routines).
//
// Only the sector routines do this (expandKey clears its own registers
// too). In the unit routines, called once per data unit, the same zeroing
// measured +6-21% at 16 bytes (AES-256 decryption; p < 0.05 for all five
// variants in one interleaved run of 20, for three in another of 16) and
// up to +17% at 512 bytes: past the project's rule for generated code (no
// cell slower by more than noise, p < 0.05 and > 2%). What they leave in
// registers is what the key schedule holds in memory for as long as the
// Cipher lives. A sector routine's call is a whole bulk request, where the
// zeroing measured no change (BenchmarkSectors, 512-byte sectors).
func (g *xg) clearVectors() {
	n := 16
	if g.avx512 {
		n = 32
	}
	for i := 0; i < n; i++ {
		x := g.x(i)
		switch {
		case !g.vex:
			PXOR(x, x)
		case i >= 16:
			VPXORD(x, x, x)
		default:
			VPXOR(x, x, x)
		}
	}
}
