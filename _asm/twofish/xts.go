package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/fastxts/xts/_asm/internal/gf2p8"
	"github.com/fastxts/xts/_asm/internal/xtsgen"
)

// The key schedule the routines read through ks (296 words, filled by
// twofishKeySchedule in package xts): the 40 subkey words K0..K39, then
// the four key-dependent S-boxes s0..s3, 256 bytes each.
const (
	sboxOffset = 4 * 40
	ksWords    = 40 + 4*256/4
)

// Constants: the tweak arithmetic's (xtsgen.Tweak: the XTS polynomial and
// the per-lane shift counts); the VPERMI2B indices of the byte gathers;
// the GFNI matrices of the MDS multipliers.
var (
	tweak                                        xtsgen.Tweak
	gatherMem, scatterMem, mulEF, mul5B, signMat Mem
)

// gatherPairs are the byte pairs (u, v) of the four forward gathers: from
// two word registers A, B (16 dwords each) a gather makes
// [A.byte u, B.byte u, A.byte v, B.byte v], 16 bytes each. R0 uses (0,1)
// and (2,3); R1 is rotated left by 8 bits first, so byte j of the g input
// is its byte j-1: (3,0) and (1,2).
var gatherPairs = [4][2]int{{0, 1}, {2, 3}, {3, 0}, {1, 2}}

func genTwofishData() {
	tweak = xtsgen.TweakData("twofish")
	gatherMem = GLOBL("twofishGather", RODATA|NOPTR)
	for g, p := range gatherPairs {
		for i := range 64 {
			seg, d := i/16, i%16
			idx := 4*d + p[seg/2] + 64*(seg%2)
			DATA(64*g+i, U8(uint8(idx)))
		}
	}
	// The scatters undo the gathers: Z_i holds byte i of T0 (blocks 0-15,
	// 16-31) and of T1 (the same) in its four lanes. After VSHUFI64X2
	// pairs the lanes, M01 = [Z0.l, Z0.l', Z1.l, Z1.l'] and M23 likewise
	// (l = 0 for T0, 2 for T1); word d of the first register of the pair
	// takes byte i from lane 0 (i even) or 2 (i odd) of M01 or M23, the
	// second register from the lane after.
	scatterMem = GLOBL("twofishScatter", RODATA|NOPTR)
	for h := range 2 {
		for b := range 64 {
			d, i := b/4, b%4
			idx := 64*(i/2) + 32*(i%2) + 16*h + d
			DATA(64*h+b, U8(uint8(idx)))
		}
	}
	mulEF = GLOBL("twofishMulEF", RODATA|NOPTR)
	DATA(0, U64(gf2p8.MulMatrix(0xEF, mdsPoly)))
	mul5B = GLOBL("twofishMul5B", RODATA|NOPTR)
	DATA(0, U64(gf2p8.MulMatrix(0x5B, mdsPoly)))
	// Every row selects bit 7: each byte becomes 0xFF or 0 by its top bit.
	signMat = GLOBL("twofishSign", RODATA|NOPTR)
	DATA(0, U64(signMatrix))
}

// Register plan: Z0-Z7 the state of one group of 32 blocks (word w of
// blocks 0-15 and 16-31, two registers per word, renamed by the Feistel
// swaps), Z8-Z15 a second group's, Z16-Z23 temporaries, Z24-Z31 half of
// each S-box: s_j's entries 0-63 and 128-191 in Z24+2j and Z25+2j. The
// other halves (64-127, 192-255) are VPERMI2B's memory operand, read
// whole from the key schedule at a fixed address: no address depends on
// data. That leaves room for two groups whose rounds interleave; one
// group's round is a chain of dependent permutes and GFNI operations, so
// the core runs the other's beside it.
var (
	tmp  = xtsgen.Z[16:24]
	sbox = xtsgen.Z[24:32]
)

// sboxTables returns the two VPERMI2B table pairs of s_j: entries 0-127
// (register, memory) and 128-255.
func sboxTables(ks reg.Register, j int) (loReg reg.VecPhysical, loMem Mem, hiReg reg.VecPhysical, hiMem Mem) {
	return sbox[2*j], Mem{Base: ks, Disp: sboxOffset + 256*j + 64}, sbox[2*j+1], Mem{Base: ks, Disp: sboxOffset + 256*j + 192}
}

