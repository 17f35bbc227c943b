// Command argon2 generates internal/argon2/zblamka_amd64.s: the Argon2
// compression function G (RFC 9106 section 3.5, BlaMka) on ymm registers,
// in an AVX2 version and one that rotates with AVX-512VL's VPRORQ.
//
// Run it from _asm: `go run ./argon2 -out ../internal/argon2/zblamka_amd64.s`,
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
// GB is a chain of dependent multiplications, additions and rotations, so
// several rows (or columns) go through P together for instruction-level
// parallelism: two in the AVX2 version (eight registers of state, two
// temporaries, two shuffle masks), four in the AVX-512VL one (Y0-Y15 for
// state, temporaries in Y16-Y19; the rotations need no masks).
//
// The row pass writes its result to the caller's work block in column order
// — column c's input to P as 16 consecutive words — which pairs of rows
// give with one lane shuffle per register and column (VPERM2I128, or
// VSHUFI64X2 where Y16-Y31 may be involved): row 2k's and row 2k+1's pairs
// c are the k-th register of column c. The column pass reads that back four
// registers per column and undoes the interleaving the same way when it
// writes the output, XORed with x and y (R), and with the old output in
// passes after the first.
//
// G comes in two functions, Head (rows and the first column group, which
// finishes word 0 of the output) and Tail (the other columns), so that the
// caller can compute the next block's data-dependent reference and
// prefetch it (prefetchBlock) while the tail runs.
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

//go:generate go run . -out ../../internal/argon2/zblamka_amd64.s

// The shuffle masks for the byte-aligned right rotations by 24 and 16 bits
// (VPSHUFB works within 128-bit lanes: the same 16 bytes twice).
var rotr24, rotr16 Mem

func main() {
	// No Package(): loading internal/argon2 would need x/crypto in
	// this module, and the signatures use only built-in types.
	ConstraintExpr("!purego")

	rotr24 = byteRotation("argon2Rotr24", 3)
	rotr16 = byteRotation("argon2Rotr16", 2)

	genBlamka("blamkaAVX2", false)
	genBlamka("blamkaAVX512VL", true)
	genPrefetch()

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
	evex           bool          // AVX-512VL: VPRORQ rotations, registers Y16-Y31
	sets           []state       // the P's in flight, an even number
	temps          []VecPhysical // one per set
	mask24, mask16 VecPhysical   // rotr24, rotr16 when !evex
}

// xor, movu and halves are VPXOR, VMOVDQU and VPERM2I128, or their EVEX
// forms when registers above Y15 may be involved.
func (g *gen) xor(a, b Op, dst VecPhysical) {
	if g.evex {
		VPXORQ(a, b, dst)
	} else {
		VPXOR(a, b, dst)
	}
}

func (g *gen) movu(src, dst Op) {
	if g.evex {
		VMOVDQU64(src, dst)
	} else {
		VMOVDQU(src, dst)
	}
}

// halves sets lo to the low 128-bit halves of a and b (a's low, b's
// high) and hi to their high halves.
func (g *gen) halves(a, b, lo, hi VecPhysical) {
	if g.evex {
		VSHUFI64X2(U8(0b00), b, a, lo)
		VSHUFI64X2(U8(0b11), b, a, hi)
	} else {
		VPERM2I128(U8(0x20), b, a, lo)
		VPERM2I128(U8(0x31), b, a, hi)
	}
}

// genBlamka emits G as two functions, name+"Head" and name+"Tail", run one
// after the other with the same arguments: the head runs P on the rows and
// on the first columns, which finishes the output's word 0 (the next
// block's data-dependent index), and the tail does the other columns. In
// between the caller finds the next block's reference and prefetches it, so
// that its cache misses overlap the tail. Nothing is kept in registers from
// one to the other: tmp carries the state.
func genBlamka(name string, evex bool) {
	g := newGen(evex)
	n := len(g.sets)
	for _, part := range []struct {
		suffix string
		rows   bool
		cols   []int // first column of each group of n
		doc    string
	}{
		{"Head", true, []int{0}, fmt.Sprintf("runs P on the rows of R = x XOR y and on columns 0-%d, which writes words 0-%d of each row of out", n-1, 2*n-1)},
		{"Tail", false, colGroups(n)[1:], fmt.Sprintf("runs P on columns %d-7 and writes the rest of out", n)},
	} {
		fn := name + part.suffix
		TEXT(fn, NOSPLIT, "func(out, x, y, tmp *[128]uint64, xor bool)")
		Doc(fn+" "+part.doc+"; "+name+"Head then "+name+"Tail",
			"with the same arguments are the compression function G: out = P-columns(P-rows(R)) XOR R,",
			"XORed with the old out if xor is set. tmp is a work block; out may be x or y.",
			"See blamka_amd64.go.")
		g.body(fn, part.rows, part.cols)
	}
}

// colGroups lists the first column of each group of n columns.
func colGroups(n int) []int {
	var firsts []int
	for c := 0; c < 8; c += n {
		firsts = append(firsts, c)
	}
	return firsts
}

// genPrefetch emits prefetchBlock, which asks for the 16 cache lines of a
// block.
func genPrefetch() {
	TEXT("prefetchBlock", NOSPLIT, "func(b *[128]uint64)")
	Doc("prefetchBlock asks for every cache line of b (PREFETCHT0): a hint that never faults.")
	p := RAX
	Load(Param("b"), p)
	for line := 0; line < 16; line++ {
		PREFETCHT0(Mem{Base: p, Disp: 64 * line})
	}
	RET()
}

