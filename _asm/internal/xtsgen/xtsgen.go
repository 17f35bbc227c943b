// Package xtsgen holds the pieces of the avo generators of the AVX-512
// XTS routines (_asm/serpent, _asm/twofish, _asm/camellia,
// _asm/kuznyechik) that do not depend on the cipher: the tweak arithmetic
// in zmm registers (T·x^k in every 128-bit lane with VPCLMULQDQ, and the
// spread of T over the four lanes), its constant tables, the routines'
// common prologue and epilogue (the empty call, the returned tweak, the
// clearing of every register before RET), the 4x4 dword transpose, the
// XOR of the tweaks parked in dst, and a hand register allocator.
//
// They were written once per generator and then copied; a fix to one copy
// (a register left uncleared, a wrong shift count) would not reach the
// others. Every helper emits exactly the instructions the generators
// emitted before, so the generated files did not change when the helpers
// moved here: what differs between the ciphers (register plans, the
// number of blocks, the names of the tables) is a parameter.
//
// The helpers emit into avo's global context (package build), like the
// generators themselves: call them between TEXT or GLOBL and Generate.
package xtsgen

import "github.com/mmcloughlin/avo/reg"

// Z lists the 32 zmm registers in order, for register plans written as
// ranges (Z[16:24]) and for the clearing before return.
var Z = []reg.VecPhysical{
	reg.Z0, reg.Z1, reg.Z2, reg.Z3, reg.Z4, reg.Z5, reg.Z6, reg.Z7,
	reg.Z8, reg.Z9, reg.Z10, reg.Z11, reg.Z12, reg.Z13, reg.Z14, reg.Z15,
	reg.Z16, reg.Z17, reg.Z18, reg.Z19, reg.Z20, reg.Z21, reg.Z22, reg.Z23,
	reg.Z24, reg.Z25, reg.Z26, reg.Z27, reg.Z28, reg.Z29, reg.Z30, reg.Z31,
}
