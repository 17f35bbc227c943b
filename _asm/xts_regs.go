package main

import "github.com/mmcloughlin/avo/reg"

// General-purpose registers. R14 and R15 are left alone (g and the
// dynamic-linking GOT register), and so is BP. Every routine uses the first
// five for the same thing.
var (
	rKS     = reg.RAX // *keySchedule
	rRounds = reg.RBX // 10, 12 or 14
	rSrc    = reg.RSI
	rDst    = reg.RDI
	rKey0   = reg.R10 // 16 * the first row of the schedule (14 - rounds)
)

// The unit routines' other general-purpose registers.
var (
	rLen    = reg.RCX // bytes of full blocks still to process in bulk
	rTweakP = reg.RDX // address of the tweakLo, tweakHi arguments
	rFlags  = reg.R8
	rTail   = reg.R9  // len(src) % 16
	rT1     = reg.R11 // temporaries
	rT2     = reg.R12
	rT3     = reg.R13
)

// The sector routines' other general-purpose registers.
var (
	sLeft   = reg.RCX // bytes of the current sectors still to process
	sSector = reg.RDX // IV counter: the next lane's sector number
	sO1     = reg.R8  // byte offsets of lanes 1-3 from lane 0
	sO2     = reg.R9  // (j * sectorSize; repeats in a short last batch)
	sO3     = reg.R11
	sTotal  = reg.R12 // bytes of src from the current batch on
	sTmp    = reg.R13
)

// xg generates one routine: the variant, the direction, and the plan of
// its vector registers (register numbers; the width is the variant's).
type xg struct {
	xtsParams
	dec     bool
	sectors bool // a sector routine (xts_sectors.go), else a unit routine
	keyOff  int  // ksEnc or ksDec
	nlabel  int

	data    [4]int // the four data vectors of a main-loop step
	tweak   [4]int // their tweaks
	next    [4]int // the next step's tweaks; see newXG for AVX-512
	poly    int    // 0x87 for VPCLMULQDQ, or the doubling mask for xmm
	key0    int    // round key 0 of this key size (the schedule's first row)
	scratch [4]int
	keyReg  int     // 16 registers: the round key of the current round; -1 with AVX-512
	keyRow  [15]int // AVX-512: rows 1-14 of the schedule, resident
}

// newXG returns the generator of one routine with its register plan:
//
//	data 0-3, tweaks 4-7, next 8-11, constant 12, first round key 15.
//
// 32 registers (AVX-512): round key rows 1-14 in 16-29, all broadcast
// once per call; scratch 13, 14 and, in the unit routines, 30, 31 (the
// sector routines keep the next batch's encrypted IVs there). next holds
// the last-round keys K14 ^ tweak in the unit routines and the second
// tweak set in the sector routines. The unit routine's tweak encryption
// holds the tweak key's rows 0-14 in 16-30 (before the data key's rows).
//
// 16 registers: scratch 13 and 8 (next[0], free outside the main loop),
// the per-round key register 14; the other round keys are memory operands
// (xmm) or broadcast per round into 14 (ymm, where a memory operand would
// need the key twice in memory). The ymm unit routine's tweak encryption
// holds its key in all registers but the tweak's.
func newXG(p xtsParams, dec, sectors bool) *xg {
	g := &xg{xtsParams: p, dec: dec, sectors: sectors, keyOff: ksEnc}
	if dec {
		g.keyOff = ksDec
	}
	g.data = [4]int{0, 1, 2, 3}
	g.tweak = [4]int{4, 5, 6, 7}
	g.next = [4]int{8, 9, 10, 11}
	g.poly = 12
	g.key0 = 15
	if !p.avx512 {
		g.scratch = [4]int{13, 8, 13, 8}
		g.keyReg = 14
		return g
	}
	g.scratch = [4]int{13, 14, 30, 31}
	if sectors {
		g.scratch = [4]int{13, 14, 13, 14}
	}
	g.keyReg = -1
	for row := 1; row <= 14; row++ {
		g.keyRow[row] = 15 + row
	}
	return g
}

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
