package main

import "testing"

// TestMulMatrices checks every emitted matrix against multiplication
// written differently from gfMul: as a polynomial product, then reduced
// modulo x^8 + x^7 + x^6 + x + 1 from the top bit down; and VGF2P8AFFINEQB
// evaluated from its definition bit by bit.
func TestMulMatrices(t *testing.T) {
	for _, c := range mulCoefs {
		m := mulMatrix(c)
		for x := range 256 {
			var p uint16
			for i := range 8 {
				if x>>i&1 != 0 {
					p ^= uint16(c) << i
				}
			}
			for i := 15; i >= 8; i-- {
				if p>>i&1 != 0 {
					p ^= 0x1C3 << (i - 8)
				}
			}
			var y byte
			for i := range 8 {
				bit := 0
				for j := range 8 {
					bit ^= int(m>>(8*(7-i)+j)&1) & (x >> j & 1)
				}
				y |= byte(bit) << i
			}
			if y != byte(p) {
				t.Fatalf("matrix of %d: %d -> %d, want %d", c, x, y, p)
			}
		}
	}
	if len(mulCoefs) != 7 {
		t.Errorf("%d distinct coefficients other than 1, want 7", len(mulCoefs))
	}
}

// TestTransposePlan: the forward network puts byte i of every block in
// one register (makePlan panics otherwise) and the backward one restores
// every group of four blocks; both maps are permutations.
func TestTransposePlan(t *testing.T) {
	pl := makePlan()
	for _, m := range [][16]int{pl.sliceOf, pl.groupOf} {
		seen := map[int]bool{}
		for _, v := range m {
			if v < 0 || v >= 16 || seen[v] {
				t.Fatalf("not a permutation: %v", m)
			}
			seen[v] = true
		}
	}
}

// TestPiInverse: π is a permutation and the decryption table inverts it.
func TestPiInverse(t *testing.T) {
	inv := inverse(pi)
	for x := range 256 {
		if inv[pi[x]] != byte(x) {
			t.Fatalf("π^-1(π(%d)) = %d", x, inv[pi[x]])
		}
	}
}