func newGen(evex bool) *gen {
	g := &gen{evex: evex}
	if evex {
		// Four P's in flight in Y0-Y15, temporaries above.
		g.sets = []state{{Y0, Y1, Y2, Y3}, {Y4, Y5, Y6, Y7}, {Y8, Y9, Y10, Y11}, {Y12, Y13, Y14, Y15}}
		g.temps = []VecPhysical{Y16, Y17, Y18, Y19}
	} else {
		g.sets = []state{{Y0, Y1, Y2, Y3}, {Y4, Y5, Y6, Y7}}
		g.temps = []VecPhysical{Y8, Y9}
		g.mask24, g.mask16 = Y14, Y15
	}
	return g
}

// body emits one part of G: the row pass if rows is set, then the column
// groups starting at the columns in cols.
func (g *gen) body(name string, rows bool, cols []int) {
	n := len(g.sets)
	out, x, y, tmp := RAX, RBX, RCX, RDX
	Load(Param("out"), out)
	Load(Param("x"), x)
	Load(Param("y"), y)
	Load(Param("tmp"), tmp)
	xorFlag, err := Param("xor").Resolve()
	if err != nil {
		panic(err)
	}
	if rows {
		// y is a block anywhere in memory, out the next of its lane:
		// ask for all their cache lines now, so that the misses
		// overlap each other rather than each waiting for the P
		// before it.
		for line := 0; line < 16; line++ {
			PREFETCHT0(Mem{Base: y, Disp: 64 * line})
		}
		for line := 0; line < 16; line++ {
			PREFETCHT0(Mem{Base: out, Disp: 64 * line})
		}
	}
	if !g.evex {
		VMOVDQU(rotr24, g.mask24)
		VMOVDQU(rotr16, g.mask16)
	}
	word := func(base Register, w int) Mem { return Mem{Base: base, Disp: 8 * w} }

	for first := 0; rows && first < 8; first += n {
		if first == 0 {
			Comment(fmt.Sprintf("Rows, %d at a time: R = x XOR y, P, stored in column order to tmp.", n))
		}
		for s, set := range g.sets {
			row := first + s
			for v, r := range set {
				g.movu(word(x, 16*row+4*v), r)
				g.xor(word(y, 16*row+4*v), r, r)
			}
		}
		g.permute()
		// Register v of row 2k+i holds the row's pairs 2v (low half)
		// and 2v+1 (high half); column c's register k is (row 2k's
		// pair c, row 2k+1's pair c).
		for p := 0; p < n/2; p++ {
			k := first/2 + p
			lo, hi := g.temps[2*p], g.temps[2*p+1]
			for v := 0; v < 4; v++ {
				g.halves(g.sets[2*p][v], g.sets[2*p+1][v], lo, hi)
				g.movu(lo, word(tmp, 16*(2*v)+4*k))
				g.movu(hi, word(tmp, 16*(2*v+1)+4*k))
			}
		}
	}

	Comment(fmt.Sprintf("Columns, %d at a time, from tmp; out = result XOR x XOR y (XOR out).", n))
	for _, first := range cols {
		for s, set := range g.sets {
			col := first + s
			for v, r := range set {
				g.movu(word(tmp, 16*col+4*v), r)
			}
		}
		g.permute()
		// Register k of columns 2m and 2m+1 holds their pairs of rows
		// 2k (low halves) and 2k+1 (high halves): words 4m..4m+3 of
		// those rows.
		emit := func(xor bool) {
			for p := 0; p < n/2; p++ {
				m := first/2 + p
				lo, hi := g.temps[2*p], g.temps[2*p+1]
				for k := 0; k < 4; k++ {
					g.halves(g.sets[2*p][k], g.sets[2*p+1][k], lo, hi)
					for i, t := range []VecPhysical{lo, hi} {
						w := 16*(2*k+i) + 4*m
						g.xor(word(x, w), t, t)
						g.xor(word(y, w), t, t)
						if xor {
							g.xor(word(out, w), t, t)
						}
						g.movu(t, word(out, w))
					}
				}
			}
		}
		xorLabel := fmt.Sprintf("%s_xor%d", name, first)
		doneLabel := fmt.Sprintf("%s_done%d", name, first)
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

// permute emits P on every set: GB on the columns of the 4x4 word matrix,
// the diagonal rotation, GB again, and the rotation back.
func (g *gen) permute() {
	g.mix()
	g.rotateLanes(0x39, 0x4e, 0x93)
	g.mix()
	g.rotateLanes(0x93, 0x4e, 0x39)
}

// rotateLanes permutes the 64-bit lanes of B, C and D of every set with
// VPERMQ's selectors: lane i of the result is lane (imm>>2i)&3 of the source.
func (g *gen) rotateLanes(b, c, d uint8) {
	for s := range g.sets {
		set := g.sets[s]
		VPERMQ(U8(b), set[1], set[1])
		VPERMQ(U8(c), set[2], set[2])
		VPERMQ(U8(d), set[3], set[3])
	}
}

// mix emits GB on the four lanes of every set:
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

// addMul emits dst += src + 2*lo32(dst)*lo32(src) in every set
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

// xorRotate emits dst = (dst ^ src) >>> n in every set.
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
