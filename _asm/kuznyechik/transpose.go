package main

import "fmt"

// The byte transposition between the blocks' layout (four blocks per
// register, one per 128-bit lane) and the byte-sliced one (byte i of every
// block in one register) is a network of lane-wise unpack instructions.
// The generator runs the network on symbolic registers first: every byte
// carries its block and byte number, so the plan it emits is checked, and
// the register that holds each byte (and, coming back, each group of four
// blocks) is read off the simulation rather than worked out by hand.

// cell is one byte of a symbolic register: byte `byte` of block `block`.
type cell struct{ block, byte int }

type symReg [64]cell

// unpack is VPUNPCKL*/VPUNPCKH* on elements of e bytes: in each 128-bit
// lane, the low (or high) half of a's and b's elements interleaved, a's
// first.
func unpack(a, b symReg, e int, hi bool) symReg {
	var d symReg
	n := 16 / e // elements per lane
	off := 0
	if hi {
		off = n / 2
	}
	for lane := range 4 {
		base := 16 * lane
		for i := range n / 2 {
			for k := range e {
				d[base+e*(2*i)+k] = a[base+e*(off+i)+k]
				d[base+e*(2*i+1)+k] = b[base+e*(off+i)+k]
			}
		}
	}
	return d
}

// step is one unpack of the network: registers at list positions lo and
// hi in, the low half's interleave to position lo, the high half's to hi.
type step struct {
	e      int
	lo, hi int
}

// network is the transposition plan: four stages, elements of 1, 2, 4, 8
// bytes, pairing list positions p and p+2^s.
func network() [][]step {
	var stages [][]step
	for s := range 4 {
		d := 1 << s
		var st []step
		for p := range 16 {
			if p&d == 0 {
				st = append(st, step{e: 1 << s, lo: p, hi: p + d})
			}
		}
		stages = append(stages, st)
	}
	return stages
}

// simulate runs the network on a list of symbolic registers.
func simulate(in [16]symReg) [16]symReg {
	l := in
	for _, st := range network() {
		var next [16]symReg
		for _, s := range st {
			next[s.lo] = unpack(l[s.lo], l[s.hi], s.e, false)
			next[s.hi] = unpack(l[s.lo], l[s.hi], s.e, true)
		}
		l = next
	}
	return l
}

// blockLayout is the loaded data: list position k holds blocks 4k..4k+3,
// one per lane, bytes in memory order.
func blockLayout() (in [16]symReg) {
	for k := range 16 {
		for p := range 64 {
			in[k][p] = cell{block: 4*k + p/16, byte: p % 16}
		}
	}
	return in
}

// plan is what the simulation establishes: after the forward network,
// list position sliceOf[i] holds byte i of every block (the same block at
// the same position in all sixteen); after the backward network, fed
// with the byte-sliced registers in byte order, list position groupOf[k]
// holds blocks 4k..4k+3 as they were loaded.
type plan struct {
	sliceOf [16]int
	groupOf [16]int
}

func makePlan() plan {
	var pl plan
	out := simulate(blockLayout())
	for q, r := range out {
		b := r[0].byte
		for p, c := range r {
			if c.byte != b {
				panic(fmt.Sprintf("kuznyechik generator: forward register %d mixes bytes %d and %d", q, b, c.byte))
			}
			if c.block != out[0][p].block {
				panic(fmt.Sprintf("kuznyechik generator: position %d holds blocks %d and %d", p, c.block, out[0][p].block))
			}
		}
		pl.sliceOf[b] = q
	}
	var sliced [16]symReg
	for i := range 16 {
		sliced[i] = out[pl.sliceOf[i]]
	}
	back := simulate(sliced)
	seen := map[int]bool{}
	for q, r := range back {
		k := r[0].block / 4
		for p, c := range r {
			if c != (cell{block: 4*k + p/16, byte: p % 16}) {
				panic(fmt.Sprintf("kuznyechik generator: backward register %d position %d holds %+v", q, p, c))
			}
		}
		if seen[k] {
			panic("kuznyechik generator: a group comes back twice")
		}
		seen[k] = true
		pl.groupOf[k] = q
	}
	return pl
}
