// Command argon2 generates luks/internal/argon2/zblamka_amd64.s: the Argon2
// compression function G (RFC 9106 section 3.5, BlaMka) on ymm registers,
// in an AVX2 version and one that rotates with AVX-512VL's VPRORQ.
//
// Run it from _asm: `go run ./argon2 -out ../luks/internal/argon2/zblamka_amd64.s`,
// or `go generate ./...` there.
//
// # Layout
//
// A block is 128 64-bit words, eight rows of 16; P runs first on each row,
// then on each column, column c being the word pairs (2c, 2c+1) of the
// eight rows. A ymm register holds four words, so the 16 words P mixes are
// four registers A, B, C, D (words 0-3, 4-7, 8-11, 12-15 of its input), GB
// runs on the four lanes side by side, and the diagonal step rotates the
// lanes of B, C and D by one, two and three (VPERMQ) and back.
//
// Two rows (or columns) go through P together, eight registers of state,
// for instruction-level parallelism. The row pass writes its result to the
// caller's work block in column order — column c's input to P as 16
// consecutive words — which two rows give with one VPERM2I128 per register
// and column: row 2k's and row 2k+1's pairs c are the k-th register of
// column c. The column pass reads that back four registers at a time and
// undoes the interleaving the same way when it writes the output, XORed
// with x and y (R), and with the old output in passes after the first.
//
// Nothing goes on the stack; VZEROALL clears every vector register before
// returning, so no password-derived state is left in them.
package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

//go:generate go run . -out ../../luks/internal/argon2/zblamka_amd64.s

// The shuffle masks for the byte-aligned right rotations by 24 and 16 bits
// (VPSHUFB works within 128-bit lanes: the same 16 bytes twice).
var rotr24, rotr16 Mem

func main() {
	// No Package(): loading luks/internal/argon2 would need x/crypto in
	// this module, and the signatures use only built-in types.
	ConstraintExpr("!purego")

	rotr24 = byteRotation("argon2Rotr24", 3)
	rotr16 = byteRotation("argon2Rotr16", 2)

	genBlamka("blamkaAVX2", false)
	genBlamka("blamkaAVX512VL", true)

	Generate()
}

// byteRotation emits the VPSHUFB mask that rotates every 64-bit word right
// by n bytes: result byte j is source byte (j+n) mod 8 of the same word.
func byteRotation(name string, n int) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	for word := 0; word < 4; word++ {
		var v uint64
		for j := 0; j < 8; j++ {
			v |= uint64((j+n)%8+8*(word%2)) << (8 * j)
		}
		DATA(8*word, U64(v))
	}
	return m
}

// state is the four registers A, B, C, D of one P.
type state [4]VecPhysical

// gen holds what the emitters share.
type gen struct {
	evex           bool     // rotate with VPRORQ (AVX-512VL)
	sets           [2]state // the two P's in flight
	temps          [2]VecPhysical
	mask24, mask16 VecPhysical // rotr24, rotr16 when !evex
}

