package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The helpers below choose one instruction's spelling for the variant being
// generated: legacy SSE (two operands, the destination is also a source),
// VEX (three operands, registers 0-15 only) or EVEX (AVX-512: the D/Q
// mnemonics that reach registers 16-31, and three-input logic).

// mov copies a vector register.
func (g *xg) mov(src, dst reg.VecPhysical) {
	switch {
	case src.Asm() == dst.Asm():
	case !g.vex:
		MOVO(src, dst)
	case g.avx512:
		VMOVDQA64(src, dst)
	default:
		VMOVDQA(src, dst)
	}
}

// loadu loads a vector from memory without any alignment requirement.
func (g *xg) loadu(m Mem, dst reg.VecPhysical) {
	switch {
	case !g.vex:
		MOVOU(m, dst)
	case g.avx512:
		VMOVDQU64(m, dst)
	default:
		VMOVDQU(m, dst)
	}
}

// storeu stores a vector to memory without any alignment requirement.
func (g *xg) storeu(src reg.VecPhysical, m Mem) {
	switch {
	case !g.vex:
		MOVOU(src, m)
	case g.avx512:
		VMOVDQU64(src, m)
	default:
		VMOVDQU(src, m)
	}
}

// loadKey loads one 16-byte round key (16-byte aligned in the schedule)
// into every 128-bit lane of dst.
func (g *xg) loadKey(m Mem, dst reg.VecPhysical) {
	switch {
	case dst.Size() == 16 && !g.vex:
		MOVOA(m, dst)
	case dst.Size() == 16 && g.avx512:
		VMOVDQA64(m, dst)
	case dst.Size() == 16:
		VMOVDQA(m, dst)
	case g.avx512:
		VBROADCASTI32X4(m, dst)
	default:
		VBROADCASTI128(m, dst)
	}
}

// sse2 emits a two-operand SSE instruction as dst = op(src): a copy first
// when the destination is not the source.
func (g *xg) sse2(src, dst reg.VecPhysical, op func()) {
	g.mov(src, dst)
	op()
}

// xor sets dst = a ^ b; a may be memory (16-byte aligned for SSE).
func (g *xg) xor(a Op, b, dst reg.VecPhysical) {
	switch {
	case !g.vex:
		if dst.Asm() == b.Asm() {
			PXOR(a, dst)
		} else if r, ok := a.(reg.VecPhysical); ok && r.Asm() == dst.Asm() {
			PXOR(b, dst)
		} else {
			MOVO(b, dst)
			PXOR(a, dst)
		}
	case g.avx512:
		VPXORD(a, b, dst)
	default:
		VPXOR(a, b, dst)
	}
}

// xor3 sets dst ^= a ^ b: one VPTERNLOGD with AVX-512, two XORs without.
func (g *xg) xor3(a, b Op, dst reg.VecPhysical) {
	if g.avx512 {
		VPTERNLOGD(Imm(0x96), a, b, dst)
		return
	}
	g.xor(a, dst, dst)
	g.xor(b, dst, dst)
}

// and sets dst = a & b.
func (g *xg) and(a Op, b, dst reg.VecPhysical) {
	switch {
	case !g.vex:
		g.sse2(b, dst, func() { PAND(a, dst) })
	case g.avx512:
		VPANDD(a, b, dst)
	default:
		VPAND(a, b, dst)
	}
}

// or sets dst = a | b.
func (g *xg) or(a Op, b, dst reg.VecPhysical) {
	switch {
	case !g.vex:
		g.sse2(b, dst, func() { POR(a, dst) })
	case g.avx512:
		VPORD(a, b, dst)
	default:
		VPOR(a, b, dst)
	}
}

// shufb sets dst = src shuffled bytewise by mask (a register).
func (g *xg) shufb(mask, src, dst reg.VecPhysical) {
	if !g.vex {
		g.sse2(src, dst, func() { PSHUFB(mask, dst) })
		return
	}
	VPSHUFB(mask, src, dst)
}

// psrlq and psllq shift each 64-bit lane by n bits.
func (g *xg) psrlq(n int, src, dst reg.VecPhysical) {
	if !g.vex {
		g.sse2(src, dst, func() { PSRLQ(Imm(uint64(n)), dst) })
		return
	}
	VPSRLQ(Imm(uint64(n)), src, dst)
}

func (g *xg) psllq(n int, src, dst reg.VecPhysical) {
	if !g.vex {
		g.sse2(src, dst, func() { PSLLQ(Imm(uint64(n)), dst) })
		return
	}
	VPSLLQ(Imm(uint64(n)), src, dst)
}

// psrldq and pslldq shift each 128-bit lane by n bytes.
func (g *xg) psrldq(n int, src, dst reg.VecPhysical) {
	if !g.vex {
		g.sse2(src, dst, func() { PSRLO(Imm(uint64(n)), dst) })
		return
	}
	VPSRLDQ(Imm(uint64(n)), src, dst)
}

func (g *xg) pslldq(n int, src, dst reg.VecPhysical) {
	if !g.vex {
		g.sse2(src, dst, func() { PSLLO(Imm(uint64(n)), dst) })
		return
	}
	VPSLLDQ(Imm(uint64(n)), src, dst)
}

// psrad31 sets each 32-bit lane of dst to the sign of that lane of src.
func (g *xg) psrad31(src, dst reg.VecPhysical) {
	if !g.vex {
		g.sse2(src, dst, func() { PSRAL(Imm(31), dst) })
		return
	}
	VPSRAD(Imm(31), src, dst)
}

func (g *xg) pshufd(imm int, src, dst reg.VecPhysical) {
	if !g.vex {
		PSHUFD(Imm(uint64(imm)), src, dst)
		return
	}
	VPSHUFD(Imm(uint64(imm)), src, dst)
}

// double64 sets dst = src + src in each 64-bit lane: each quadword shifted
// left by one, the bit out of its top lost (mulX puts it back).
func (g *xg) double64(src, dst reg.VecPhysical) {
	if !g.vex {
		g.sse2(src, dst, func() { PADDQ(dst, dst) })
		return
	}
	VPADDQ(src, src, dst)
}

// clmul sets dst to the carry-less product of one 64-bit half of each lane
// of b (imm bit 0) and of a (imm bit 4).
func (g *xg) clmul(imm int, a Op, b, dst reg.VecPhysical) {
	if !g.vex {
		g.sse2(b, dst, func() { PCLMULQDQ(Imm(uint64(imm)), a, dst) })
		return
	}
	VPCLMULQDQ(Imm(uint64(imm)), a, b, dst)
}

// aes emits one AES round on state with key (a register or 16-byte
// aligned memory): encryption or decryption, middle or last round.
func (g *xg) aes(dec, last bool, key Op, state reg.VecPhysical) {
	if !g.vex {
		switch {
		case !dec && !last:
			AESENC(key, state)
		case !dec && last:
			AESENCLAST(key, state)
		case dec && !last:
			AESDEC(key, state)
		default:
			AESDECLAST(key, state)
		}
		return
	}
	switch {
	case !dec && !last:
		VAESENC(key, state, state)
	case !dec && last:
		VAESENCLAST(key, state, state)
	case dec && !last:
		VAESDEC(key, state, state)
	default:
		VAESDECLAST(key, state, state)
	}
}
