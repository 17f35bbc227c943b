package gf2p8

import "testing"

// polyMul is a·b written differently from Mul: the polynomial product,
// then reduced modulo poly from the top bit down.
func polyMul(a, b byte, poly uint16) byte {
	var p uint16
	for i := range 8 {
		if b>>i&1 != 0 {
			p ^= uint16(a) << i
		}
	}
	for i := 14; i >= 8; i-- {
		if p>>i&1 != 0 {
			p ^= poly << (i - 8)
		}
	}
	return byte(p)
}

var moduli = []uint16{0x11B, 0x169, 0x1C3}

// TestMul checks Mul on every pair against polyMul, the FIPS-197 example
// (0x57·0x83 = 0xc1 modulo 0x11B), and that every nonzero element has an
// inverse (the moduli are irreducible, so these are fields).
func TestMul(t *testing.T) {
	for _, poly := range moduli {
		for a := range 256 {
			inv := false
			for b := range 256 {
				got := Mul(byte(a), byte(b), poly)
				if want := polyMul(byte(a), byte(b), poly); got != want {
					t.Fatalf("Mul(%#x, %#x, %#x) = %#x, want %#x", a, b, poly, got, want)
				}
				inv = inv || got == 1
			}
			if a != 0 && !inv {
				t.Errorf("%#x has no inverse modulo %#x", a, poly)
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
				if want := polyMul(c, byte(x), poly); y != want {
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
