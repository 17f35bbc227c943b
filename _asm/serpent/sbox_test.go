package main

import (
	"testing"
	"time"
)

// TestSboxCircuits checks every synthesized S-box circuit, and its inverse,
// on all 16 inputs by evaluating it independently of the generator's own
// check: nibble by nibble, bit by bit.
func TestSboxCircuits(t *testing.T) {
	start := time.Now()
	for _, c := range []struct {
		inv      bool
		maxDepth int
	}{{false, 0}, {true, 0}, {false, 2}, {true, 2}} {
		inv, maxDepth := c.inv, c.maxDepth
		cs := sboxCircuits(inv, c.maxDepth)
		for i, c := range cs {
			s := sboxTables[i]
			if inv {
				s = inverse(s)
			}
			for v := range 16 {
				vals := []bool{v&1 != 0, v&2 != 0, v&4 != 0, v&8 != 0}
				for _, n := range c.nodes {
					idx := 0
					for _, x := range []int{n.a, n.b, n.c} {
						idx <<= 1
						if vals[x] {
							idx |= 1
						}
					}
					vals = append(vals, n.imm>>idx&1 != 0)
				}
				got := 0
				for j := range 4 {
					if vals[c.out[j]] {
						got |= 1 << j
					}
				}
				if got != int(s[v]) {
					t.Errorf("S-box %d (inverse %v): S(%d) = %d, want %d", i, inv, v, got, s[v])
				}
			}
			depth := make([]int, 4+len(c.nodes))
			for k, n := range c.nodes {
				depth[4+k] = 1 + max(depth[n.a], depth[n.b], depth[n.c])
			}
			deepest := 0
			for _, o := range c.out {
				deepest = max(deepest, depth[o])
			}
			if maxDepth > 0 && deepest > maxDepth {
				t.Errorf("S-box %d (inverse %v): depth %d, want at most %d", i, inv, deepest, maxDepth)
			}
			t.Logf("S-box %d inverse=%v maxDepth=%d: %d nodes, depth %d", i, inv, maxDepth, len(c.nodes), deepest)
		}
	}
	t.Logf("synthesis took %v", time.Since(start))
}

// TestSboxTables checks the tables are permutations and inverse undoes them.
func TestSboxTables(t *testing.T) {
	for i, s := range sboxTables {
		inv := inverse(s)
		for v := range 16 {
			if inv[s[v]] != uint8(v) {
				t.Fatalf("S-box %d is not a permutation", i)
			}
		}
	}
}
