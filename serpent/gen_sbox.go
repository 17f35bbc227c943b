// Copyright 2026 The fastxts Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build ignore

// gen_sbox.go writes zsbox.go: Serpent's sixteen 4-bit S-boxes (eight and
// their inverses) as straight-line sequences of boolean gates over 32-bit
// words, and the fully unrolled 32-round block functions built from them.
//
// Run it with `go generate` (or `go run gen_sbox.go`) in this directory.
//
// The S-box tables below are those of the Serpent specification (Anderson,
// Biham, Knudsen: "Serpent: A Proposal for the Advanced Encryption
// Standard", 1998). The gate sequences are found by a small search written
// for this package: each output bit is a truth table over the four input
// bits, decomposed recursively (Shannon expansion f = f0 ^ (v & (f0^f1)) on
// an input v, or an XOR with a value already computed), reusing every value
// already computed for the outputs built before it. Every choice is scored
// by the delay of the critical path through the round (inputs arrive from
// the linear transformation at different times, and it needs some outputs
// before others) first and the number of gates second, because a round is
// one long dependency chain. Outputs are built in the order that scores
// best. The result is checked against the table here and again by
// TestSboxes. The search takes a minute or two.
package main

import (
	"bytes"
	"fmt"
	"go/format"
	"log"
	"os"
)

var sboxes = [8][16]uint8{
	{3, 8, 15, 1, 10, 6, 5, 11, 14, 13, 4, 2, 7, 0, 9, 12},
	{15, 12, 2, 7, 9, 0, 5, 10, 1, 11, 14, 8, 6, 13, 3, 4},
	{8, 6, 7, 9, 3, 12, 10, 15, 13, 1, 14, 4, 0, 11, 5, 2},
	{0, 15, 11, 8, 12, 9, 6, 3, 13, 1, 2, 4, 10, 7, 5, 14},
	{1, 15, 8, 3, 12, 0, 11, 6, 2, 5, 4, 10, 9, 14, 7, 13},
	{15, 5, 2, 11, 4, 10, 9, 12, 0, 3, 14, 8, 13, 6, 7, 1},
	{7, 2, 12, 5, 8, 4, 6, 11, 14, 9, 1, 15, 13, 3, 10, 0},
	{1, 13, 15, 0, 14, 8, 2, 11, 7, 4, 12, 10, 9, 3, 5, 6},
}

// Gate kinds.
const (
	opInput = iota
	opNot
	opAnd
	opOr
	opXor
	opAndNot // a &^ b
)

// cost of each gate kind: a &^ b is a NOT and an AND on CPUs without ANDN.
var opCost = [...]int{opInput: 0, opNot: 1, opAnd: 1, opOr: 1, opXor: 1, opAndNot: 2}

type gate struct {
	op   int
	a, b uint16 // operand truth tables
	f    uint16 // result truth table
}

func apply(op int, a, b uint16) uint16 {
	switch op {
	case opNot:
		return ^a
	case opAnd:
		return a & b
	case opOr:
		return a | b
	case opXor:
		return a ^ b
	case opAndNot:
		return a &^ b
	}
	panic("bad op")
}

// vars are the truth tables of the four inputs: bit x of vars[i] is bit i
// of x.
var vars = [4]uint16{0xAAAA, 0xCCCC, 0xF0F0, 0xFF00}

// set is the computed truth tables, in the order they were computed, and
// the time at which each is ready (gate delays, inputs at their arrival
// times).
type set struct {
	list []uint16
	t    map[uint16]int
}

func newSet(in [4]int) *set {
	s := &set{t: map[uint16]int{}}
	for i, v := range vars {
		s.list = append(s.list, v)
		s.t[v] = in[i]
	}
	return s
}

func (s *set) has(f uint16) bool {
	_, ok := s.t[f]
	return ok
}

// gateTime is when g's result is ready, given when its operands are.
func gateTime(t map[uint16]int, g gate) int {
	switch g.op {
	case opNot:
		return t[g.a] + 1
	case opAndNot: // a & ^b: the NOT is on b only
		return max(t[g.a], t[g.b]+1) + 1
	}
	return max(t[g.a], t[g.b]) + 1
}

