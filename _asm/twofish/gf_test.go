package main

import (
	"testing"

	"github.com/fastxts/xts/_asm/internal/gf2p8"
)

// TestMulMatrix: mdsPoly is the field of the Twofish paper's MDS entries,
// 0x5B = 1 + 1/x^2 and 0xEF = 1 + 1/x + 1/x^2 (a wrong modulus gives other
// bytes), and the matrices emitted for them multiply by them on every
// byte (gf2p8's tests check Mul and MulMatrix themselves).
func TestMulMatrix(t *testing.T) {
	mul := func(a, b byte) byte { return gf2p8.Mul(a, b, mdsPoly) }
	inv := func(a byte) byte {
		for b := 1; b < 256; b++ {
			if mul(a, byte(b)) == 1 {
				return byte(b)
			}
		}
		return 0
	}
	ix := inv(2)
	ix2 := mul(ix, ix)
	if 1^ix2 != 0x5B || 1^ix^ix2 != 0xEF {
		t.Errorf("1+1/x^2 = %#x, 1+1/x+1/x^2 = %#x; want 0x5b, 0xef", 1^ix2, 1^ix^ix2)
	}
	for _, c := range []byte{0x5B, 0xEF} {
		m := gf2p8.MulMatrix(c, mdsPoly)
		for x := range 256 {
			if got, want := gf2p8.Affine(m, byte(x)), mul(c, byte(x)); got != want {
				t.Fatalf("affine(%#x)(%#x) = %#x, want %#x", c, x, got, want)
			}
		}
	}
}

// TestSignMatrix: the select mask is 0xFF exactly for bytes >= 0x80.
func TestSignMatrix(t *testing.T) {
	for x := range 256 {
		want := byte(0)
		if x >= 0x80 {
			want = 0xFF
		}
		if got := gf2p8.Affine(signMatrix, byte(x)); got != want {
			t.Fatalf("sign(%#x) = %#x, want %#x", x, got, want)
		}
	}
}
