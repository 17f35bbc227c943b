package main

import (
	"strings"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
)

// Read-only data.
var (
	xtsPoly    Mem // 0x87 in the low quadword: the reduction of x^128
	xtsDouble  Mem // doubling mask: dwords 0x87, 0, 1, 0
	xtsShl     Mem // quadword shift counts for mulX with perLane, zmm
	xtsShr     Mem
	xtsShl256  Mem // the same for ymm
	xtsShr256  Mem
	xtsCTSShuf Mem // 16 x 0x80, 0..15, 16 x 0x80: PSHUFB masks for stealing
	xtsCTSMask Mem // 16 x 0x00, 16 x 0xff
	// xtsCarryMask: the low byte of every 128-bit lane (64 bytes), then
	// the low two bytes of every lane (64 bytes), for rotateFold.
	xtsCarryMask Mem
)

func genXTSData() {
	xtsPoly = GLOBL("xtsPoly", RODATA|NOPTR)
	DATA(0, U64(0x87))
	DATA(8, U64(0))

	xtsDouble = GLOBL("xtsDouble", RODATA|NOPTR)
	DATA(0, U32(0x87))
	DATA(4, U32(0))
	DATA(8, U32(1))
	DATA(12, U32(0))

	// Per-lane shift counts for mulX: vector j, lane l of L lanes
	// gets jL+l (both 64-bit halves), and 64 minus that.
	for _, t := range []struct {
		shl, shr *Mem
		name     string
		lanes    int
	}{{&xtsShl, &xtsShr, "xtsShl512", 4}, {&xtsShl256, &xtsShr256, "xtsShl256", 2}} {
		*t.shl = GLOBL(t.name, RODATA|NOPTR)
		for i := 0; i < 8*t.lanes; i++ {
			DATA(8*i, U64(uint64(i/2)))
		}
		*t.shr = GLOBL(strings.Replace(t.name, "Shl", "Shr", 1), RODATA|NOPTR)
		for i := 0; i < 8*t.lanes; i++ {
			DATA(8*i, U64(uint64(64-i/2)))
		}
	}

	xtsCarryMask = GLOBL("xtsCarryMask", RODATA|NOPTR)
	for b := 1; b <= 2; b++ {
		for lane := 0; lane < 4; lane++ {
			DATA(64*(b-1)+16*lane, U64(uint64(1)<<(8*b)-1))
			DATA(64*(b-1)+16*lane+8, U64(0))
		}
	}

	xtsCTSShuf = GLOBL("xtsCTSShuf", RODATA|NOPTR)
	for i := 0; i < 48; i++ {
		b := byte(0x80)
		if i >= 16 && i < 32 {
			b = byte(i - 16)
		}
		DATA(i, U8(b))
	}
	xtsCTSMask = GLOBL("xtsCTSMask", RODATA|NOPTR)
	for i := 0; i < 32; i++ {
		b := byte(0)
		if i >= 16 {
			b = 0xff
		}
		DATA(i, U8(b))
	}
}
