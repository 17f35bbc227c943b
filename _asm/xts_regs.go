package main

import "github.com/mmcloughlin/avo/reg"

// Physical registers only: avo's allocator would happily hand out X16+ in
// a VEX routine, which assembles as EVEX and faults on AVX2-only CPUs.

var xmms = [32]reg.VecPhysical{
	reg.X0, reg.X1, reg.X2, reg.X3, reg.X4, reg.X5, reg.X6, reg.X7,
	reg.X8, reg.X9, reg.X10, reg.X11, reg.X12, reg.X13, reg.X14, reg.X15,
	reg.X16, reg.X17, reg.X18, reg.X19, reg.X20, reg.X21, reg.X22, reg.X23,
	reg.X24, reg.X25, reg.X26, reg.X27, reg.X28, reg.X29, reg.X30, reg.X31,
}

var ymms = [32]reg.VecPhysical{
	reg.Y0, reg.Y1, reg.Y2, reg.Y3, reg.Y4, reg.Y5, reg.Y6, reg.Y7,
	reg.Y8, reg.Y9, reg.Y10, reg.Y11, reg.Y12, reg.Y13, reg.Y14, reg.Y15,
	reg.Y16, reg.Y17, reg.Y18, reg.Y19, reg.Y20, reg.Y21, reg.Y22, reg.Y23,
	reg.Y24, reg.Y25, reg.Y26, reg.Y27, reg.Y28, reg.Y29, reg.Y30, reg.Y31,
}

var zmms = [32]reg.VecPhysical{
	reg.Z0, reg.Z1, reg.Z2, reg.Z3, reg.Z4, reg.Z5, reg.Z6, reg.Z7,
	reg.Z8, reg.Z9, reg.Z10, reg.Z11, reg.Z12, reg.Z13, reg.Z14, reg.Z15,
	reg.Z16, reg.Z17, reg.Z18, reg.Z19, reg.Z20, reg.Z21, reg.Z22, reg.Z23,
	reg.Z24, reg.Z25, reg.Z26, reg.Z27, reg.Z28, reg.Z29, reg.Z30, reg.Z31,
}

// vecReg returns vector register i at a width of 16, 32 or 64 bytes.
func vecReg(width, i int) reg.VecPhysical {
	switch width {
	case 16:
		return xmms[i]
	case 32:
		return ymms[i]
	case 64:
		return zmms[i]
	}
	panic("bad vector width")
}