func (s *set) add(g gate) {
	if !s.has(g.f) {
		s.t[g.f] = gateTime(s.t, g)
		s.list = append(s.list, g.f)
	}
}

func (s *set) clone() *set {
	c := &set{list: append([]uint16(nil), s.list...), t: make(map[uint16]int, len(s.t))}
	for k, v := range s.t {
		c.t[k] = v
	}
	return c
}

func planCost(p []gate) int {
	n := 0
	for _, g := range p {
		n += opCost[g.op]
	}
	return n
}

// depthWeight is how many gates one gate delay on the critical path is
// worth: a round of Serpent is one long dependency chain, so a CPU that
// issues several operations per cycle is bound by the delay, not the
// count.
const depthWeight = 4

// metric scores plan p for computing f from s: its delay and its size.
func metric(s *set, p []gate, f uint16) int {
	if len(p) == 0 {
		return depthWeight * s.t[f]
	}
	t := make(map[uint16]int, len(p)+8)
	for _, g := range p {
		for _, x := range []uint16{g.a, g.b} {
			if _, ok := t[x]; !ok {
				if v, ok := s.t[x]; ok {
					t[x] = v
				}
			}
		}
		if _, ok := t[g.f]; !ok {
			if v, ok := s.t[g.f]; ok {
				t[g.f] = v
			} else {
				t[g.f] = gateTime(t, g)
			}
		}
	}
	return depthWeight*t[f] + planCost(p)
}

// cofactors returns f with input v fixed to 0 and to 1, each as a truth
// table over all four inputs that does not depend on v.
func cofactors(f uint16, v int) (f0, f1 uint16) {
	m := vars[v]
	sh := uint(1) << v
	lo := f &^ m // entries with bit v clear
	hi := f & m  // entries with bit v set
	f0 = lo | lo<<sh
	f1 = hi | hi>>sh
	return
}

// solve returns a short gate sequence that computes f from the values in
// s, or nil and false if none was found within depth.
func solve(s *set, f uint16, depth int, xorSplit bool) ([]gate, bool) {
	if s.has(f) {
		return nil, true
	}
	if f == 0 || f == 0xFFFF {
		return nil, false
	}
	if s.has(^f) {
		return []gate{{opNot, ^f, 0, f}}, true
	}
	// One gate from two computed values.
	var best []gate
	found := false
	for _, op := range []int{opXor, opAnd, opOr, opAndNot} {
		for _, a := range s.list {
			for _, b := range s.list {
				if apply(op, a, b) == f {
					g := []gate{{op, a, b, f}}
					if !found || metric(s, g, f) < metric(s, best, f) {
						best, found = g, true
					}
				}
			}
		}
	}
	if found && planCost(best) == 1 && depthWeight == 0 {
		return best, true
	}
	if depth == 0 {
		return best, found
	}
	try := func(p []gate) {
		if !found || metric(s, p, f) < metric(s, best, f) {
			best, found = p, true
		}
	}
	// seq solves the subfunctions in order, each seeing the previous ones,
	// then appends the final gates.
	seq := func(subs []uint16, tail []gate) {
		c := s.clone()
		var p []gate
		for _, sub := range subs {
			q, ok := solve(c, sub, depth-1, false)
			if !ok {
				return
			}
			for _, g := range q {
				c.add(g)
			}
			p = append(p, q...)
			if found && planCost(p) >= metric(s, best, f) {
				return
			}
		}
		try(append(p, tail...))
	}
	for v := range vars {
		x := vars[v]
		f0, f1 := cofactors(f, v)
		if f0 == f1 {
			continue // f does not depend on v
		}
		d := f0 ^ f1
		t := x & d
		switch {
		case f0 == 0:
			seq([]uint16{f1}, []gate{{opAnd, x, f1, f}})
		case f1 == 0:
			seq([]uint16{f0}, []gate{{opAndNot, f0, x, f}})
		case d == 0xFFFF:
			seq([]uint16{f0}, []gate{{opXor, f0, x, f}})
		case f0 == 0xFFFF:
			seq([]uint16{d}, []gate{{opAnd, x, d, t}, {opNot, t, 0, f}})
		default:
			seq([]uint16{f0, d}, []gate{{opAnd, x, d, t}, {opXor, f0, t, f}})
			seq([]uint16{d, f0}, []gate{{opAnd, x, d, t}, {opXor, f0, t, f}})
			// f = f0 | (x & f1) when f0 implies f1
			if f0&^f1 == 0 {
				seq([]uint16{f0, f1}, []gate{{opAnd, x, f1, x & f1}, {opOr, f0, x & f1, f}})
			}
			// f = f1 | (f0 &^ x) when f1 implies f0
			if f1&^f0 == 0 {
				seq([]uint16{f1, f0}, []gate{{opAndNot, f0, x, f0 &^ x}, {opOr, f1, f0 &^ x, f}})
			}
		}
	}
	if xorSplit {
		for _, g := range s.list {
			h := f ^ g
			if h == 0 || h == 0xFFFF {
				continue
			}
			seq([]uint16{h}, []gate{{opXor, g, h, f}})
		}
	}
	return best, found
}

