package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// Tweak arithmetic: every tweak the routines compute is an earlier tweak
// times a power of x in GF(2^128), lane by lane (a 128-bit lane read as a
// little-endian integer: shift left, fold what falls off the top back in
// with 0x87).

// xPow is a multiplier x^k for each 128-bit lane of a vector.
type xPow struct {
	k int // the exponent, 0 <= k < 64 (or the first lane's, with perLane)
	// perLane: lane l is multiplied by x^(k+l), the shift counts read
	// from the tables xtsShl/xtsShr (k a multiple of the lanes).
	perLane bool
	// spread: the instructions are to be spread between AES rounds;
	// without three-input XORs, XOR the low half's carry in before the
	// multiply, as an instruction of its own.
	spread bool
}

// mulX returns the instructions for dst = src·x^k in each 128-bit lane,
// one function per instruction (to spread them between rounds; emit runs
// them at once), with sa and sd as scratch (sd unused by some forms):
//   - k = 1 in the xmm variants: the sign-mask doubling (each quadword
//     doubled, the carries selected by the signs of dwords 1 and 3; the
//     wider variants multiply their xmm tails as below);
//   - k a multiple of 8: with AVX-512 a rotate of each lane and the
//     reduction of the bytes that went round by additions, one shift and
//     XORs (rotateFold; VPCLMULQDQ would take an AES unit's cycles each
//     time); without, whole-byte shifts of each lane and one multiply with
//     0x87;
//   - otherwise: each 64-bit half shifted left by k (or by its lane's
//     count), the bits shifted out of the low half moved into the high
//     half, those out of the high half folded back by one multiply with
//     0x87.
func (g *xg) mulX(p xPow, src, dst, sa, sd reg.VecPhysical) []func() {
	width := int(src.Size())
	poly := vecReg(width, g.poly)
	switch {
	case p.k == 1 && !p.perLane && g.vlen == 16 && !g.avx512:
		return []func(){
			func() { g.pshufd(0x13, src, sa) },
			func() { g.psrad31(sa, sa) },
			func() { g.and(poly, sa, sa) },
			func() { g.double64(src, dst) },
			func() { g.xor(sa, dst, dst) },
		}
	case p.k%8 == 0 && !p.perLane:
		b := p.k / 8
		if g.avx512 {
			return g.rotateFold(b, src, dst, sa, sd)
		}
		fs := []func(){
			func() { g.psrldq(16-b, src, sa) },
			func() { g.pslldq(b, src, dst) },
		}
		return append(fs,
			func() { g.clmul(0x00, poly, sa, sa) },
			func() { g.xor(sa, dst, dst) })
	}
	var fs []func()
	if p.perLane {
		shl, shr := xtsShl, xtsShr
		if width == 32 {
			shl, shr = xtsShl256, xtsShr256
		}
		off := 16 * p.k
		fs = []func(){
			func() { VPSRLVQ(shr.Offset(off), src, sa) },
			func() { VPSLLVQ(shl.Offset(off), src, dst) },
		}
	} else {
		fs = []func(){
			func() { g.psrlq(64-p.k, src, sa) },
			func() { g.psllq(p.k, src, dst) },
		}
	}
	fs = append(fs, func() { g.pslldq(8, sa, sd) })
	if p.spread && !g.avx512 {
		return append(fs,
			func() { g.xor(sd, dst, dst) },
			func() { g.clmul(0x01, poly, sa, sa) },
			func() { g.xor(sa, dst, dst) })
	}
	return append(fs,
		func() { g.clmul(0x01, poly, sa, sa) },
		func() { g.xor3(sa, sd, dst) })
}

