package main

import (
	"fmt"
	"math/bits"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/fastxts/xts/_asm/internal/xtsgen"
)

// Constants: the tweak arithmetic's (xtsgen.Tweak: the XTS polynomial and
// the per-lane shift counts) and the mask of ltKey.
var (
	tweak     xtsgen.Tweak
	ltMaskMem Mem
)

func genSerpentData() {
	// The mask sits between the polynomial and the shift counts in the
	// generated file, so the tables are emitted one by one.
	tweak.Poly = xtsgen.PolyData("serpentPoly")
	// rol22(0xFFFFFF80): x<<7 rotated left by 22 is rol29(x) and this (ltKey).
	ltMaskMem = GLOBL("serpentLTMask", RODATA|NOPTR)
	DATA(0, U32(bits.RotateLeft32(0xFFFFFF80, 22)))
	tweak.Shl, tweak.Shr = xtsgen.LaneShiftData("serpentTweakShl", "serpentTweakShr")
}

// set is 16 blocks in flight: x[i] holds word i of each block once
// transposed; its temporaries come from a pool shared by every set (the
// sets' phases are emitted one after another, so a set's temporaries are
// free again before the next set's phase starts).
type set struct {
	x    [4]reg.VecPhysical
	pool *xtsgen.Pool
}

// tbase holds T·x^0..3 (one per 128-bit lane) of the step's first block.
var tbase = reg.Z31

// Register plan: Z31 the step's base tweaks, Z0-Z15 the words of four
// sets (64 blocks), Z16-Z30 temporaries shared by the sets. The tweaks of
// the blocks are not kept in registers: each one is stored in dst over
// the block it belongs to (src is already loaded, so this is safe in
// place) and XORed back from there after the rounds. Four independent sets
// hide the latency of the rounds' dependency chain (about eleven
// ternlog/rotate steps a round); two were latency-bound.
func newSets(k int) ([]*set, *xtsgen.Pool) {
	p := &xtsgen.Pool{Owner: "serpent generator"}
	for j := 30; j >= 16; j-- {
		p.Free = append(p.Free, xtsgen.Z[j])
	}
	s := make([]*set, k)
	for i := range k {
		s[i] = &set{pool: p}
		copy(s[i].x[:], xtsgen.Z[4*i:4*i+4])
	}
	for j := 15; j >= 4*k; j-- {
		p.Free = append(p.Free, xtsgen.Z[j])
	}
	return s, p
}

// sbox applies circuit c to the set's four words.
func (s *set) sbox(c *circuit) {
	const forever = 1 << 30
	nv := 4 + len(c.nodes)
	last := make([]int, nv)
	for i := range last {
		last[i] = -1
	}
	for k, n := range c.nodes {
		for _, v := range []int{n.a, n.b, n.c} {
			last[v] = k
		}
	}
	for _, v := range c.out {
		last[v] = forever
	}
	regs := make([]reg.VecPhysical, nv)
	copy(regs, s.x[:])
	for i := range 4 {
		if last[i] < 0 {
			s.pool.Put(regs[i])
		}
	}
	for k, n := range c.nodes {
		ops := [3]int{n.a, n.b, n.c}
		d := -1
		for i, v := range ops {
			if last[v] == k {
				d = i
				break
			}
		}
		var dst reg.VecPhysical
		order := [3]int{0, 1, 2}
		if d < 0 {
			dst = s.pool.Get()
			VMOVDQA64(regs[ops[0]], dst)
		} else {
			dst = regs[ops[d]]
			order = [3]int{d, (d + 1) % 3, (d + 2) % 3}
		}
		// imm for operands in the new order.
		var imm uint8
		for i := range 8 {
			var bit [3]int // value of original operand j
			bit[order[0]] = i >> 2 & 1
			bit[order[1]] = i >> 1 & 1
			bit[order[2]] = i & 1
			if n.imm>>(bit[0]<<2|bit[1]<<1|bit[2])&1 != 0 {
				imm |= 1 << i
			}
		}
		VPTERNLOGD(U8(imm), regs[ops[order[2]]], regs[ops[order[1]]], dst)
		// Free every other operand that dies here (once).
		for i, v := range ops {
			if i == d || last[v] != k {
				continue
			}
			dup := false
			for j := range i {
				if ops[j] == v {
					dup = true
				}
			}
			if !dup && !(d >= 0 && ops[d] == v) {
				s.pool.Put(regs[v])
			}
		}
		regs[4+k] = dst
	}
	for j := range 4 {
		s.x[j] = regs[c.out[j]]
	}
}

