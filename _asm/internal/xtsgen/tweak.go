package xtsgen

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// Tweak holds the read-only constants of the tweak arithmetic, as the
// generator's GLOBLs: Poly is the XTS reduction x^7+x^2+x+1 (0x87) in the
// low quadword of each 128-bit lane, for VPCLMULQDQ; Shl and Shr are the
// per-lane shift counts l and 64-l (lane l = 0..3, both quadwords) that
// turn T, broadcast to every lane, into T·x^l.
type Tweak struct{ Poly, Shl, Shr Mem }

// TweakData emits the three tables as prefix+"Poly", prefix+"TweakShl"
// and prefix+"TweakShr", in that order.
func TweakData(prefix string) Tweak {
	poly := PolyData(prefix + "Poly")
	shl, shr := LaneShiftData(prefix+"TweakShl", prefix+"TweakShr")
	return Tweak{Poly: poly, Shl: shl, Shr: shr}
}

// PolyData emits the table Poly of Tweak under name. TweakData emits it
// with the shift counts; a generator that wants other data between them
// (the order of the GLOBLs is the order in the generated file) calls
// PolyData and LaneShiftData itself.
func PolyData(name string) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	for l := range 4 {
		DATA(16*l, U64(0x87))
		DATA(16*l+8, U64(0))
	}
	return m
}

// LaneShiftData emits the tables Shl and Shr of Tweak under the names
// given.
func LaneShiftData(shlName, shrName string) (shl, shr Mem) {
	shl = GLOBL(shlName, RODATA|NOPTR)
	for l := range 4 {
		DATA(16*l, U64(uint64(l)))
		DATA(16*l+8, U64(uint64(l)))
	}
	// A count of 64 shifts everything out (lane 0 has no carry).
	shr = GLOBL(shrName, RODATA|NOPTR)
	for l := range 4 {
		DATA(16*l, U64(uint64(64-l)))
		DATA(16*l+8, U64(uint64(64-l)))
	}
	return shl, shr
}

// MulX sets each 128-bit lane of dst to that lane of src times x^k in
// GF(2^128) modulo x^128+x^7+x^2+x+1 (0 < k < 64; dst may be src), with
// carry and spill as temporaries, in five instructions: both quadwords
// shift left by k, the low quadword's top k bits move into the high one
// (VPSLLDQ of the carries), and the high quadword's top k bits, which
// leave the 128 bits, come back multiplied by 0x87 (VPCLMULQDQ of the
// carries' high quadword with Poly's low one; at most k+7 bits, so the
// product may reach into the high quadword, where it belongs).
func (t Tweak) MulX(dst, src reg.VecPhysical, k int, carry, spill reg.VecPhysical) {
	if k <= 0 || k >= 64 {
		panic(fmt.Sprintf("xtsgen: MulX by x^%d: the shifts take 0 < k < 64", k))
	}
	VPSRLQ(U8(64-k), src, carry)
	VPSLLQ(U8(k), src, dst)
	t.fold(dst, carry, spill)
}

// MulXPool is MulX with its two temporaries taken from p and given back.
func (t Tweak) MulXPool(dst, src reg.VecPhysical, k int, p *Pool) {
	c, d := p.Get(), p.Get()
	t.MulX(dst, src, k, c, d)
	p.Put(d)
	p.Put(c)
}

// Lanes sets lane l of dst to lane l of src times x^l (l = 0..3), src
// holding the same T in every lane: MulX with the per-lane counts of Shl
// and Shr (lane 0's count of 64 leaves no carry). dst may be src; carry
// and spill are temporaries, and spill may be src too (it is written
// after src's last read).
func (t Tweak) Lanes(dst, src, carry, spill reg.VecPhysical) {
	VPSRLVQ(t.Shr, src, carry)
	VPSLLVQ(t.Shl, src, dst)
	t.fold(dst, carry, spill)
}

// LanesFromArgs sets dst to T·x^0..3, one per lane, T the routine's
// arguments tweakLo and tweakHi, with tmp0 and tmp1 as temporaries: the
// two arguments are adjacent in the argument frame, so one broadcast
// load reads T's 16 bytes into every lane.
func (t Tweak) LanesFromArgs(dst, tmp0, tmp1 reg.VecPhysical) {
	tArg, err := Param("tweakLo").Resolve()
	if err != nil {
		panic(err)
	}
	VBROADCASTI32X4(tArg.Addr, tmp0)
	t.Lanes(dst, tmp0, tmp1, tmp0)
}

// fold finishes MulX and Lanes: carry holds the bits shifted out of each
// quadword; the low quadword's go into the high one, the high one's come
// back reduced.
func (t Tweak) fold(dst, carry, spill reg.VecPhysical) {
	VPSLLDQ(U8(8), carry, spill)
	VPCLMULQDQ(U8(0x01), t.Poly, carry, carry)
	VPTERNLOGD(U8(0x96), carry, spill, dst) // dst ^ carry ^ spill
}
