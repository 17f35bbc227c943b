package xtsgen

import (
	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/reg"
)

// Transpose4x4 transposes the 4x4 dwords of each 128-bit lane across the
// four registers z (its own inverse: word i of four blocks into register
// i, and back), with the four temporaries t.
func Transpose4x4(z, t [4]reg.VecPhysical) {
	VPUNPCKLDQ(z[1], z[0], t[0])
	VPUNPCKHDQ(z[1], z[0], t[1])
	VPUNPCKLDQ(z[3], z[2], t[2])
	VPUNPCKHDQ(z[3], z[2], t[3])
	VPUNPCKLQDQ(t[2], t[0], z[0])
	VPUNPCKHQDQ(t[2], t[0], z[1])
	VPUNPCKLQDQ(t[3], t[1], z[2])
	VPUNPCKHQDQ(t[3], t[1], z[3])
}