// addKey XORs round key r (words 4r..4r+3 of the schedule) into the set.
func (s *set) addKey(ks reg.Register, r int) {
	for i := range 4 {
		VPXORD_BCST(Mem{Base: ks, Disp: 4 * (4*r + i)}, s.x[i], s.x[i])
	}
}

// lt is Serpent's linear transformation.
func (s *set) lt() {
	x := &s.x
	t := s.pool.Get()
	VPROLD(U8(13), x[0], x[0])
	VPROLD(U8(3), x[2], x[2])
	VPTERNLOGD(U8(0x96), x[2], x[0], x[1])
	VPSLLD(U8(3), x[0], t)
	VPTERNLOGD(U8(0x96), t, x[2], x[3])
	VPROLD(U8(1), x[1], x[1])
	VPROLD(U8(7), x[3], x[3])
	VPTERNLOGD(U8(0x96), x[3], x[1], x[0])
	VPSLLD(U8(7), x[1], t)
	VPTERNLOGD(U8(0x96), t, x[3], x[2])
	VPROLD(U8(5), x[0], x[0])
	VPROLD(U8(22), x[2], x[2])
	s.pool.Put(t)
}

// ltKey is lt followed by addKey(kp, r) with a shorter dependency chain
// (five steps, against lt's six and the key's one), for the steps with
// too few sets in flight to hide latency; it takes four instructions
// more. Rotations distribute over XOR, so the last rotations of words 0
// and 2 move onto their terms, which start earlier:
//
//	x0' = rol5(x0a ^ x1b ^ x3b) = rol18(x0) ^ rol6(x1a) ^ rol12(x3a)
//	x2' = rol22(x2a ^ x3b ^ x1b<<7)
//	    = rol25(x2) ^ rol29(x3a) ^ (rol30(x1a) & rol22(0xFFFFFF80))
//
// (x0a = rol13(x0), x2a = rol3(x2), x1a and x3a the middle values, x1b =
// rol1(x1a), x3b = rol7(x3a)), and the round key goes onto rol18(x0) and
// rol25(x2), off the chain.
func (s *set) ltKey(kp reg.Register, r int) {
	x := &s.x
	key := func(i int) Mem { return Mem{Base: kp, Disp: 4 * (4*r + i)} }
	a, b := s.pool.Get(), s.pool.Get()
	VPROLD(U8(13), x[0], a)
	VPROLD(U8(3), x[2], b)
	VPTERNLOGD(U8(0x96), b, a, x[1]) // x1a
	VPSLLD(U8(3), a, a)
	VPTERNLOGD(U8(0x96), a, b, x[3]) // x3a
	VPROLD(U8(18), x[0], x[0])
	VPXORD_BCST(key(0), x[0], x[0])
	VPROLD(U8(25), x[2], x[2])
	VPXORD_BCST(key(2), x[2], x[2])
	VPROLD(U8(6), x[1], a)
	VPROLD(U8(12), x[3], b)
	VPTERNLOGD(U8(0x96), b, a, x[0])
	VPROLD(U8(30), x[1], a)
	VPANDD_BCST(ltMaskMem, a, a)
	VPROLD(U8(29), x[3], b)
	VPTERNLOGD(U8(0x96), b, a, x[2])
	VPROLD(U8(1), x[1], x[1])
	VPXORD_BCST(key(1), x[1], x[1])
	VPROLD(U8(7), x[3], x[3])
	VPXORD_BCST(key(3), x[3], x[3])
	s.pool.Put(b)
	s.pool.Put(a)
}

// ltInv inverts lt.
func (s *set) ltInv() {
	x := &s.x
	t := s.pool.Get()
	VPROLD(U8(32-22), x[2], x[2])
	VPROLD(U8(32-5), x[0], x[0])
	VPSLLD(U8(7), x[1], t)
	VPTERNLOGD(U8(0x96), t, x[3], x[2])
	VPTERNLOGD(U8(0x96), x[3], x[1], x[0])
	VPROLD(U8(32-7), x[3], x[3])
	VPROLD(U8(32-1), x[1], x[1])
	VPSLLD(U8(3), x[0], t)
	VPTERNLOGD(U8(0x96), t, x[2], x[3])
	VPTERNLOGD(U8(0x96), x[2], x[0], x[1])
	VPROLD(U8(32-3), x[2], x[2])
	VPROLD(U8(32-13), x[0], x[0])
	s.pool.Put(t)
}

