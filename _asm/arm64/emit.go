package main

import (
	"fmt"
	"strings"
)

// This file is the generator's assembler: typed registers and the Go
// spelling of every instruction it emits, each in one small helper, so
// that the routines read as AES-XTS and not as operand syntax.

// vreg is a SIMD register V0..V31, always used as 16 bytes.
type vreg int

func (v vreg) b16() string { return fmt.Sprintf("V%d.B16", int(v)) }

// d is lane i of the register as a 64-bit element.
func (v vreg) d(i int) string { return fmt.Sprintf("V%d.D[%d]", int(v), i) }

// f is the register's scalar name for FMOV.
func (v vreg) f() string { return fmt.Sprintf("F%d", int(v)) }

// gpr is a general-purpose register R0..R25. R18 (platform register),
// R26 (closure context), R27 (assembler scratch), R28 (g), R29 (frame
// pointer) and R30 (link register) are never handed out; newGPR panics on
// them.
type gpr int

func newGPR(n int) gpr {
	if n < 0 || n > 25 || n == 18 {
		panic(fmt.Sprintf("register R%d is reserved", n))
	}
	return gpr(n)
}

func (r gpr) String() string { return fmt.Sprintf("R%d", int(r)) }

// lsl and asr spell a shifted-register operand.
func (r gpr) lsl(n int) string { return fmt.Sprintf("%s<<%d", r, n) }
func (r gpr) asr(n int) string { return fmt.Sprintf("%s->%d", r, n) }

// imm spells an immediate. Every immediate the generator emits is one the
// instruction encodes directly (checked by the lint test and by check.sh's
// disassembly): a value that does not fit makes the Go assembler
// materialize it through R27 behind the program's back.
func imm(n int) string { return fmt.Sprintf("$%d", n) }

// mem spells a memory operand off(base).
func mem(off int, base gpr) string {
	if off == 0 {
		return fmt.Sprintf("(%s)", base)
	}
	return fmt.Sprintf("%d(%s)", off, base)
}

// list spells a register list [Va.B16, Vb.B16, ...] for VLD1/VST1/VTBL.
func list(vs ...vreg) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = v.b16()
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// vrange returns n consecutive registers from first.
func vrange(first vreg, n int) []vreg {
	vs := make([]vreg, n)
	for i := range vs {
		vs[i] = first + vreg(i)
	}
	return vs
}

// file accumulates the generated assembly.
type file struct {
	buf    strings.Builder
	fn     string // current function, to make labels local
	labels map[string]int
}

func (f *file) raw(format string, args ...any) { fmt.Fprintf(&f.buf, format, args...) }

// ins emits one instruction.
func (f *file) ins(mnemonic string, operands ...string) {
	if len(operands) == 0 {
		f.raw("\t%s\n", mnemonic)
		return
	}
	f.raw("\t%-7s %s\n", mnemonic, strings.Join(operands, ", "))
}

func (f *file) comment(format string, args ...any) {
	f.raw("\t// %s\n", fmt.Sprintf(format, args...))
}

// text starts a function: no frame, argSize bytes of arguments and results.
func (f *file) text(name, goSig string, argSize int) {
	f.fn = name
	f.labels = map[string]int{}
	f.raw("\n// %s\nTEXT ·%s(SB), NOSPLIT, $0-%d\n", goSig, name, argSize)
}

// newLabel returns a label unique in the function, named after its role.
func (f *file) newLabel(role string) string {
	f.labels[role]++
	return fmt.Sprintf("%s_%s%d", f.fn, role, f.labels[role])
}

func (f *file) label(l string) { f.raw("%s:\n", l) }

// Loads, stores and moves.

func (f *file) ldArg(r gpr, name string, off int) {
	f.ins("MOVD", fmt.Sprintf("%s+%d(FP)", name, off), r.String())
}
func (f *file) stArg(r gpr, name string, off int) {
	f.ins("MOVD", r.String(), fmt.Sprintf("%s+%d(FP)", name, off))
}
func (f *file) ld64(dst gpr, off int, base gpr) { f.ins("MOVD", mem(off, base), dst.String()) }
func (f *file) ld32(dst gpr, off int, base gpr) { f.ins("MOVWU", mem(off, base), dst.String()) }
func (f *file) st32(src gpr, off int, base gpr) { f.ins("MOVW", src.String(), mem(off, base)) }
func (f *file) movImm(dst gpr, n int)           { f.ins("MOVD", imm(n), dst.String()) }
func (f *file) mov(dst, src gpr)                { f.ins("MOVD", src.String(), dst.String()) }
func (f *file) addr(dst gpr, sym string)        { f.ins("MOVD", "$"+sym+"(SB)", dst.String()) }

// vld loads len(vs) consecutive registers from (base), advancing base past
// them when post is set.
func (f *file) vld(base gpr, post bool, vs ...vreg) {
	if post {
		f.ins("VLD1.P", mem(16*len(vs), base), list(vs...))
		return
	}
	f.ins("VLD1", mem(0, base), list(vs...))
}

// vst stores len(vs) consecutive registers to (base), advancing base when
// post is set.
func (f *file) vst(base gpr, post bool, vs ...vreg) {
	if post {
		f.ins("VST1.P", list(vs...), mem(16*len(vs), base))
		return
	}
	f.ins("VST1", list(vs...), mem(0, base))
}