// circuit finds gates for the four output bits of sbox, for inputs that
// arrive at times in and outputs that are needed slack[j] gate delays
// after the first one: it minimises depthWeight times the critical path
// plus the gate count.
func circuit(sbox [16]uint8, in, slack [4]int) (gates []gate, outs [4]uint16) {
	for j := range outs {
		for x := range 16 {
			if sbox[x]>>j&1 != 0 {
				outs[j] |= 1 << x
			}
		}
	}
	bestCost := -1
	var perm func(order []int, rest []int)
	perm = func(order []int, rest []int) {
		if len(rest) == 0 {
			s := newSet(in)
			var p []gate
			for _, j := range order {
				q, ok := solve(s, outs[j], 4, true)
				if !ok {
					return
				}
				for _, g := range q {
					s.add(g)
				}
				p = append(p, q...)
			}
			crit := 0
			for j, o := range outs {
				crit = max(crit, s.t[o]-slack[j])
			}
			if c := depthWeight*crit + planCost(p); bestCost < 0 || c < bestCost {
				bestCost, gates = c, p
			}
			return
		}
		for i := range rest {
			r := append(append([]int(nil), rest[:i]...), rest[i+1:]...)
			perm(append(order, rest[i]), r)
		}
	}
	perm(nil, []int{0, 1, 2, 3})
	return gates, outs
}

// check evaluates gates on all 16 inputs and compares with outs.
func check(gates []gate, outs [4]uint16) {
	have := map[uint16]bool{}
	for _, v := range vars {
		have[v] = true
	}
	for _, g := range gates {
		if !have[g.a] || (g.op != opNot && !have[g.b]) {
			log.Fatalf("gate uses a value not yet computed")
		}
		if apply(g.op, g.a, g.b) != g.f {
			log.Fatalf("gate computes the wrong function")
		}
		have[g.f] = true
	}
	for _, o := range outs {
		if !have[o] {
			log.Fatalf("output not computed")
		}
	}
}

// depths returns the number of gate delays to each output when input i
// arrives at time in[i].
func depths(gates []gate, outs [4]uint16, in [4]int) (d [4]int) {
	t := map[uint16]int{}
	for i, v := range vars {
		t[v] = in[i]
	}
	for _, g := range gates {
		if _, ok := t[g.f]; !ok {
			t[g.f] = gateTime(t, g)
		}
	}
	for j, o := range outs {
		d[j] = t[o]
	}
	return d
}

func invert(s [16]uint8) (r [16]uint8) {
	for x, y := range s {
		r[y] = uint8(x)
	}
	return
}