// transpose transposes the 4x4 dwords of each 128-bit lane across the
// four registers (its own inverse).
func (s *set) transpose() {
	t := [4]reg.VecPhysical{s.pool.Get(), s.pool.Get(), s.pool.Get(), s.pool.Get()}
	xtsgen.Transpose4x4(s.x, t)
	for _, r := range t {
		s.pool.Put(r)
	}
}

// regState is where the sets' words are and which registers are free.
type regState struct {
	x    [][4]reg.VecPhysical
	free []reg.VecPhysical
}

func snapshot(sets []*set, p *xtsgen.Pool) regState {
	st := regState{free: append([]reg.VecPhysical(nil), p.Free...)}
	for _, s := range sets {
		st.x = append(st.x, s.x)
	}
	return st
}

// restore emits the moves that put the sets' words back where st had
// them (a parallel move: a move whose target still holds another pending
// move's source waits; a cycle is broken by swapping two registers with
// three XORs, as no register may be free), then resets the allocator.
func (st regState) restore(sets []*set, p *xtsgen.Pool) {
	type mv struct{ from, to reg.VecPhysical }
	var moves []mv
	for i, s := range sets {
		for j := range 4 {
			if s.x[j] != st.x[i][j] {
				moves = append(moves, mv{s.x[j], st.x[i][j]})
			}
		}
	}
	if len(moves) > 0 {
		Comment("Words back to the loop head's registers.")
	}
	for len(moves) > 0 {
		progress := false
		for i := 0; i < len(moves); i++ {
			blocked := false
			for j, o := range moves {
				if j != i && o.from == moves[i].to {
					blocked = true
					break
				}
			}
			if !blocked {
				VMOVDQA64(moves[i].from, moves[i].to)
				moves = append(moves[:i], moves[i+1:]...)
				i--
				progress = true
			}
		}
		if progress {
			continue
		}
		// Every target is another move's source: a cycle. Swap the
		// first move's registers; its target then holds its value, and
		// the move that read its target now reads its source.
		a, b := moves[0].from, moves[0].to
		VPXORD(b, a, a)
		VPXORD(a, b, b)
		VPXORD(b, a, a)
		rest := moves[1:]
		moves = nil
		for _, m := range rest {
			if m.from == b {
				m.from = a
			}
			if m.from != m.to {
				moves = append(moves, m)
			}
		}
	}
	for i, s := range sets {
		s.x = st.x[i]
	}
	p.Free = append(p.Free[:0], st.free...)
}

const signature = "func(ks *[132]uint32, dst, src []byte, tweakLo, tweakHi uint64) (lo, hi uint64)"

// genSerpentXTS emits one routine: XTS over len(src)/256 groups of 16
// blocks (four groups per loop iteration, then two and one for the rest),
// the first block with tweak T = (tweakLo, tweakHi), returning the tweak
// of the block after the last one processed.
func genSerpentXTS(name string, dec bool, sbs [2][8]*circuit) {
	xtsgen.Begin(name, signature, name+" "+xtsgen.Verb(dec)+" len(src)/256 groups of 16 blocks with Serpent-XTS",
		"(AVX-512F/BW/VL, VPCLMULQDQ), 64 blocks at a time: block j of src uses the",
		"tweak T·x^j, T given as two little-endian words; it returns",
		"T·x^(16·groups). ks is the",
		"132-word Serpent key schedule; len(dst) >= len(src), dst and src",
		"the same memory or disjoint.")
	ks := Load(Param("ks"), GP64())
	dst, src := xtsgen.Buffers()
	n, lo, hi := xtsgen.Groups(8) // groups of 16 blocks; none: T back
	Comment("Z31 = T·x^0..3.")
	tweak.LanesFromArgs(tbase, xtsgen.Z[0], xtsgen.Z[1])

	CMPQ(n, U8(4))
	JB(LabelRef("two"))

	Label("loop")
	serpentStep(4, ks, src, dst, dec, sbs[0])
	ADDQ(U32(1024), src)
	ADDQ(U32(1024), dst)
	SUBQ(U8(4), n)
	CMPQ(n, U8(4))
	JAE(LabelRef("loop"))

	Label("two")
	Comment("Two groups of 16 blocks left?")
	TESTQ(U32(2), n)
	JZ(LabelRef("one"))
	serpentStep(2, ks, src, dst, dec, sbs[1])
	ADDQ(U32(512), src)
	ADDQ(U32(512), dst)

	Label("one")
	Comment("An odd group of 16 blocks?")
	TESTQ(U32(1), n)
	JZ(LabelRef("done"))
	serpentStep(1, ks, src, dst, dec, sbs[1])

	Label("done")
	Comment("Return the next tweak; zero every vector register.")
	xtsgen.ReturnTweak(tbase, lo, hi)
	xtsgen.ZeroAndRet()
}

