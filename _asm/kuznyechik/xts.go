package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/fastxts/xts/_asm/internal/xtsgen"
)

// Read-only data: π and π^-1 (the VPERMI2B tables), the multiplication
// matrices of ℓ's coefficients (broadcast qwords), and the tweak
// constants (xtsgen.Tweak: the XTS polynomial and the per-lane shift
// counts).
var (
	piMem, piInvMem, mulMem Mem
	tweak                   xtsgen.Tweak
)

func genData() {
	piMem = GLOBL("kuznyechikPi", RODATA|NOPTR)
	emitTable(pi)
	piInvMem = GLOBL("kuznyechikPiInv", RODATA|NOPTR)
	emitTable(inverse(pi))
	mulMem = GLOBL("kuznyechikMul", RODATA|NOPTR)
	for i, c := range mulCoefs {
		DATA(8*i, U64(mulMatrix(c)))
	}
	tweak = xtsgen.TweakData("kuznyechik")
}

// emitTable emits a 256-byte table into the current GLOBL.
func emitTable(t [256]byte) {
	for x := 0; x < 256; x += 8 {
		var q uint64
		for k := range 8 {
			q |= uint64(t[x+k]) << (8 * k)
		}
		DATA(x, U64(q))
	}
}

// Register plan: Z16-Z19 the S-box (π or π^-1, 64 entries each), Z20 the
// tweaks of the next four blocks, Z21 a running tweak, Z22-Z23 the tweak
// arithmetic's temporaries; the other 24 hold the sixteen state registers
// and the temporaries of the transposition and of ℓ, from a pool.
var (
	sbox       = xtsgen.Z[16:20]
	tweakBase  = reg.Z20
	tweakRun   = reg.Z21
	tweakTemps = [2]reg.VecPhysical{reg.Z22, reg.Z23}
)

func newPool() *xtsgen.Pool {
	p := &xtsgen.Pool{Owner: "kuznyechik generator"}
	for i := 31; i >= 24; i-- {
		p.Free = append(p.Free, xtsgen.Z[i])
	}
	for i := 15; i >= 0; i-- {
		p.Free = append(p.Free, xtsgen.Z[i])
	}
	return p
}

// mulx multiplies each lane of tw by x^k in GF(2^128) (0 < k < 64), with
// the tweak arithmetic's temporaries.
func mulx(tw reg.VecPhysical, k int) {
	tweak.MulX(tw, tw, k, tweakTemps[0], tweakTemps[1])
}

// transposeNet emits the network of transpose.go on the list l, taking
// its destinations from p and returning the sources to it.
func transposeNet(l [16]reg.VecPhysical, p *xtsgen.Pool) [16]reg.VecPhysical {
	type unpackFn func(ops ...Op)
	lo := map[int]unpackFn{1: VPUNPCKLBW, 2: VPUNPCKLWD, 4: VPUNPCKLDQ, 8: VPUNPCKLQDQ}
	hi := map[int]unpackFn{1: VPUNPCKHBW, 2: VPUNPCKHWD, 4: VPUNPCKHDQ, 8: VPUNPCKHQDQ}
	for _, st := range network() {
		var next [16]reg.VecPhysical
		for _, s := range st {
			a, b := l[s.lo], l[s.hi]
			next[s.lo] = p.Get()
			lo[s.e](b, a, next[s.lo])
			next[s.hi] = p.Get()
			hi[s.e](b, a, next[s.hi])
			p.Put(a)
			p.Put(b)
		}
		l = next
	}
	return l
}

// kmasks rotate over three pairs so that consecutive lookups need not
// wait for each other's mask.
var kmasks = [][2]reg.OpmaskPhysical{{reg.K1, reg.K2}, {reg.K3, reg.K4}, {reg.K5, reg.K6}}

// subBytes applies the S-box in Z16-Z19 to every byte of the sixteen
// registers: VPERMI2B looks up 128 entries by bits 0-6 of each byte, so
// the upper half of the table is looked up where the top bit is set and
// the lower half where it is clear, each under its mask, in place.
func subBytes(s [16]reg.VecPhysical) {
	for i, x := range s {
		k := kmasks[i%len(kmasks)]
		VPMOVB2M(x, k[0])
		KNOTQ(k[0], k[1])
		VPERMI2B(sbox[3], sbox[2], k[0], x)
		VPERMI2B(sbox[1], sbox[0], k[1], x)
	}
}