// emit writes the gates as Go statements over in0..in3 into out0..out3.
// Names of temporaries get prefix p.
func emit(w *bytes.Buffer, gates []gate, outs [4]uint16, in, out [4]string, p string) {
	name := map[uint16]string{}
	for i, v := range vars {
		name[v] = in[i]
	}
	for i, g := range gates {
		n := fmt.Sprintf("%s%d", p, i)
		switch g.op {
		case opNot:
			fmt.Fprintf(w, "%s := ^%s\n", n, name[g.a])
		case opAnd:
			fmt.Fprintf(w, "%s := %s & %s\n", n, name[g.a], name[g.b])
		case opOr:
			fmt.Fprintf(w, "%s := %s | %s\n", n, name[g.a], name[g.b])
		case opXor:
			fmt.Fprintf(w, "%s := %s ^ %s\n", n, name[g.a], name[g.b])
		case opAndNot:
			fmt.Fprintf(w, "%s := %s &^ %s\n", n, name[g.a], name[g.b])
		}
		name[g.f] = n
	}
	fmt.Fprintf(w, "%s, %s, %s, %s = %s, %s, %s, %s\n", out[0], out[1], out[2], out[3],
		name[outs[0]], name[outs[1]], name[outs[2]], name[outs[3]])
}

// The timing context of the S-boxes in a round, in gate delays, from the
// way lt and ltInv in serpent.go are written: in encryption the words
// leave lt (and the round key XOR) at times encIn, and lt needs output j
// of the next S-box encSlack[j] delays after its first; in decryption the
// same for ltInv feeding the inverse S-boxes, whose outputs go through the
// round key XOR into ltInv.
var (
	encIn    = [4]int{3, 0, 4, 1}
	encSlack = [4]int{0, 2, 0, 3}
	decIn    = [4]int{0, 2, 1, 2}
	decSlack = [4]int{0, 0, 1, 0}
)

// ltText and ltInvText are lt and ltInv of serpent.go, written out: the
// compiler does not inline calls into a function as large as the unrolled
// rounds.
const (
	ltText = `x0 = bits.RotateLeft32(x0, 13)
x2 = bits.RotateLeft32(x2, 3)
x1 ^= x0 ^ x2
x3 ^= x2 ^ x0<<3
x1 = bits.RotateLeft32(x1, 1)
x3 = bits.RotateLeft32(x3, 7)
x0 ^= x1 ^ x3
x2 ^= x3 ^ x1<<7
x0 = bits.RotateLeft32(x0, 5)
x2 = bits.RotateLeft32(x2, 22)
`
	ltInvText = `x2 = bits.RotateLeft32(x2, -22)
x0 = bits.RotateLeft32(x0, -5)
x2 ^= x3 ^ x1<<7
x0 ^= x1 ^ x3
x3 = bits.RotateLeft32(x3, -7)
x1 = bits.RotateLeft32(x1, -1)
x3 ^= x2 ^ x0<<3
x1 ^= x0 ^ x2
x2 = bits.RotateLeft32(x2, -3)
x0 = bits.RotateLeft32(x0, -13)
`
)

