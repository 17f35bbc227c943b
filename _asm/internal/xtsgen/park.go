package xtsgen

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// XorPark loads the len(x) 64-byte rows at src+off into x, each XORed
// with its four blocks' tweaks, and stores those tweaks at the rows'
// places in dst (dst+off...), where the output XOR reads them back
// (XorStore): computing the tweaks again after the rounds would cost more
// instructions than a store and a memory operand. base holds the tweaks
// of the four blocks at src+0, one per lane; the row at byte o takes
// base·x^(o/16) (MulX, with tw, carry and spill as temporaries). Each
// row is in its register before its tweak overwrites it, so dst may be
// src.
func (t Tweak) XorPark(src, dst reg.Register, off int, x []reg.VecPhysical, base, tw, carry, spill reg.VecPhysical) {
	for i, xi := range x {
		o := off + 64*i
		cur := base
		if o != 0 {
			VMOVDQA64(base, tw)
			t.MulX(tw, tw, o/16, carry, spill)
			cur = tw
		}
		VPXORD(Mem{Base: src, Disp: o}, cur, xi)
		VMOVDQU64(cur, Mem{Base: dst, Disp: o})
	}
}

// XorStore XORs the tweaks XorPark left at dst+off... into the len(x)
// rows in x and stores the rows over them.
func XorStore(dst reg.Register, off int, x []reg.VecPhysical) {
	for i, xi := range x {
		m := Mem{Base: dst, Disp: off + 64*i}
		VPXORD(m, xi, xi)
		VMOVDQU64(xi, m)
	}
}
