package gf2p8

import (
	"testing"

	"github.com/fastxts/xts/internal/cipherspec"
)

var moduli = []uint16{0x11B, 0x169, 0x1C3}

// TestMul checks that Mul is the root module's multiplication (tested
// there against a second method and the field laws) for every pair.
func TestMul(t *testing.T) {
	for _, poly := range moduli {
		for a := range 256 {
			for b := range 256 {
				if got, want := Mul(byte(a), byte(b), poly), cipherspec.GFMul(byte(a), byte(b), poly); got != want {
					t.Fatalf("Mul(%#x, %#x, %#x) = %#x, want %#x", a, b, poly, got, want)
				}
			}
		}
	}
	if got := Mul(0x57, 0x83, 0x11B); got != 0xC1 {
		t.Errorf("0x57·0x83 = %#x, want 0xc1", got)
	}
}

// TestMulMatrix: the matrix of 1 is the identity of the SDM's layout, and
// every matrix evaluated bit by bit from the definition (not through
// Affine) is multiplication by its constant.
func TestMulMatrix(t *testing.T) {
	if m := MulMatrix(1, 0x11B); m != 0x0102040810204080 {
		t.Errorf("identity matrix %#x, want 0x0102040810204080", m)
	}
	for _, poly := range moduli {
		for _, c := range []byte{0x02, 0x5B, 0xEF, 0x94, 0xFF} {
			m := MulMatrix(c, poly)
			for x := range 256 {
				var y byte
				for i := range 8 {
					bit := 0
					for j := range 8 {
						bit ^= int(m>>(8*(7-i)+j)&1) & (x >> j & 1)
					}
					y |= byte(bit) << i
				}
				if want := cipherspec.GFMul(c, byte(x), poly); y != want {
					t.Fatalf("matrix of %#x mod %#x: %#x -> %#x, want %#x", c, poly, x, y, want)
				}
			}
		}
	}
}

// TestModulusDegree: a modulus without its x^8 term is the caller's bug.
func TestModulusDegree(t *testing.T) {
	for _, poly := range []uint16{0x1B, 0x21B, 0} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Mul modulo %#x did not panic", poly)
				}
			}()
			Mul(2, 0x80, poly)
		}()
	}
}