func main() {
	var fwd, inv [8][]gate
	var fwdOut, invOut [8][4]uint16
	total := 0
	for i, s := range sboxes {
		fwd[i], fwdOut[i] = circuit(s, encIn, encSlack)
		check(fwd[i], fwdOut[i])
		inv[i], invOut[i] = circuit(invert(s), decIn, decSlack)
		check(inv[i], invOut[i])
		log.Printf("S%d: %d gates (cost %d), inverse %d gates (cost %d)", i,
			len(fwd[i]), planCost(fwd[i]), len(inv[i]), planCost(inv[i]))
		total += planCost(fwd[i]) + planCost(inv[i])
	}
	log.Printf("total cost %d", total)
	for i := range 8 {
		log.Printf("S%d depth %v, inverse depth %v", i, depths(fwd[i], fwdOut[i], encIn), depths(inv[i], invOut[i], decIn))
	}

	w := new(bytes.Buffer)
	fmt.Fprintf(w, "// Code generated by gen_sbox.go; DO NOT EDIT.\n\npackage serpent\n\nimport \"math/bits\"\n\n")
	xs := [4]string{"x0", "x1", "x2", "x3"}
	ys := [4]string{"y0", "y1", "y2", "y3"}
	for i := range 8 {
		for _, dir := range []string{"", "Inv"} {
			g, o := fwd[i], fwdOut[i]
			if dir == "Inv" {
				g, o = inv[i], invOut[i]
			}
			fmt.Fprintf(w, "// sbox%d%s applies S-box %d%s to 32 nibbles at once: bit k of\n", i, dir, i,
				map[string]string{"": "", "Inv": "'s inverse"}[dir])
			fmt.Fprintf(w, "// x0..x3 (least significant first) is the input nibble k, and of\n// y0..y3 the output nibble k. %d gates.\n", len(g))
			fmt.Fprintf(w, "func sbox%d%s(x0, x1, x2, x3 uint32) (y0, y1, y2, y3 uint32) {\n", i, dir)
			emit(w, g, o, xs, ys, "t")
			fmt.Fprintf(w, "return\n}\n\n")
		}
	}
	fmt.Fprintf(w, "var sboxFuncs = [8]func(x0, x1, x2, x3 uint32) (y0, y1, y2, y3 uint32){\n")
	for i := range 8 {
		fmt.Fprintf(w, "sbox%d,", i)
	}
	fmt.Fprintf(w, "}\n\nvar sboxInvFuncs = [8]func(x0, x1, x2, x3 uint32) (y0, y1, y2, y3 uint32){\n")
	for i := range 8 {
		fmt.Fprintf(w, "sbox%dInv,", i)
	}
	fmt.Fprintf(w, "}\n\n")

	// The unrolled block functions.
	fmt.Fprintf(w, "// encryptWords runs the 32 rounds on the block x0..x3 (bitslice\n")
	fmt.Fprintf(w, "// representation: word 0 holds bits 0..31) under the round keys k.\n")
	fmt.Fprintf(w, "func encryptWords(k *[132]uint32, x0, x1, x2, x3 uint32) (uint32, uint32, uint32, uint32) {\n")
	for r := range 32 {
		fmt.Fprintf(w, "// round %d\n", r)
		fmt.Fprintf(w, "x0 ^= k[%d]\nx1 ^= k[%d]\nx2 ^= k[%d]\nx3 ^= k[%d]\n", 4*r, 4*r+1, 4*r+2, 4*r+3)
		fmt.Fprintf(w, "{\n")
		emit(w, fwd[r%8], fwdOut[r%8], xs, xs, "t")
		fmt.Fprintf(w, "}\n")
		if r < 31 {
			fmt.Fprint(w, ltText)
		}
	}
	fmt.Fprintf(w, "x0 ^= k[128]\nx1 ^= k[129]\nx2 ^= k[130]\nx3 ^= k[131]\n")
	fmt.Fprintf(w, "return x0, x1, x2, x3\n}\n\n")

	fmt.Fprintf(w, "// decryptWords inverts encryptWords.\n")
	fmt.Fprintf(w, "func decryptWords(k *[132]uint32, x0, x1, x2, x3 uint32) (uint32, uint32, uint32, uint32) {\n")
	fmt.Fprintf(w, "x0 ^= k[128]\nx1 ^= k[129]\nx2 ^= k[130]\nx3 ^= k[131]\n")
	for r := 31; r >= 0; r-- {
		fmt.Fprintf(w, "// round %d\n", r)
		if r < 31 {
			fmt.Fprint(w, ltInvText)
		}
		fmt.Fprintf(w, "{\n")
		emit(w, inv[r%8], invOut[r%8], xs, xs, "t")
		fmt.Fprintf(w, "}\n")
		fmt.Fprintf(w, "x0 ^= k[%d]\nx1 ^= k[%d]\nx2 ^= k[%d]\nx3 ^= k[%d]\n", 4*r, 4*r+1, 4*r+2, 4*r+3)
	}
	fmt.Fprintf(w, "return x0, x1, x2, x3\n}\n")

	src, err := format.Source(w.Bytes())
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("zsbox.go", src, 0o644); err != nil {
		log.Fatal(err)
	}
}