// rotateFold returns the AVX-512 instructions for dst = src·x^(8b) in
// each lane, b = 1 or 2 whole bytes: the lane rotated left by b bytes
// (VPALIGNR of src with itself: the shifted lane with the b bytes c that
// fell off the top already XORed in at the bottom), c isolated by a mask,
// and c·0x87 ^ c = c<<1 ^ c<<2 ^ c<<7 XORed in, the first two as
// additions (c < 2^16: no carries leave a quadword).
//
// Where the cycles go, in LLVM 19's model of Zen 4 and Zen 5 (llvm-mca
// -mcpu=znver4/znver5): every zmm shift, byte shift and VPCLMULQDQ runs on
// the two pipes that also run VAESDEC/VAESENC, additions and logic on any
// of four. The earlier form (two byte shifts, three quadword shifts) took
// seven AES-pipe slots per vector, this one two (the rotate, on one of
// them, and one shift). AES-256 decryption main loops, cycles per 16
// bytes (znver4 = znver5 / sapphirerapids): vaes-avx10_512 unit 2.70 ->
// 2.26 / 4.26 -> 3.76, sectors 2.67 -> 2.20 / 4.25 -> 3.75;
// vaes-avx10_256 unit 5.01 -> 3.64 / 4.27 -> 3.96 (the AES rounds alone:
// 1.75 with zmm, 3.5 with ymm). sa and sd are clobbered.
func (g *xg) rotateFold(b int, src, dst, sa, sd reg.VecPhysical) []func() {
	if b < 1 || b > 2 {
		panic("rotateFold: b must be 1 or 2")
	}
	mask := xtsCarryMask.Offset(64 * (b - 1))
	return []func(){
		func() { VPALIGNR(Imm(uint64(16-b)), src, src, dst) },
		func() { VPANDQ(mask, dst, sa) },
		func() { VPADDQ(sa, sa, sd) },
		func() { VPSLLQ(Imm(7), sa, sa) },
		func() { VPTERNLOGD(Imm(0x96), sa, sd, dst) },
		func() { VPADDQ(sd, sd, sd) },
		func() { VPXORD(sd, dst, dst) },
	}
}

// double emits dst = src·x in each lane, scratch[0] and scratch[1] at the
// width of src as scratch.
func (g *xg) double(src, dst reg.VecPhysical) {
	w := int(src.Size())
	g.emit(g.mulX(xPow{k: 1}, src, dst, vecReg(w, g.scratch[0]), vecReg(w, g.scratch[1])))
}

// nextTweaks returns a main step's tweak computation, as single
// instructions to be spread between its AES rounds: the tweaks cur times
// x^k (k = 4L for the unit routines' consecutive vectors, L for the sector
// routines' lanes).
//   - AVX-512 (unit routines): the last-round keys K14 ^ cur[j] into
//     next[j] first (they need the current tweaks), then cur advanced in
//     place;
//   - xmm, k = 4: next[j] = cur[3]·x^(j+1), four doublings in a chain,
//     each a handful of cheap instructions and no multiply;
//   - otherwise next[j] = cur[j]·x^k (cur[j] stays for the last round).
//     For ymm without three-input XORs the whole-byte fold would take
//     nine instructions per vector: one multiply by 0x87 (which borrows
//     an AES unit for a cycle) costs less, measured on Zen 4. The ymm bit
//     shifts borrow the per-round key register as scratch: the fill goes
//     between one round's AES instructions and the next key load.
func (g *xg) nextTweaks(cur, next [4]int, k int) []func() {
	var fs []func()
	switch {
	case g.avx512:
		for j := 0; j < 4; j++ {
			k14, tj, lk := g.v(g.keyRow[14]), g.v(cur[j]), g.v(next[j])
			fs = append(fs, func() { g.xor(k14, tj, lk) })
		}
		for j := 0; j < 4; j++ {
			tj := g.v(cur[j])
			sa, sb := g.v(g.scratch[2*(j%2)]), g.v(g.scratch[2*(j%2)+1])
			fs = append(fs, g.mulX(xPow{k: k}, tj, tj, sa, sb)...)
		}
	case g.vlen == 16 && k == 4:
		prev := g.v(cur[3])
		for j := 0; j < 4; j++ {
			dst := g.v(next[j])
			fs = append(fs, g.mulX(xPow{k: 1}, prev, dst, g.v(g.scratch[0]), nil)...)
			prev = dst
		}
	default:
		for j := 0; j < 4; j++ {
			fs = append(fs, g.mulX(xPow{k: k, spread: true},
				g.v(cur[j]), g.v(next[j]), g.v(g.scratch[0]), g.v(g.keyReg))...)
		}
	}
	return fs
}