// ell emits new = ℓ(ops) XOR key into ops[15]'s register (ℓ's coefficient
// there is 1): ops[i] has coefficient lCoef[i]. ops[newest] is the byte the
// previous step made (ops[0] in R, ops[14] in R^-1): the steps form a
// chain through it, so it is multiplied alone and added last, one product
// and one XOR from one step to the next, while its partner in the pair
// (0, 14) is multiplied early on its own (measured about 20 % faster than
// multiplying the pair's XOR). key is a broadcast dword of the round key
// material.
func ell(ops [16]reg.VecPhysical, newest int, key *Mem, p *xtsgen.Pool) {
	mul := func(i int, x reg.VecPhysical) reg.VecPhysical {
		t := p.Get()
		VGF2P8AFFINEQB_BCST(U8(0), mulMem.Offset(8*coefIndex(lCoef[i])), x, t)
		return t
	}
	pair := func(i int) reg.VecPhysical {
		t := p.Get()
		VPXORD(ops[14-i], ops[i], t)
		VGF2P8AFFINEQB_BCST(U8(0), mulMem.Offset(8*coefIndex(lCoef[i])), t, t)
		return t
	}
	dst := ops[15]
	h := mul(14-newest, ops[14-newest])
	f, e, d, c, b := mul(7, ops[7]), pair(5), pair(4), pair(3), pair(2)
	a := pair(1) // holds the byte made two steps back
	VPTERNLOGD(U8(0x96), ops[8], ops[6], dst)
	VPTERNLOGD(U8(0x96), e, f, dst)
	VPTERNLOGD(U8(0x96), c, d, dst)
	VPTERNLOGD(U8(0x96), b, h, dst)
	VPTERNLOGD_BCST(U8(0x96), *key, a, dst)
	g := mul(newest, ops[newest])
	VPXORD(g, dst, dst)
	for _, t := range []reg.VecPhysical{a, b, c, d, e, f, g, h} {
		p.Put(t)
	}
}

// keyByte is the broadcast operand of byte i of the round key at kp: the
// key schedule holds each byte four times in a dword, 16 dwords a round.
func keyByte(kp reg.Register, i int) *Mem {
	return &Mem{Base: kp, Disp: 4 * i}
}

// linear emits L (R sixteen times) or L^-1 (R^-1 sixteen times) on the
// byte-sliced state s (s[i] holds byte i), injecting the round key
// material at kp, and returns the new state. R makes ℓ of all sixteen
// bytes the new byte 0 and moves byte i to i+1, byte 15 out: the move is
// a renaming. R^-1 moves byte i to i-1 and makes ℓ(bytes 1..15, byte 0)
// the new byte 15. Each step XORs one key byte into its new byte, the one
// at the position where the new byte ends; the new byte feeds the later
// steps, so the key schedule hands over not the round key K but the bytes
// that make the result L(x) XOR K (kuznyechik_amd64.go, inject). After
// sixteen steps the renaming has come full circle: the state is in the
// registers it started in, so the rounds can loop.
func linear(s [16]reg.VecPhysical, inv bool, kp reg.Register, p *xtsgen.Pool) [16]reg.VecPhysical {
	start := s
	for step := range 16 {
		var ops [16]reg.VecPhysical
		var keyAt, newest int
		if !inv {
			ops = s
			keyAt = 15 - step // where this step's byte ends up
		} else {
			copy(ops[:15], s[1:])
			ops[15] = s[0]
			keyAt, newest = step, 14
		}
		ell(ops, newest, keyByte(kp, keyAt), p)
		var next [16]reg.VecPhysical
		if !inv {
			next[0] = s[15]
			copy(next[1:], s[:15])
		} else {
			copy(next[:15], s[1:])
			next[15] = s[0]
		}
		s = next
	}
	if s != start {
		panic("kuznyechik generator: L leaves the state in other registers")
	}
	return s
}

const signature = "func(ks *[10][16]uint32, dst, src []byte, tweakLo, tweakHi uint64) (lo, hi uint64)"

// genXTS emits one routine: XTS over len(src)/512 groups of 32 blocks
// (two groups per loop iteration, then an odd one alone), the first block
// with tweak T = (tweakLo, tweakHi), returning the tweak of the block
// after the last one processed. One copy of the transposition and of one
// round serves both the 64-block loop and the 32-block tail, so that the
// routine's hot code stays small (about 2,900 bytes a round).
func genXTS(name string, dec bool) {
	keys := "K_1 and the material of K_2..K_10"
	if dec {
		keys = "the material of L^-1(K_10), ..., L^-1(K_2), and K_1"
	}
	xtsgen.Begin(name, signature, name+" "+xtsgen.Verb(dec)+" len(src)/512 groups of 32 blocks with Kuznyechik-XTS",
		"(AVX-512F/BW/VL/VBMI, GFNI, VPCLMULQDQ), byte-sliced, 64 blocks at a time:",
		"block j of src uses the tweak T·x^j, T given as two little-endian words;",
		"it returns T·x^(32·groups). ks holds "+keys+"",
		"(kuznyechikKeySchedule), each byte repeated in a dword; len(dst) >= len(src),",
		"dst and src the same memory or disjoint.")
	ks := Load(Param("ks"), GP64())
	dst, src := xtsgen.Buffers()
	n, lo, hi := xtsgen.Groups(9) // groups of 32 blocks; none: T back
	Comment("The S-box into Z16-Z19; Z20 = T·x^0..3 (a lane each).")
	tab := piMem
	if dec {
		tab = piInvMem
	}
	for i, z := range sbox {
		VMOVDQU64(tab.Offset(64*i), z)
	}
	tweak.LanesFromArgs(tweakBase, tweakTemps[0], tweakTemps[1])

	odd := xtsgen.SplitPairs(n)
	half, kp, rounds := GP64(), GP64(), GP64()

	Label("loop")
	XORQ(half, half)
	load(src, 16)
	JMP(LabelRef("rounds"))

	Label("tail")
	Comment("An odd 32 blocks: the same code with the upper 32 zero.")
	TESTQ(odd, odd)
	JZ(LabelRef("done"))
	MOVQ(U32(1), half)
	load(src, 8)

	Label("rounds")
	back := rounds16(ks, kp, rounds, dec)
	TESTQ(half, half)
	JNZ(LabelRef("store8"))
	store(dst, back, 16)
	ADDQ(U32(1024), src)
	ADDQ(U32(1024), dst)
	DECQ(n)
	JNZ(LabelRef("loop"))
	JMP(LabelRef("tail"))

	Label("store8")
	store(dst, back, 8)

	Label("done")
	Comment("Return the next tweak; zero every vector and mask register.")
	xtsgen.ReturnTweak(tweakBase, lo, hi)
	var masks []reg.OpmaskPhysical // they held the S-box inputs' top bits
	for _, k := range kmasks {
		masks = append(masks, k[0], k[1])
	}
	xtsgen.ZeroAndRet(masks...)
}