func genBlamka(name string, evex bool) {
	TEXT(name, NOSPLIT, "func(out, x, y, tmp *[128]uint64, xor bool)")
	Doc(name+" is the compression function G: out = P-columns(P-rows(x XOR y)) XOR x XOR y,",
		"further XORed with the old out if xor is set. tmp is a work block; out may",
		"be x or y. See blamka_amd64.go.")
	g := gen{
		evex:   evex,
		sets:   [2]state{{Y0, Y1, Y2, Y3}, {Y4, Y5, Y6, Y7}},
		temps:  [2]VecPhysical{Y8, Y9},
		mask24: Y14,
		mask16: Y15,
	}
	out, x, y, tmp := RAX, RBX, RCX, RDX
	Load(Param("out"), out)
	Load(Param("x"), x)
	Load(Param("y"), y)
	Load(Param("tmp"), tmp)
	xorFlag, err := Param("xor").Resolve()
	if err != nil {
		panic(err)
	}
	if !evex {
		VMOVDQU(rotr24, g.mask24)
		VMOVDQU(rotr16, g.mask16)
	}
	word := func(base Register, w int) Mem { return Mem{Base: base, Disp: 8 * w} }

	Comment("Rows, two at a time: R = x XOR y, P, stored in column order to tmp.")
	for k := 0; k < 4; k++ {
		for s, set := range g.sets {
			row := 2*k + s
			for v, r := range set {
				VMOVDQU(word(x, 16*row+4*v), r)
				VPXOR(word(y, 16*row+4*v), r, r)
			}
		}
		g.permute()
		// Register v of row 2k+s holds the row's pairs 2v (low half)
		// and 2v+1 (high half); column c's register k is (row 2k's
		// pair c, row 2k+1's pair c).
		for v := 0; v < 4; v++ {
			lo, hi := g.temps[0], g.temps[1]
			VPERM2I128(U8(0x20), g.sets[1][v], g.sets[0][v], lo)
			VPERM2I128(U8(0x31), g.sets[1][v], g.sets[0][v], hi)
			VMOVDQU(lo, word(tmp, 16*(2*v)+4*k))
			VMOVDQU(hi, word(tmp, 16*(2*v+1)+4*k))
		}
	}

	Comment("Columns, two at a time, from tmp; out = result XOR x XOR y (XOR out).")
	for m := 0; m < 4; m++ {
		for s, set := range g.sets {
			col := 2*m + s
			for v, r := range set {
				VMOVDQU(word(tmp, 16*col+4*v), r)
			}
		}
		g.permute()
		// Register k of columns 2m and 2m+1 holds their pairs of rows
		// 2k (low halves) and 2k+1 (high halves): words 4m..4m+3 of
		// those rows.
		emit := func(xor bool) {
			for k := 0; k < 4; k++ {
				lo, hi := g.temps[0], g.temps[1]
				VPERM2I128(U8(0x20), g.sets[1][k], g.sets[0][k], lo)
				VPERM2I128(U8(0x31), g.sets[1][k], g.sets[0][k], hi)
				for i, t := range []VecPhysical{lo, hi} {
					w := 16*(2*k+i) + 4*m
					VPXOR(word(x, w), t, t)
					VPXOR(word(y, w), t, t)
					if xor {
						VPXOR(word(out, w), t, t)
					}
					VMOVDQU(t, word(out, w))
				}
			}
		}
		xorLabel := fmt.Sprintf("%s_xor%d", name, m)
		doneLabel := fmt.Sprintf("%s_done%d", name, m)
		CMPB(xorFlag.Addr, U8(0))
		JNE(LabelRef(xorLabel))
		emit(false)
		JMP(LabelRef(doneLabel))
		Label(xorLabel)
		emit(true)
		Label(doneLabel)
	}
	VZEROALL()
	RET()
}

// permute emits P on both sets: GB on the columns of the 4x4 word matrix,
// the diagonal rotation, GB again, and the rotation back.
func (g *gen) permute() {
	g.mix()
	g.rotateLanes(0x39, 0x4e, 0x93)
	g.mix()
	g.rotateLanes(0x93, 0x4e, 0x39)
}

// rotateLanes permutes the 64-bit lanes of B, C and D of both sets with
// VPERMQ's selectors: lane i of the result is lane (imm>>2i)&3 of the source.
func (g *gen) rotateLanes(b, c, d uint8) {
	for s := range g.sets {
		set := g.sets[s]
		VPERMQ(U8(b), set[1], set[1])
		VPERMQ(U8(c), set[2], set[2])
		VPERMQ(U8(d), set[3], set[3])
	}
}

// mix emits GB on the four lanes of both sets:
//
//	a = a + b + 2*lo(a)*lo(b); d = (d ^ a) >>> 32
//	c = c + d + 2*lo(c)*lo(d); b = (b ^ c) >>> 24
//	a = a + b + 2*lo(a)*lo(b); d = (d ^ a) >>> 16
//	c = c + d + 2*lo(c)*lo(d); b = (b ^ c) >>> 63
func (g *gen) mix() {
	for _, rot := range [][2]int{{32, 24}, {16, 63}} {
		g.addMul(0, 1)
		g.xorRotate(3, 0, rot[0])
		g.addMul(2, 3)
		g.xorRotate(1, 2, rot[1])
	}
}

// addMul emits dst += src + 2*lo32(dst)*lo32(src) in both sets
// (VPMULUDQ multiplies the low 32 bits of each 64-bit lane).
func (g *gen) addMul(dst, src int) {
	for s := range g.sets {
		d, a, t := g.sets[s][dst], g.sets[s][src], g.temps[s]
		VPMULUDQ(a, d, t)
		VPADDQ(a, d, d)
		VPADDQ(t, t, t)
		VPADDQ(t, d, d)
	}
}

// xorRotate emits dst = (dst ^ src) >>> n in both sets.
func (g *gen) xorRotate(dst, src, n int) {
	for s := range g.sets {
		d, t := g.sets[s][dst], g.temps[s]
		VPXOR(g.sets[s][src], d, d)
		if g.evex {
			VPRORQ(U8(n), d, d)
			continue
		}
		switch n {
		case 32:
			VPSHUFD(U8(0xb1), d, d)
		case 24:
			VPSHUFB(g.mask24, d, d)
		case 16:
			VPSHUFB(g.mask16, d, d)
		case 63:
			// x >>> 63 = x <<< 1 = (x + x) | (x >> 63).
			VPSRLQ(U8(63), d, t)
			VPADDQ(d, d, d)
			VPXOR(t, d, d)
		default:
			panic("no rotation by " + fmt.Sprint(n))
		}
	}
}
