package main

import (
	"fmt"
	"math"
)

// Serpent's eight S-boxes, from the specification (Anderson, Biham,
// Knudsen: "Serpent: A Proposal for the Advanced Encryption Standard").
var sboxTables = [8][16]uint8{
	{3, 8, 15, 1, 10, 6, 5, 11, 14, 13, 4, 2, 7, 0, 9, 12},
	{15, 12, 2, 7, 9, 0, 5, 10, 1, 11, 14, 8, 6, 13, 3, 4},
	{8, 6, 7, 9, 3, 12, 10, 15, 13, 1, 14, 4, 0, 11, 5, 2},
	{0, 15, 11, 8, 12, 9, 6, 3, 13, 1, 2, 4, 10, 7, 5, 14},
	{1, 15, 8, 3, 12, 0, 11, 6, 2, 5, 4, 10, 9, 14, 7, 13},
	{15, 5, 2, 11, 4, 10, 9, 12, 0, 3, 14, 8, 13, 6, 7, 1},
	{7, 2, 12, 5, 8, 4, 6, 11, 14, 9, 1, 15, 13, 3, 10, 0},
	{1, 13, 15, 0, 14, 8, 2, 11, 7, 4, 12, 10, 9, 3, 5, 6},
}

// inverse returns the inverse permutation of s.
func inverse(s [16]uint8) [16]uint8 {
	var r [16]uint8
	for i, v := range s {
		r[v] = uint8(i)
	}
	return r
}

// A circuit computes a 4-bit S-box on bitsliced words with three-input
// boolean functions, each one VPTERNLOGD. Values 0-3 are the inputs x0-x3
// (x0 the least significant bit of each nibble); value 4+i is nodes[i].
type circuit struct {
	nodes []tnode
	out   [4]int // the value holding output bit j
}

// tnode is one ternary-logic instruction: result bit = imm bit number
// (a<<2 | b<<1 | c), the convention of VPTERNLOGD with a the destination
// and first source.
type tnode struct {
	imm     uint8
	a, b, c int
}

// A truth table: bit v is the value for the input nibble v.
type tt uint16

var inputTT = [4]tt{0xAAAA, 0xCCCC, 0xF0F0, 0xFF00}

// tern evaluates a ternary function on truth tables.
func tern(imm uint8, a, b, c tt) tt {
	var r tt
	for i := range 8 {
		if imm>>i&1 == 0 {
			continue
		}
		m := ^tt(0)
		m &= pick(i&4 != 0, a)
		m &= pick(i&2 != 0, b)
		m &= pick(i&1 != 0, c)
		r |= m
	}
	return r
}

func pick(one bool, x tt) tt {
	if one {
		return x
	}
	return ^x
}

// fit reports whether f is a function of (a, b, c) and returns its imm.
func fit(f, a, b, c tt) (uint8, bool) {
	var imm uint8
	for i := range 8 {
		m := pick(i&4 != 0, a) & pick(i&2 != 0, b) & pick(i&1 != 0, c)
		switch f & m {
		case 0:
		case m:
			imm |= 1 << i
		default:
			return 0, false
		}
	}
	return imm, true
}

// outputTT is the truth table of output bit j of s.
func outputTT(s [16]uint8, j int) tt {
	var f tt
	for v := range 16 {
		f |= tt(s[v]>>j&1) << v
	}
	return f
}

// eval returns the truth tables of every value of c.
func (c *circuit) eval() []tt {
	vals := append([]tt(nil), inputTT[:]...)
	for _, n := range c.nodes {
		vals = append(vals, tern(n.imm, vals[n.a], vals[n.b], vals[n.c]))
	}
	return vals
}

// synth finds a circuit for s: for the outputs in each of the 24 orders,
// each output is an existing value, one new node over three existing
// values, two new nodes (one over three existing values, one over it and
// two existing values), or else three (the Shannon expansion on x3 of two
// three-input functions); the order with the fewest nodes wins (the first
// one on ties).
//
// With maxDepth 2, every output is at most two nodes deep (a node's depth
// is one more than its deepest operand's, the inputs' is 0): only values
// shallow enough are reused. Such circuits take a node or two more, but
// the round's dependency chain is shorter, which pays where too few
// blocks are in flight to hide it (the one- and two-set steps).
func synth(s [16]uint8, maxDepth int) *circuit {
	var best *circuit
	for _, order := range permutations4() {
		c := &circuit{}
		vals := append([]tt(nil), inputTT[:]...)
		depth := make([]int, 4, 32)
		add := func(n tnode) int {
			c.nodes = append(c.nodes, n)
			vals = append(vals, tern(n.imm, vals[n.a], vals[n.b], vals[n.c]))
			depth = append(depth, 1+max(depth[n.a], depth[n.b], depth[n.c]))
			return len(vals) - 1
		}
		limit := maxDepth
		if limit <= 0 {
			limit = math.MaxInt // no bound: every value may be reused
		}
		for _, j := range order {
			c.out[j] = synthShallow(outputTT(s, j), vals, depth, limit, add)
		}
		if best == nil || len(c.nodes) < len(best.nodes) {
			best = c
		}
	}
	return best
}

