package main

import (
	"encoding/hex"
	"testing"

	"github.com/fastxts/xts/_asm/internal/gf2p8"
)

// TestMulMatrices checks the emitted matrices against the standard: R
// computed with them (ℓ as VGF2P8AFFINEQB of each coefficient's matrix,
// XORed) gives the four examples of R in RFC 7801, section 5.2 (the
// coefficients' order, the field's modulus and the matrices' layout all
// enter); gf2p8's tests check the arithmetic itself.
func TestMulMatrices(t *testing.T) {
	r := func(a [16]byte) (out [16]byte) {
		var l byte
		for i, c := range lCoef {
			if c == 1 {
				l ^= a[i]
				continue
			}
			l ^= gf2p8.Affine(mulMatrix(c), a[i])
		}
		out[0] = l
		copy(out[1:], a[:15])
		return out
	}
	vectors := []string{
		"00000000000000000000000000000100",
		"94000000000000000000000000000001",
		"a5940000000000000000000000000000",
		"64a59400000000000000000000000000",
		"0d64a594000000000000000000000000",
	}
	for i := range len(vectors) - 1 {
		var in [16]byte
		if _, err := hex.Decode(in[:], []byte(vectors[i])); err != nil {
			t.Fatal(err)
		}
		if got := hex.EncodeToString(func() []byte { o := r(in); return o[:] }()); got != vectors[i+1] {
			t.Errorf("R(%s) = %s, want %s", vectors[i], got, vectors[i+1])
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