// transpose transposes the 4x4 dwords of each 128-bit lane across the
// four registers (its own inverse), with Z16-Z19 as temporaries.
func transpose(z [4]reg.VecPhysical) {
	xtsgen.Transpose4x4(z, [4]reg.VecPhysical(tmp[:4]))
}

const signature = "func(ks *[296]uint32, dst, src []byte, tweakLo, tweakHi uint64) (lo, hi uint64)"

// genTwofishXTS emits one routine: XTS over len(src)/512 groups of 32
// blocks, the first block with tweak T = (tweakLo, tweakHi), returning the
// tweak of the block after the last one processed.
func genTwofishXTS(name string, dec bool) {
	xtsgen.Begin(name, signature, name+" "+xtsgen.Verb(dec)+" len(src)/512 groups of 32 blocks with Twofish-XTS",
		"(AVX-512F/BW/VL/VBMI, GFNI, VPCLMULQDQ): block j of src uses the tweak",
		"T·x^j, T given as two little-endian words; it returns T·x^(32·groups).",
		"ks holds the subkeys K0..K39 and the S-boxes s0..s3 (twofishKeySchedule);",
		"len(dst) >= len(src), dst and src the same memory or disjoint. The",
		"tweaks pass through dst before the results overwrite them.")
	ks := Load(Param("ks"), GP64())
	dst, src := xtsgen.Buffers()
	// Not xtsgen.Groups: the tweak is loaded on every path, as it lives
	// in (lo, hi) between the groups (the other generators keep it in a
	// zmm register and load it on the empty path only).
	n := Load(Param("src").Len(), GP64())
	lo := Load(Param("tweakLo"), GP64())
	hi := Load(Param("tweakHi"), GP64())
	SHRQ(U8(9), n) // groups of 32 blocks
	JNZ(LabelRef("start"))
	xtsgen.Result(lo, hi)
	RET()

	Label("start")
	Comment("Half of each S-box stays in Z24-Z31 for the whole call.")
	for j := range 4 {
		loReg, _, hiReg, _ := sboxTables(ks, j)
		VMOVDQU64(Mem{Base: ks, Disp: sboxOffset + 256*j}, loReg)
		VMOVDQU64(Mem{Base: ks, Disp: sboxOffset + 256*j + 128}, hiReg)
	}
	odd := xtsgen.SplitPairs(n)

	Label("loop")
	groups(2, ks, src, dst, lo, hi, dec)
	ADDQ(U32(1024), src)
	ADDQ(U32(1024), dst)
	DECQ(n)
	JNZ(LabelRef("loop"))

	Label("tail")
	Comment("An odd group of 32 blocks alone.")
	TESTQ(odd, odd)
	JZ(LabelRef("done"))
	groups(1, ks, src, dst, lo, hi, dec)

	Label("done")
	Comment("Return the next tweak; zero every vector register.")
	xtsgen.Result(lo, hi)
	xtsgen.ZeroAndRet()
}