// synthShallow returns the index of a value equal to f, adding nodes with
// add where none is, for circuits at most maxDepth deep (math.MaxInt: no
// bound): an existing value, one node over values less deep than
// maxDepth, two nodes (h over values at most maxDepth-2 deep, then f over
// h and two values less deep than maxDepth), or the Shannon expansion on
// x3 (depth 2). Each search goes through the values in index order, so
// the first fit found, and the circuit, are the same on every run.
func synthShallow(f tt, vals []tt, depth []int, maxDepth int, add func(tnode) int) int {
	for i, v := range vals {
		if v == f && depth[i] <= maxDepth {
			return i
		}
	}
	var ok1, ok2 []int // values usable below a node at the top, below two
	for i := range vals {
		if depth[i] < maxDepth {
			ok1 = append(ok1, i)
		}
		if depth[i] <= maxDepth-2 {
			ok2 = append(ok2, i)
		}
	}
	for ia, a := range ok1 {
		for ib := ia + 1; ib < len(ok1); ib++ {
			b := ok1[ib]
			for _, c := range ok1[ib+1:] {
				if imm, ok := fit(f, vals[a], vals[b], vals[c]); ok {
					return add(tnode{imm, a, b, c})
				}
			}
		}
	}
	for ia, a := range ok2 {
		for ib := ia + 1; ib < len(ok2); ib++ {
			b := ok2[ib]
			for _, c := range ok2[ib+1:] {
				for hi := range 256 {
					h := tern(uint8(hi), vals[a], vals[b], vals[c])
					for ip, p := range ok1 {
						for _, q := range ok1[ip+1:] {
							if imm, ok := fit(f, h, vals[p], vals[q]); ok {
								x := add(tnode{uint8(hi), a, b, c})
								return add(tnode{imm, x, p, q})
							}
						}
					}
				}
			}
		}
	}
	f0 := f & 0xFF
	f0 |= f0 << 8
	f1 := f >> 8
	f1 |= f1 << 8
	i0, fits0 := fit(f0, inputTT[0], inputTT[1], inputTT[2])
	i1, fits1 := fit(f1, inputTT[0], inputTT[1], inputTT[2])
	if !fits0 || !fits1 {
		panic("unreachable: every three-input function fits")
	}
	h0 := add(tnode{i0, 0, 1, 2})
	h1 := add(tnode{i1, 0, 1, 2})
	// mux(x3, h1, h0): a ? b : c
	return add(tnode{0xCA, 3, h1, h0})
}

func permutations4() [][4]int {
	var r [][4]int
	var rec func(p []int, used int)
	rec = func(p []int, used int) {
		if len(p) == 4 {
			r = append(r, [4]int{p[0], p[1], p[2], p[3]})
			return
		}
		for i := range 4 {
			if used>>i&1 == 0 {
				rec(append(p, i), used|1<<i)
			}
		}
	}
	rec(nil, 0)
	return r
}

// check verifies c against s on all 16 inputs.
func (c *circuit) check(s [16]uint8) error {
	vals := c.eval()
	for j := range 4 {
		if vals[c.out[j]] != outputTT(s, j) {
			return fmt.Errorf("output %d: %#04x, want %#04x", j, vals[c.out[j]], outputTT(s, j))
		}
	}
	return nil
}

// sboxCircuits returns the circuits of the eight S-boxes (inv false) or of
// their inverses, checked; maxDepth as for synth (0: no limit).
func sboxCircuits(inv bool, maxDepth int) [8]*circuit {
	var r [8]*circuit
	for i, s := range sboxTables {
		if inv {
			s = inverse(s)
		}
		r[i] = synth(s, maxDepth)
		if err := r[i].check(s); err != nil {
			panic(fmt.Sprintf("S-box %d (inverse %v): %v", i, inv, err))
		}
	}
	return r
}
