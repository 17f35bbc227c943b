package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/fastxts/xts/_asm/internal/xtsgen"
)

// The single-block routine: the XTS engine encrypts a unit's tweak, and
// the blocks after its last whole group, one block at a time. Through the
// 64-block routine a block costs a whole iteration (about 110 ns, the
// round-to-round latency of 16 GFNI instructions a round); here a half
// block is one xmm register, its eight bytes in both quadwords, and a
// round is four GFNI instructions in two independent pairs: W = (SBOX1,
// SBOX2) and Z = (SBOX3, SBOX4) of all eight bytes (a matrix per
// quadword), then P picks each output's terms from W and Z with eight
// VPSHUFB and XORs them in a VPTERNLOGQ tree. The S-boxes' output
// constants (which differ between the quadwords of one instruction) are
// left out and their image under P, c8, goes into the XOR of the folded
// subkey.

var (
	bPreW, bPostW, bPreZ, bPostZ Mem
	bShufW, bShufZ               [4]Mem
	bFLRot, bFLMove              [2]Mem
	bC8                          Mem
)

// pRows are the terms of P (RFC 3713, 2.4.1): y_i is the XOR of t_j for
// j in pRows[i].
var pRows = [8][]int{
	{0, 2, 3, 5, 6, 7}, {0, 1, 3, 4, 6, 7}, {0, 1, 2, 4, 5, 7}, {1, 2, 3, 4, 5, 6},
	{0, 1, 5, 6, 7}, {1, 2, 4, 6, 7}, {2, 3, 4, 5, 7}, {0, 3, 4, 5, 6},
}

func genBlockData(g gfni) {
	for n := 1; n <= 4; n++ {
		if g.pre[n].imm != g.pre[1].imm {
			panic("camellia generator: the S-boxes' input constants differ")
		}
	}
	pair := func(name string, a, b affine) Mem {
		m := GLOBL(name, RODATA|NOPTR)
		DATA(0, U64(a.qword()))
		DATA(8, U64(b.qword()))
		return m
	}
	bPreW = pair("camelliaBlkPreW", g.pre[1], g.pre[2])
	bPostW = pair("camelliaBlkPostW", g.post[1], g.post[2])
	bPreZ = pair("camelliaBlkPreZ", g.pre[3], g.pre[4])
	bPostZ = pair("camelliaBlkPostZ", g.post[3], g.post[4])
	// Where t_j lies: W for SBOX1 and SBOX2, Z for SBOX3 and SBOX4; the
	// high quadword for SBOX2 and SBOX4.
	inW := func(j int) bool { return sboxOfByte[j] <= 2 }
	off := func(j int) byte {
		if n := sboxOfByte[j]; n == 2 || n == 4 {
			return byte(8 + j)
		}
		return byte(j)
	}
	shuf := func(name string, w bool) [4]Mem {
		var ms [4]Mem
		for k := range 4 {
			ms[k] = GLOBL(fmt.Sprintf("%s%d", name, k), RODATA|NOPTR)
			var idx [16]byte
			for i := range 8 {
				var terms []int
				for _, j := range pRows[i] {
					if inW(j) == w {
						terms = append(terms, j)
					}
				}
				idx[i] = 0x80
				if k < len(terms) {
					idx[i] = off(terms[k])
				}
				idx[8+i] = idx[i]
			}
			for i := range 16 {
				DATA(i, U8(idx[i]))
			}
		}
		return ms
	}
	bShufW = shuf("camelliaBlkShufW", true)
	bShufZ = shuf("camelliaBlkShufZ", false)
	// c8 = P(the S-boxes' output constants by byte), in both quadwords.
	var e [8]byte
	for j := range 8 {
		e[j] = g.post[sboxOfByte[j]].imm
	}
	bC8 = GLOBL("camelliaBlkC8", RODATA|NOPTR)
	var c8 [8]byte
	for i := range 8 {
		for _, j := range pRows[i] {
			c8[i] ^= e[j]
		}
	}
	for i := range 16 {
		DATA(i, U8(c8[i%8]))
	}
	// FL's rotation: byte 4+b of the result is u_b (t_b<<1) and v_(b+1)
	// (t_(b+1)>>7); the OR's move: byte b is byte 4+b.
	idx := func(name string, f func(o int) byte) Mem {
		m := GLOBL(name, RODATA|NOPTR)
		for o := range 16 {
			DATA(o, U8(f(o)))
		}
		return m
	}
	bFLRot[0] = idx("camelliaBlkRotU", func(o int) byte {
		if o%8 >= 4 {
			return byte(o - 4)
		}
		return 0x80
	})
	bFLRot[1] = idx("camelliaBlkRotV", func(o int) byte {
		if b := o % 8; b >= 4 {
			return byte(o/8*8 + (b-4+1)%4)
		}
		return 0x80
	})
	bFLMove[0] = idx("camelliaBlkMove", func(o int) byte {
		if o%8 < 4 {
			return byte(o + 4)
		}
		return 0x80
	})
}

// blkKey is entry i of the folded schedule, its eight bytes in order.
func blkKey(ks reg.Register, i int) Mem { return Mem{Base: ks, Disp: 8 * i} }

