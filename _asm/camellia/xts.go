package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/fastxts/xts/_asm/internal/xtsgen"
)

// Constants: the tweak arithmetic's (xtsgen.Tweak: the XTS polynomial and
// the per-lane shift counts), and in camelliaGFNI the GFNI matrices:
// pre[n], post[n] for S-box n, and shr7 (bit 7 of a byte to bit 0, for
// FL's rotation).
var (
	tweak           xtsgen.Tweak
	preMem, postMem [5]Mem
	shr7Mem         Mem
	gf              gfni
)

func genCamelliaData(g gfni) {
	gf = g
	tweak = xtsgen.TweakData("camellia")
	m := GLOBL("camelliaGFNI", RODATA|NOPTR)
	off := 0
	for n := 1; n <= 4; n++ {
		DATA(off, U64(g.pre[n].qword()))
		preMem[n] = m.Offset(off)
		off += 8
		DATA(off, U64(g.post[n].qword()))
		postMem[n] = m.Offset(off)
		off += 8
	}
	DATA(off, U64(affine{m: mat{0x80}}.qword()))
	shr7Mem = m.Offset(off)
}

// sboxOfByte is the S-box F applies to each byte of its input, most
// significant first (RFC 3713, section 2.4.1).
var sboxOfByte = [8]int{1, 2, 3, 4, 2, 3, 4, 1}

// ternImm is the VPTERNLOGD immediate of f(a, b, c) where a is the
// destination operand, b the middle (register) one and c the last source
// (register or broadcast memory).
func ternImm(f func(a, b, c bool) bool) U8 {
	var imm uint8
	for i := range 8 {
		if f(i&4 != 0, i&2 != 0, i&1 != 0) {
			imm |= 1 << i
		}
	}
	return U8(imm)
}

var (
	xor3                   = ternImm(func(a, b, c bool) bool { return a != b != c })
	xorOr                  = ternImm(func(a, b, c bool) bool { return a != (b || c) })
	tweakT reg.VecPhysical = reg.Z28 // T·x^0..3 of the batch's first blocks
)

// loadTweaked loads block register r of the group grp, XORs its tweak
// T·x^(4r+lane) and stores that tweak at its place in dst, where the
// output XOR reads it back (computing the 16 tweaks twice cost 75
// instructions per 1 KiB): dst holds data or the output, or a tweak
// between the two, never anything else, and src's block is in its
// register before the tweak overwrites it in place.
func loadTweaked(x []reg.VecPhysical, grp int, src, dst reg.Register, p *xtsgen.Pool) {
	for i := range 4 {
		r := 4*grp + i
		VMOVDQU64(Mem{Base: src, Disp: 64 * r}, x[r])
		if r == 0 {
			VMOVDQU64(tweakT, Mem{Base: dst})
			VPXORQ(tweakT, x[0], x[0])
			continue
		}
		t := p.Get()
		tweak.MulXPool(t, tweakT, 4*r, p)
		VMOVDQU64(t, Mem{Base: dst, Disp: 64 * r})
		VPXORQ(t, x[r], x[r])
		p.Put(t)
	}
}

// transpose16 emits the 16×16 byte transpose inside every 128-bit lane
// of the registers in (row i: in[i]) and returns the output registers
// (row i: out[i]). A stage pairs rows j and j+8 into rows 2j and 2j+1:
// the row‖column index (4+4 bits) of every byte rotates left by one, so
// four stages swap row and column, and the network is its own inverse.
// checkTranspose proves it on labels.
func transpose16(in []reg.VecPhysical, p *xtsgen.Pool) []reg.VecPhysical {
	cur := append([]reg.VecPhysical(nil), in...)
	for range 4 {
		next := make([]reg.VecPhysical, 16)
		for j := range 8 {
			lo, hi := p.Get(), p.Get()
			VPUNPCKLBW(cur[j+8], cur[j], lo)
			VPUNPCKHBW(cur[j+8], cur[j], hi)
			p.Put(cur[j])
			p.Put(cur[j+8])
			next[2*j], next[2*j+1] = lo, hi
		}
		cur = next
	}
	return cur
}