// toVec sets v to the 128-bit value hi:lo (FMOV zeroes the upper half,
// then INS fills it).
func (f *file) toVec(v vreg, lo, hi gpr) {
	f.ins("FMOVD", lo.String(), v.f())
	f.ins("VMOV", hi.String(), v.d(1))
}

// fromVec sets lo, hi to v's two 64-bit halves.
func (f *file) fromVec(lo, hi gpr, v vreg) {
	f.ins("VMOV", v.d(0), lo.String())
	f.ins("VMOV", v.d(1), hi.String())
}

// Vector arithmetic.

func (f *file) veor(dst, a, b vreg) { f.ins("VEOR", b.b16(), a.b16(), dst.b16()) }
func (f *file) vzero(v vreg)        { f.veor(v, v, v) }

// clearVectors zeroes vs, so that no key, tweak or data outlives the call.
func (f *file) clearVectors(vs ...vreg) {
	for _, v := range vs {
		f.vzero(v)
	}
}
func (f *file) vdup32(v vreg, r gpr) { f.ins("VDUP", r.String(), fmt.Sprintf("V%d.S4", int(v))) }
func (f *file) vlane32(r gpr, v vreg) {
	f.ins("VMOV", fmt.Sprintf("V%d.S[0]", int(v)), r.String())
}

// vtbl sets dst to table bytes picked by idx (0 where an index is out of
// range); vtbx keeps dst's byte there instead.
func (f *file) vtbl(dst, table, idx vreg) { f.ins("VTBL", idx.b16(), list(table), dst.b16()) }
func (f *file) vtbx(dst, table, idx vreg) { f.ins("VTBX", idx.b16(), list(table), dst.b16()) }

// aesRound emits one AES round on x with round key k: AESE (AddRoundKey,
// SubBytes, ShiftRows) then, unless last, AESMC (MixColumns) on the same
// register right after it, the pair these cores fuse. Decryption uses
// AESD and AESIMC, the inverse steps.
func (f *file) aesRound(k, x vreg, dec, last bool) {
	e, mc := "AESE", "AESMC"
	if dec {
		e, mc = "AESD", "AESIMC"
	}
	f.ins(e, k.b16(), x.b16())
	if !last {
		f.ins(mc, x.b16(), x.b16())
	}
}

// aesSub is AESE with an all-zero key on x: SubBytes(ShiftRows(x)), the
// S-box without tables, for the key schedule.
func (f *file) aesSub(zero, x vreg) { f.ins("AESE", zero.b16(), x.b16()) }

// aesInvMix sets dst to InvMixColumns(src).
func (f *file) aesInvMix(dst, src vreg) { f.ins("AESIMC", src.b16(), dst.b16()) }

// Integer arithmetic.

func (f *file) add(dst, a, b gpr) { f.ins("ADD", b.String(), a.String(), dst.String()) }
func (f *file) addImm(dst, a gpr, n int) {
	checkArithImm(n)
	f.ins("ADD", imm(n), a.String(), dst.String())
}
func (f *file) sub(dst, a, b gpr) { f.ins("SUB", b.String(), a.String(), dst.String()) }
func (f *file) subsImm(dst gpr, n int) {
	checkArithImm(n)
	f.ins("SUBS", imm(n), dst.String(), dst.String())
}
func (f *file) andImm(dst, a gpr, n int) {
	// Only masks of low bits (2^k - 1) here: always a valid logical immediate.
	if n <= 0 || n&(n+1) != 0 {
		panic(fmt.Sprintf("AND immediate %#x is not a low-bit mask", n))
	}
	f.ins("AND", imm(n), a.String(), dst.String())
}
func (f *file) udiv(dst, a, b gpr)  { f.ins("UDIV", b.String(), a.String(), dst.String()) }
func (f *file) eorw(dst, a gpr)     { f.ins("EORW", a.String(), dst.String()) }
func (f *file) rorw(dst gpr, n int) { f.ins("RORW", imm(n), dst.String(), dst.String()) }

func checkArithImm(n int) {
	if n < 0 || n > 4095 {
		panic(fmt.Sprintf("arithmetic immediate %d does not encode", n))
	}
}

// double multiplies the tweak hi:lo by x in GF(2^128) in three integer
// instructions: mask = 0x87 if the top bit is set (the arithmetic shift
// spreads it, c87 holds 0x87), hi = hi<<1 | lo>>63, lo = lo<<1 ^ mask.
func (f *file) double(lo, hi, c87, tmp gpr) {
	f.ins("AND", hi.asr(63), c87.String(), tmp.String())
	f.ins("EXTR", imm(63), lo.String(), hi.String(), hi.String())
	f.ins("EOR", lo.lsl(1), tmp.String(), lo.String())
}

// Branches.

func (f *file) b(l string)                   { f.ins("B", l) }
func (f *file) blt(l string)                 { f.ins("BLT", l) }
func (f *file) bge(l string)                 { f.ins("BGE", l) }
func (f *file) beq(l string)                 { f.ins("BEQ", l) }
func (f *file) bne(l string)                 { f.ins("BNE", l) }
func (f *file) cbz(r gpr, l string)          { f.ins("CBZ", r.String(), l) }
func (f *file) cbnz(r gpr, l string)         { f.ins("CBNZ", r.String(), l) }
func (f *file) tbz(bit int, r gpr, l string) { f.ins("TBZ", imm(bit), r.String(), l) }
func (f *file) cmpImm(a gpr, n int) {
	checkArithImm(n)
	f.ins("CMP", imm(n), a.String())
}
func (f *file) ret() { f.ins("RET") }