var xregs = []reg.VecPhysical{
	reg.X0, reg.X1, reg.X2, reg.X3, reg.X4, reg.X5, reg.X6, reg.X7,
	reg.X8, reg.X9, reg.X10, reg.X11, reg.X12, reg.X13, reg.X14, reg.X15,
}

// blkF XORs F(in) into out (in holds its subkey; out gets entry d and c8).
func blkF(ks reg.Register, d int, in, out, c8 reg.VecPhysical, t []reg.VecPhysical) {
	w, z := t[0], t[1]
	VPTERNLOGQ_BCST(xor3, blkKey(ks, d), c8, out)
	VGF2P8AFFINEQB(U8(gf.pre[1].imm), bPreW, in, w)
	VGF2P8AFFINEQB(U8(gf.pre[1].imm), bPreZ, in, z)
	VGF2P8AFFINEINVQB(U8(0), bPostW, w, w)
	VGF2P8AFFINEINVQB(U8(0), bPostZ, z, z)
	p := t[2:10]
	for k := range 4 {
		VPSHUFB(bShufW[k], w, p[k])
		VPSHUFB(bShufZ[k], z, p[4+k])
	}
	VPTERNLOGQ(xor3, p[2], p[1], p[0])
	VPTERNLOGQ(xor3, p[6], p[5], p[4])
	VPTERNLOGQ(xor3, p[7], p[3], out)
	VPTERNLOGQ(xor3, p[4], p[0], out)
}

// blkRotXor XORs (x AND k1) <<< 1 of bytes 0..3 into bytes 4..7 of x.
func blkRotXor(ks reg.Register, k int, x reg.VecPhysical, t []reg.VecPhysical) {
	a, u, v := t[0], t[1], t[2]
	VPANDQ_BCST(blkKey(ks, k), x, a)
	VPADDB(a, a, u)
	VGF2P8AFFINEQB_BCST(U8(0), shr7Mem, a, v)
	VPSHUFB(bFLRot[0], u, u)
	VPSHUFB(bFLRot[1], v, v)
	VPTERNLOGQ(xor3, v, u, x)
}

// blkOrXor XORs bytes 4..7 of x OR k2 into bytes 0..3 of x.
func blkOrXor(ks reg.Register, k int, x reg.VecPhysical, t []reg.VecPhysical) {
	a := t[0]
	VPORQ_BCST(blkKey(ks, k), x, a)
	VPSHUFB(bFLMove[0], a, a)
	VPXORQ(a, x, x)
}

const blockSignature = "func(ks *[40]uint64, rounds int, dst, src *[16]byte)"

// genCamelliaBlock emits camelliaBlockGFNI: one block, the folded
// schedule of foldCamelliaSchedule as eight bytes per entry in order.
func genCamelliaBlock(name string) {
	xtsgen.Begin(name, blockSignature, name+" encrypts or decrypts (by the schedule) the block src into dst",
		"with Camellia (GFNI, AVX-512VL), a half block per xmm register. ks is a",
		"folded schedule (foldCamelliaSchedule), each entry's bytes in order;",
		"rounds is 18 or 24; dst and src may be the same.")
	ks := Load(Param("ks"), GP64())
	rounds := Load(Param("rounds"), GP64())
	dst := Load(Param("dst"), GP64())
	src := Load(Param("src"), GP64())
	l, r, c8 := xregs[0], xregs[1], xregs[2]
	t := xregs[3:13]
	VPBROADCASTQ(Mem{Base: src}, l)
	VPBROADCASTQ(Mem{Base: src, Disp: 8}, r)
	VMOVDQU64(bC8, c8)
	VPXORQ_BCST(blkKey(ks, 0), l, l)
	VPXORQ_BCST(blkKey(ks, 1), r, r)
	six := func(g int) {
		for j := range 6 {
			if j%2 == 0 {
				blkF(ks, 2+8*g+j, l, r, c8, t)
			} else {
				blkF(ks, 2+8*g+j, r, l, c8, t)
			}
		}
	}
	six(0)
	for grp := 1; grp < 4; grp++ {
		if grp == 3 {
			CMPQ(rounds, U8(18))
			JEQ(LabelRef("last"))
		}
		Comment(fmt.Sprintf("FL and FL⁻¹ (entries %d, %d).", 8*grp, 8*grp+1))
		VPXORQ_BCST(blkKey(ks, 32+2*grp), r, r)
		blkRotXor(ks, 8*grp, l, t)
		blkOrXor(ks, 8*grp, l, t)
		blkOrXor(ks, 8*grp+1, r, t[3:])
		blkRotXor(ks, 8*grp+1, r, t[3:])
		VPXORQ_BCST(blkKey(ks, 33+2*grp), l, l)
		six(grp)
	}
	Label("last")
	VPXORQ_BCST(blkKey(ks, 32), r, r)
	VMOVQ(r, Mem{Base: dst})
	VMOVQ(l, Mem{Base: dst, Disp: 8})
	for _, x := range xregs[:13] {
		VPXORD(x, x, x)
	}
	VZEROUPPER()
	RET()
}