// checkTranspose runs the network of transpose16 on labelled bytes (one
// lane: row r, column c labelled 16r+c) and panics unless it transposes
// and twice is the identity.
func checkTranspose() {
	var m [16][16]int
	for r := range 16 {
		for c := range 16 {
			m[r][c] = 16*r + c
		}
	}
	stage := func(in [16][16]int) (out [16][16]int) {
		for j := range 8 {
			a, b := in[j], in[j+8]
			for i := range 8 {
				out[2*j][2*i], out[2*j][2*i+1] = a[i], b[i]
				out[2*j+1][2*i], out[2*j+1][2*i+1] = a[8+i], b[8+i]
			}
		}
		return out
	}
	t := m
	for range 4 {
		t = stage(t)
	}
	for r := range 16 {
		for c := range 16 {
			if t[r][c] != m[c][r] {
				panic("camellia generator: the unpack network does not transpose")
			}
		}
	}
}

// keyMem is byte b (most significant first) of entry i of the folded
// schedule, as four copies in a dword: 40 entries × 8 such dwords.
func keyMem(ks reg.Register, i, b int) Mem { return Mem{Base: ks, Disp: 4 * (8*i + b)} }

// Matrices held in registers for the whole call (broadcast memory
// operands would cost a load each, 16 per round): the pre-affine maps of
// SBOX1-3 (one matrix) and SBOX4, the post maps of SBOX1 and SBOX4 (one
// matrix), SBOX2 and SBOX3.
var (
	preReg  = [5]reg.VecPhysical{1: reg.Z27, 2: reg.Z27, 3: reg.Z27, 4: reg.Z29}
	postReg = [5]reg.VecPhysical{1: reg.Z30, 2: reg.Z31, 3: reg.Z26, 4: reg.Z30}
)

// reserved are the registers the pools never hand out.
var reserved = []reg.VecPhysical{tweakT, reg.Z26, reg.Z27, reg.Z29, reg.Z30, reg.Z31}

func isReserved(z reg.VecPhysical) bool {
	for _, r := range reserved {
		if r == z {
			return true
		}
	}
	return false
}

// loadMatrices broadcasts the S-box matrices into their registers.
func loadMatrices() {
	for n := 1; n <= 4; n++ {
		if n != 2 && n != 3 {
			VPBROADCASTQ(preMem[n], preReg[n])
		}
		if n != 4 {
			VPBROADCASTQ(postMem[n], postReg[n])
		}
	}
}

// f XORs F(in, k) into out, where in already holds its round's subkey
// (folded in when it was last written) and out receives the folded
// schedule's entry d as well: the XOR of the subkey it held and the one
// it needs next (camellia_amd64.go: foldCamelliaSchedule). That XOR
// waits on nothing of this round, so the S-boxes start as soon as in is
// final: one instruction less on the path from round to round.
func f(ks reg.Register, d int, in, out []reg.VecPhysical, p *xtsgen.Pool) {
	var t [8]reg.VecPhysical
	for b := range 8 {
		t[b] = p.Get()
		n := sboxOfByte[b]
		VGF2P8AFFINEQB(U8(gf.pre[n].imm), preReg[n], in[b], t[b])
	}
	for b := range 8 {
		n := sboxOfByte[b]
		VGF2P8AFFINEINVQB(U8(gf.post[n].imm), postReg[n], t[b], t[b])
	}
	// The subkey XORs after the S-boxes in program order: the scheduler
	// favours older instructions, and the S-boxes are on the path.
	for b := range 8 {
		VPXORD_BCST(keyMem(ks, d, b), out[b], out[b])
	}
	// P (RFC 3713, 2.4.1) with A = t1^t2^t3^t4, B = t5^t6^t7^t8:
	// y1..y4 = (t2^t5, t3^t6, t4^t7, t1^t8) ^ A ^ B,
	// y5..y8 = (t1^t2, t2^t3, t3^t4, t4^t1) ^ B ^ (t5, t6, t7, t8).
	// A and B first (the scheduler favours older instructions), the
	// pairs into out beside them: every out is final three levels after
	// the S-boxes (the next round waits on them).
	a, b := p.Get(), p.Get()
	VPXORD(t[1], t[0], a)
	VPXORD(t[5], t[4], b)
	VPTERNLOGD(xor3, t[3], t[2], a)
	VPTERNLOGD(xor3, t[7], t[6], b)
	for i, pair := range [4][2]int{{1, 4}, {2, 5}, {3, 6}, {0, 7}} {
		VPTERNLOGD(xor3, t[pair[1]], t[pair[0]], out[i])
	}
	for i, pair := range [4][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}} {
		VPTERNLOGD(xor3, t[pair[1]], t[pair[0]], out[4+i])
	}
	for i := range 4 {
		VPTERNLOGD(xor3, b, a, out[i])
	}
	for i := range 4 {
		VPTERNLOGD(xor3, b, t[4+i], out[4+i])
	}
	for _, r := range t {
		p.Put(r)
	}
	p.Put(a)
	p.Put(b)
}

