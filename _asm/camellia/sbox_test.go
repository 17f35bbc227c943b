package main

import "testing"

// TestGFNIDerivation: the derived GFNI steps compute SBOX1..SBOX4 on every
// input (deriveGFNI checks all 256 and fails otherwise), the matrices are
// invertible, and the qword encoding puts row i in byte 7-i.
func TestGFNIDerivation(t *testing.T) {
	g, err := deriveGFNI()
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 4; n++ {
		for x := range 256 {
			if got, want := g.post[n].apply(g.pre[n].apply(byte(x))), sbox(n, byte(x)); got != want {
				t.Fatalf("SBOX%d(%#x) = %#x, want %#x", n, x, got, want)
			}
		}
		if _, ok := g.pre[n].m.inverse(); !ok {
			t.Errorf("SBOX%d: pre matrix singular", n)
		}
		if _, ok := g.post[n].m.inverse(); !ok {
			t.Errorf("SBOX%d: post matrix singular", n)
		}
	}
	if q := (affine{m: identity}).qword(); q != 0x0102040810204080 {
		t.Errorf("identity qword %#x, want 0x0102040810204080", q)
	}
}
