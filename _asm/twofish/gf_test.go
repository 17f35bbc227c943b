package main

import "testing"

// TestMulMatrix checks the MDS multipliers' affine matrices on every byte
// against a shift-and-add multiplication written independently of gfMul,
// and gfMul on the MDS matrix's known products (the paper's MDS times
// unit vectors are its columns).
func TestMulMatrix(t *testing.T) {
	slow := func(a, b byte) byte {
		// Russian-peasant multiplication, reducing by the polynomial's
		// low byte when the top bit falls out.
		var p byte
		for b != 0 {
			if b&1 != 0 {
				p ^= a
			}
			hi := a & 0x80
			a <<= 1
			if hi != 0 {
				a ^= mdsPoly & 0xFF
			}
			b >>= 1
		}
		return p
	}
	for _, c := range []byte{0x01, 0x5B, 0xEF, 0x02, 0xFF} {
		m := mulMatrix(c)
		for x := range 256 {
			if got, want := affine(m, byte(x)), slow(c, byte(x)); got != want {
				t.Fatalf("affine(%#x)(%#x) = %#x, want %#x", c, x, got, want)
			}
		}
	}
	if m := mulMatrix(1); m != 0x0102040810204080 {
		t.Errorf("identity matrix %#x, want 0x0102040810204080", m)
	}
	// 0x5B = 1 + 1/x^2 and 0xEF = 1 + 1/x + 1/x^2 in this field (the
	// Twofish paper's description of the MDS entries).
	inv := func(a byte) byte {
		for b := 1; b < 256; b++ {
			if slow(a, byte(b)) == 1 {
				return byte(b)
			}
		}
		return 0
	}
	ix := inv(2)
	ix2 := slow(ix, ix)
	if 1^ix2 != 0x5B || 1^ix^ix2 != 0xEF {
		t.Errorf("1+1/x^2 = %#x, 1+1/x+1/x^2 = %#x; want 0x5b, 0xef", 1^ix2, 1^ix^ix2)
	}
}

// TestSignMatrix: the select mask is 0xFF exactly for bytes >= 0x80.
func TestSignMatrix(t *testing.T) {
	for x := range 256 {
		want := byte(0)
		if x >= 0x80 {
			want = 0xFF
		}
		if got := affine(signMatrix, byte(x)); got != want {
			t.Fatalf("sign(%#x) = %#x, want %#x", x, got, want)
		}
	}
}