// groups emits XTS over ng (1 or 2) groups of 32 blocks at src and dst,
// the first block's tweak in (lo, hi), which it advances past them.
func groups(ng int, ks, src, dst, lo, hi reg.Register, dec bool) {
	Comment(fmt.Sprintf("Tweaks: T·x^0..3 from (lo, hi); dst takes T·x^0..%d,", 32*ng-1),
		"the state registers the source blocks XOR their tweaks.")
	// (lo, hi) go in and out through X15, free until the loads: VMOVQ,
	// VPINSRQ and VPEXTRQ on xmm0-15 are VEX (AVX); on xmm16-31 they would
	// be EVEX, and VPINSRQ/VPEXTRQ there need AVX-512DQ.
	tw0, tw, c, d := tmp[4], tmp[5], tmp[6], tmp[7]
	io := xtsgen.Z[15]
	VMOVQ(lo, io.AsX())
	VPINSRQ(U8(1), hi, io.AsX(), io.AsX())
	VSHUFI64X2(U8(0), io, io, tw0)
	tweak.Lanes(tw0, tw0, c, d)
	Comment(fmt.Sprintf("The next tweak: T·x^%d.", 32*ng))
	VMOVDQA64(tw0, io)
	for range ng {
		tweak.MulX(io, io, 32, c, d)
	}
	VMOVQ(io.AsX(), lo)
	VPEXTRQ(U8(1), io.AsX(), hi)
	tweak.XorPark(src, dst, 0, xtsgen.Z[:8*ng], tw0, tw, c, d)

	Comment("Words: R[w][h] holds word w of blocks 16h..16h+15 of a group; whitening.")
	R := make([][4][2]reg.VecPhysical, ng)
	for g := range ng {
		base := 8 * g
		transpose([4]reg.VecPhysical{xtsgen.Z[base], xtsgen.Z[base+1], xtsgen.Z[base+2], xtsgen.Z[base+3]})
		transpose([4]reg.VecPhysical{xtsgen.Z[base+4], xtsgen.Z[base+5], xtsgen.Z[base+6], xtsgen.Z[base+7]})
		for w := range 4 {
			R[g][w] = [2]reg.VecPhysical{xtsgen.Z[base+w], xtsgen.Z[base+4+w]}
		}
	}
	in := 0 // whitening words: K0..K3 in, K4..K7 out (swapped to decrypt)
	out := 4
	if dec {
		in, out = 4, 0
	}
	for g := range ng {
		for w := range 4 {
			for h := range 2 {
				VPXORD_BCST(Mem{Base: ks, Disp: 4 * (in + w)}, R[g][w][h], R[g][w][h])
			}
		}
	}
	for i := range 16 {
		r := i
		if dec {
			r = 15 - i
		}
		for g := range ng {
			Comment(fmt.Sprintf("Round %d, group %d.", r, g))
			round(&R[g], ks, r, dec)
			R[g][0], R[g][1], R[g][2], R[g][3] = R[g][2], R[g][3], R[g][0], R[g][1]
		}
	}

	Comment("Undo the last swap, whiten, back to blocks, XOR the tweaks, store.")
	for g := range ng {
		for h := range 2 {
			z := [4]reg.VecPhysical{R[g][2][h], R[g][3][h], R[g][0][h], R[g][1][h]}
			for w := range 4 {
				VPXORD_BCST(Mem{Base: ks, Disp: 4 * (out + w)}, z[w], z[w])
			}
			transpose(z)
			xtsgen.XorStore(dst, 512*g+256*h, z[:])
		}
	}
}