// rotXor XORs (t <<< 1) into x, t and x four byte registers each, most
// significant first: byte b of the rotation is t_b<<1 | t_(b+1)>>7.
func rotXor(t, x []reg.VecPhysical, p *xtsgen.Pool) {
	for b := range 4 {
		u, v := p.Get(), p.Get()
		VPADDB(t[b], t[b], u)
		VGF2P8AFFINEQB_BCST(U8(0), shr7Mem, t[(b+1)%4], v)
		VPTERNLOGD(xor3, v, u, x[b])
		p.Put(u)
		p.Put(v)
	}
}

// fl applies FL (RFC 3713, 2.4.2) with subkey k to the half x.
func fl(ks reg.Register, k int, x []reg.VecPhysical, p *xtsgen.Pool) {
	var t [4]reg.VecPhysical
	for b := range 4 {
		t[b] = p.Get()
		VPANDD_BCST(keyMem(ks, k, b), x[b], t[b])
	}
	rotXor(t[:], x[4:], p)
	for b := range 4 {
		p.Put(t[b])
		VPTERNLOGD_BCST(xorOr, keyMem(ks, k, 4+b), x[4+b], x[b])
	}
}

// flInv applies FL⁻¹ (RFC 3713, 2.4.3) with subkey k to the half y.
func flInv(ks reg.Register, k int, y []reg.VecPhysical, p *xtsgen.Pool) {
	var t [4]reg.VecPhysical
	for b := range 4 {
		VPTERNLOGD_BCST(xorOr, keyMem(ks, k, 4+b), y[4+b], y[b])
	}
	for b := range 4 {
		t[b] = p.Get()
		VPANDD_BCST(keyMem(ks, k, b), y[b], t[b])
	}
	rotXor(t[:], y[4:], p)
	for b := range 4 {
		p.Put(t[b])
	}
}

// sixRounds emits rounds 6g+1..6g+6: folded-schedule entries 2+8g..7+8g.
func sixRounds(ks reg.Register, g int, l, r []reg.VecPhysical, p *xtsgen.Pool) {
	for j := range 6 {
		Comment(fmt.Sprintf("Round %d.", 6*g+j+1))
		if j%2 == 0 {
			f(ks, 2+8*g+j, l, r, p)
		} else {
			f(ks, 2+8*g+j, r, l, p)
		}
	}
}

// xorKey XORs folded-schedule entry i into the half x.
func xorKey(ks reg.Register, i int, x []reg.VecPhysical) {
	for b := range 8 {
		VPXORD_BCST(keyMem(ks, i, b), x[b], x[b])
	}
}

const signature = "func(ks *[320]uint32, rounds int, dst, src []byte, tweakLo, tweakHi uint64) (lo, hi uint64)"