// serpentStep emits the work on k sets of 16 blocks at src and dst: the
// tweaks from Z31 (each stored in dst over its block), load XOR the
// tweaks, transpose, the rounds, transpose back, XOR the tweaks, store;
// Z31 advances by x^(16k).
func serpentStep(k int, ks, src, dst reg.Register, dec bool, sb [8]*circuit) {
	sets, p := newSets(k)
	Comment(fmt.Sprintf("%d blocks: tweaks (kept in dst), load XOR tweaks, transpose.", 16*k))
	// A block row's tweak and MulX's two temporaries, taken once for all
	// the sets (the pool hands out the same three for each row anyway).
	tw, c, d := p.Get(), p.Get(), p.Get()
	for si, s := range sets {
		tweak.XorPark(src, dst, 256*si, s.x[:], tbase, tw, c, d)
	}
	p.Put(d)
	p.Put(c)
	p.Put(tw)
	Comment(fmt.Sprintf("The next step's tweaks: Z31 times x^%d.", 16*k))
	if k == 4 {
		tweak.MulXPool(tbase, tbase, 32, p)
		tweak.MulXPool(tbase, tbase, 32, p)
	} else {
		tweak.MulXPool(tbase, tbase, 16*k, p)
	}
	for _, s := range sets {
		s.transpose()
	}
	all := func(f func(s *set)) {
		for _, s := range sets {
			f(s)
		}
	}
	// The rounds run as a loop of eight (the S-boxes' period), not
	// unrolled: four sets unrolled over 32 rounds are some 25 KB of code,
	// more than the core's op cache holds, and decoding them bounds the
	// loop. The sets' words are moved back to the registers they had at
	// the loop's head before each back edge (the S-box circuits leave
	// them elsewhere); kp walks the key schedule by eight round keys.
	kp, cnt := GP64(), GP64()
	MOVL(U32(4), cnt.As32())
	lbl := fmt.Sprintf("rounds%d", k)
	if !dec {
		all(func(s *set) { s.addKey(ks, 0) })
		MOVQ(ks, kp)
		head := snapshot(sets, p)
		JMP(LabelRef(lbl + "enter"))
		ltKey := func(r int) {
			if k <= 2 {
				all(func(s *set) { s.ltKey(kp, r) })
				return
			}
			all(func(s *set) { s.lt() })
			all(func(s *set) { s.addKey(kp, r) })
		}
		Label(lbl)
		ltKey(0)
		Label(lbl + "enter")
		for r := range 8 {
			Comment(fmt.Sprintf("Round 8j+%d.", r))
			all(func(s *set) { s.sbox(sb[r]) })
			if r < 7 {
				ltKey(r + 1)
			}
		}
		head.restore(sets, p)
		ADDQ(U8(128), kp)
		DECL(cnt.As32())
		JNZ(LabelRef(lbl))
		Comment("The last round key.")
		all(func(s *set) { s.addKey(kp, 0) })
	} else {
		all(func(s *set) { s.addKey(ks, 32) })
		LEAQ(Mem{Base: ks, Disp: 4 * 4 * 24}, kp)
		head := snapshot(sets, p)
		JMP(LabelRef(lbl + "enter"))
		Label(lbl)
		all(func(s *set) { s.ltInv() })
		Label(lbl + "enter")
		for r := 7; r >= 0; r-- {
			Comment(fmt.Sprintf("Round 8j+%d.", r))
			all(func(s *set) { s.sbox(sb[r]) })
			all(func(s *set) { s.addKey(kp, r) })
			if r > 0 {
				all(func(s *set) { s.ltInv() })
			}
		}
		head.restore(sets, p)
		SUBQ(U8(128), kp)
		DECL(cnt.As32())
		JNZ(LabelRef(lbl))
	}
	Comment("Transpose back, XOR the tweaks, store.")
	for si, s := range sets {
		s.transpose()
		xtsgen.XorStore(dst, 256*si, s.x[:])
	}
}