// round emits one Feistel round on the 32 blocks: F from R0 and R1, into
// R2 and R3 (the caller swaps).
func round(R *[4][2]reg.VecPhysical, ks reg.Register, r int, dec bool) {
	t := tmp
	// Gathers: P = [R0a.b0, R0b.b0, R0a.b1, R0b.b1], P1 = R1's (3,0), then
	// Y0, Y1 = their lane pairs; Q, Q1 and Y2, Y3 likewise.
	gather := func(g int, w [2]reg.VecPhysical, dst reg.VecPhysical) {
		VMOVDQU64(gatherMem.Offset(64*g), dst)
		VPERMI2B(w[1], w[0], dst) // tables: w[0] bytes 0-63, w[1] 64-127
	}
	y := [4]reg.VecPhysical{t[2], t[3], t[4], t[5]}
	gather(0, R[0], t[0])
	gather(2, R[1], t[1])
	VSHUFI64X2(U8(0x44), t[1], t[0], y[0])
	VSHUFI64X2(U8(0xEE), t[1], t[0], y[1])
	gather(1, R[0], t[0])
	gather(3, R[1], t[1])
	VSHUFI64X2(U8(0x44), t[1], t[0], y[2])
	VSHUFI64X2(U8(0xEE), t[1], t[0], y[3])

	// S-boxes: VPERMI2B reads an index's low 7 bits, so one lookup in
	// entries 0-127 and one in 128-255 (on a copy of the indices), then a
	// bitwise select by the index's top bit, which a GFNI affine map
	// spreads over its byte. The two lookups and the select mask run side
	// by side: a shorter chain than a masked lookup after a mask move.
	for j := range 4 {
		hi, sel := t[0], t[1]
		if j%2 == 1 {
			hi, sel = t[6], t[7]
		}
		loReg, loMem, hiReg, hiMem := sboxTables(ks, j)
		VGF2P8AFFINEQB_BCST(U8(0), signMat, y[j], sel)
		VMOVDQA64(y[j], hi)
		VPERMI2B(loMem, loReg, y[j])
		VPERMI2B(hiMem, hiReg, hi)
		VPTERNLOGD(U8(0xD8), sel, hi, y[j]) // sel ? hi : y
	}

	// MDS: z0 = y0 + EF·y1 + 5B·(y2+y3), z1 = 5B·y0 + EF·(y1+y2) + y3,
	// z2 = EF·(y0+y3) + 5B·y1 + y2, z3 = EF·(y0+y2) + y1 + 5B·y3.
	z := [4]reg.VecPhysical{t[0], t[1], t[6], t[7]}
	ef := func(src, dst reg.VecPhysical) { VGF2P8AFFINEQB_BCST(U8(0), mulEF, src, dst) }
	fb := func(src, dst reg.VecPhysical) { VGF2P8AFFINEQB_BCST(U8(0), mul5B, src, dst) }
	VPXORD(y[3], y[2], z[0])
	fb(z[0], z[0])
	ef(y[1], z[1])
	VPTERNLOGD(U8(0x96), y[0], z[1], z[0])
	VPXORD(y[2], y[1], z[1])
	ef(z[1], z[1])
	fb(y[0], z[2])
	VPTERNLOGD(U8(0x96), y[3], z[2], z[1])
	VPXORD(y[3], y[0], z[2])
	ef(z[2], z[2])
	fb(y[1], z[3])
	VPTERNLOGD(U8(0x96), y[2], z[3], z[2])
	VPXORD(y[2], y[0], z[3])
	ef(z[3], z[3])
	fb(y[3], y[0])
	VPTERNLOGD(U8(0x96), y[1], y[0], z[3])

	// Scatter back to words: M01 and M23 for T0 (lanes 0, 1) and T1
	// (lanes 2, 3), then one VPERMI2B per word register.
	m := [4]reg.VecPhysical{t[2], t[3], t[4], t[5]} // M01lo, M23lo, M01hi, M23hi
	VSHUFI64X2(U8(0x44), z[1], z[0], m[0])
	VSHUFI64X2(U8(0x44), z[3], z[2], m[1])
	VSHUFI64X2(U8(0xEE), z[1], z[0], m[2])
	VSHUFI64X2(U8(0xEE), z[3], z[2], m[3])
	T0 := [2]reg.VecPhysical{t[0], t[1]}
	T1 := [2]reg.VecPhysical{t[6], t[7]}
	u := [2]reg.VecPhysical{t[2], t[3]} // free once the scatters are done
	for h := range 2 {
		VMOVDQU64(scatterMem.Offset(64*h), T0[h])
		VPERMI2B(m[1], m[0], T0[h])
		VMOVDQU64(scatterMem.Offset(64*h), T1[h])
		VPERMI2B(m[3], m[2], T1[h])
	}

	// PHT and the Feistel step.
	k0 := Mem{Base: ks, Disp: 4 * (2*r + 8)}
	k1 := Mem{Base: ks, Disp: 4 * (2*r + 9)}
	// F0 = (T0+T1) + K0 and F1 = (T0+T1) + (T1+K1): two adds deep.
	for h := range 2 {
		VPADDD_BCST(k1, T1[h], u[h])
		VPADDD(T1[h], T0[h], T0[h])
		VPADDD(u[h], T0[h], T1[h])
		VPADDD_BCST(k0, T0[h], T0[h])
		r2, r3 := R[2][h], R[3][h]
		if !dec {
			VPXORD(T0[h], r2, r2)
			VPRORD(U8(1), r2, r2)
			VPROLD(U8(1), r3, r3)
			VPXORD(T1[h], r3, r3)
		} else {
			VPROLD(U8(1), r2, r2)
			VPXORD(T0[h], r2, r2)
			VPXORD(T1[h], r3, r3)
			VPRORD(U8(1), r3, r3)
		}
	}
}