// genCamelliaXTS emits the routine: XTS over len(src)/256 groups of 16
// blocks, 64 blocks (four groups) per iteration and the last one to three
// groups in a final iteration, from tweak T = (tweakLo, tweakHi),
// returning the tweak of the block after the last one processed.
func genCamelliaXTS(name string, _ gfni) {
	xtsgen.Begin(name, signature, name+" runs Camellia-XTS over len(src)/256 groups of 16 blocks",
		"(AVX-512F/BW, GFNI, VPCLMULQDQ), 64 blocks at a time: block j of src",
		"uses the tweak T·x^j, T given as two little-endian words; it returns",
		"T·x^(16·groups). ks is a folded, byte-sliced Camellia schedule",
		"(foldCamelliaSchedule: each byte four times in a dword, 40 entries of",
		"8 bytes), for encryption or decryption; rounds is 18 or 24. len(dst) >= len(src), dst and src",
		"the same memory or disjoint; each block's place in dst holds its tweak",
		"for a moment before its output.")
	ks := Load(Param("ks"), GP64())
	rounds := Load(Param("rounds"), GP64())
	dst, src := xtsgen.Buffers()
	n, lo, hi := xtsgen.Groups(8) // groups of 16 blocks; none: T back
	Comment("Z28 = T·x^0..3 (tweakLo and tweakHi are adjacent: T's 16 bytes).")
	tweak.LanesFromArgs(tweakT, reg.Z24, reg.Z25)
	loadMatrices()
	g := GP64()

	Label("loop")
	Comment("g = min(groups left, 4): this iteration's groups of 16 blocks.")
	MOVQ(U32(4), g)
	CMPQ(n, U8(4))
	CMOVQLT(n, g)

	x := append([]reg.VecPhysical(nil), xtsgen.Z[:16]...)
	p := &xtsgen.Pool{Owner: "camellia generator", FIFO: true}
	for _, z := range xtsgen.Z[16:] {
		if !isReserved(z) {
			p.Free = append(p.Free, z)
		}
	}
	Comment("Load the blocks (registers past the last group zero).")
	for r := 4; r < 16; r++ {
		VPXORD(x[r], x[r], x[r])
	}
	for grp := range 4 {
		if grp > 0 {
			CMPQ(g, U8(grp+1))
			JLT(LabelRef("loaded"))
		}
		loadTweaked(x, grp, src, dst, p)
	}
	Label("loaded")
	// A whole iteration multiplies T by x^64 in one step, here, as soon
	// as its tweaks are parked: at the end (four x^16 steps in a chain,
	// then the next iteration's tweaks from it) it delayed the next
	// loads. Every lane's (lo, hi) becomes (hi·(x^7+x^2+x+1), lo), the
	// product at most 71 bits, so it spills into the high half. A last,
	// partial iteration advances by x^16 per group at its end.
	CMPQ(g, U8(4))
	JNE(LabelRef("sliced"))
	{
		c := p.Get()
		VPCLMULQDQ(U8(0x01), tweak.Poly, tweakT, c)
		VPSLLDQ(U8(8), tweakT, tweakT)
		VPXORQ(c, tweakT, tweakT)
		p.Put(c)
	}
	Label("sliced")
	Comment("Byte-slice: register b holds byte b of every block.")
	x = transpose16(x, p)
	l, r := x[:8], x[8:]
	Comment("Whitening (the first round's subkey folded into L's).")
	xorKey(ks, 0, l)
	xorKey(ks, 1, r)
	sixRounds(ks, 0, l, r, p)
	for grp := 1; grp < 4; grp++ {
		if grp == 3 {
			CMPQ(rounds, U8(18))
			JEQ(LabelRef("last"))
		}
		Comment(fmt.Sprintf("FL and FL⁻¹ (entries %d, %d); R's subkey out, L's next in.", 8*grp, 8*grp+1))
		xorKey(ks, 32+2*grp, r)
		fl(ks, 8*grp, l, p)
		flInv(ks, 8*grp+1, r, p)
		xorKey(ks, 33+2*grp, l)
		sixRounds(ks, grp, l, r, p)
	}
	Label("last")
	Comment("Whitening (L has kw4 already), halves swapped; back to blocks.")
	xorKey(ks, 32, r)
	out := transpose16(append(append([]reg.VecPhysical(nil), r...), l...), p)
	Comment("XOR the tweaks (from dst) and store the groups.")
	for grp := range 4 {
		if grp > 0 {
			CMPQ(g, U8(grp+1))
			JLT(LabelRef("stored"))
		}
		for i := range 4 {
			m := Mem{Base: dst, Disp: 256*grp + 64*i}
			VPXORQ(m, out[4*grp+i], out[4*grp+i])
			VMOVDQU64(out[4*grp+i], m)
		}
	}
	Label("stored")
	Comment("Next iteration (T advanced after the loads), or the last one's T·x^(16g).")
	SUBQ(g, n)
	CMPQ(g, U8(4))
	JNE(LabelRef("partial"))
	ADDQ(U32(1024), src)
	ADDQ(U32(1024), dst)
	TESTQ(n, n)
	JNZ(LabelRef("loop"))
	JMP(LabelRef("done"))
	// A partial iteration (g < 4) is the last one (n < 4 before it):
	// advance T by x^(16g) in one step, not a chain of g.
	Label("partial")
	for k := 1; k <= 3; k++ {
		if k < 3 {
			CMPQ(g, U8(k))
			JNE(LabelRef(fmt.Sprintf("partial%d", k+1)))
		}
		tweak.MulXPool(tweakT, tweakT, 16*k, p)
		if k < 3 {
			JMP(LabelRef("done"))
			Label(fmt.Sprintf("partial%d", k+1))
		}
	}

	Label("done")

	Comment("Return the next tweak; zero every vector register.")
	xtsgen.ReturnTweak(tweakT, lo, hi)
	xtsgen.ZeroAndRet()
}