// stateRegs are the sixteen registers the blocks are loaded into; the
// pool hands them out in the same order every time.
func stateRegs() (*xtsgen.Pool, [16]reg.VecPhysical) {
	p := newPool()
	var l [16]reg.VecPhysical
	for k := range l {
		l[k] = p.Get()
	}
	return p, l
}

// load emits the loading of 4·nreg blocks (nreg 16 or 8) at src XOR their
// tweaks T·x^j, into stateRegs in block order, four a register; the
// registers past nreg are zeroed.
func load(src reg.Register, nreg int) {
	Comment(fmt.Sprintf("Load %d blocks XOR their tweaks.", 4*nreg))
	_, l := stateRegs()
	VMOVDQA64(tweakBase, tweakRun)
	for k := range 16 {
		if k >= nreg {
			x := l[k].AsX()
			VPXORD(x, x, x)
			continue
		}
		VPXORD(Mem{Base: src, Disp: 64 * k}, tweakRun, l[k])
		if k < nreg-1 {
			mulx(tweakRun, 4)
		}
	}
}

// rounds16 emits, on the state load left, the transposition to bytes,
// the cipher (a loop over the nine rounds, kp walking the round keys,
// count in rounds) and the transposition back; it returns the registers
// that hold each group of four blocks.
func rounds16(ks, kp, rounds reg.Register, dec bool) [16]reg.VecPhysical {
	p, l := stateRegs()
	pl := makePlan()
	Comment("Transpose to bytes: a register per byte position.")
	out := transposeNet(l, p)
	var s [16]reg.VecPhysical
	for i := range 16 {
		s[i] = out[pl.sliceOf[i]]
	}
	MOVQ(ks, kp)
	MOVQ(U32(9), rounds)
	if !dec {
		Comment("K_1, then nine rounds of S, L and the next key.")
		for i := range 16 {
			VPXORD_BCST(*keyByte(kp, i), s[i], s[i])
		}
		ADDQ(U8(64), kp)
		Label(loopLabel(dec))
		subBytes(s)
		s = linear(s, false, kp, p)
	} else {
		Comment("Nine rounds of L^-1 with the next key and S^-1, then K_1.")
		Label(loopLabel(dec))
		s = linear(s, true, kp, p)
		subBytes(s)
	}
	ADDQ(U8(64), kp)
	DECQ(rounds)
	JNZ(LabelRef(loopLabel(dec)))
	if dec {
		for i := range 16 {
			VPXORD_BCST(*keyByte(kp, i), s[i], s[i])
		}
	}
	Comment("Transpose back.")
	back := transposeNet(s, p)
	var groups [16]reg.VecPhysical
	for k := range 16 {
		groups[k] = back[pl.groupOf[k]]
	}
	return groups
}

func loopLabel(dec bool) string {
	if dec {
		return "decround"
	}
	return "encround"
}

// store emits the XOR of the tweaks into the first nreg groups and their
// store at dst; Z20 advances by x^(4·nreg).
func store(dst reg.Register, groups [16]reg.VecPhysical, nreg int) {
	Comment(fmt.Sprintf("XOR the tweaks of %d blocks, store.", 4*nreg))
	VMOVDQA64(tweakBase, tweakRun)
	for k := range nreg {
		y := groups[k]
		VPXORD(tweakRun, y, y)
		VMOVDQU64(y, Mem{Base: dst, Disp: 64 * k})
		mulx(tweakRun, 4)
	}
	VMOVDQA64(tweakRun, tweakBase)
}
