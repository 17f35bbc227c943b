package cipherspec

import "testing"

// TestGFMul checks GFMul against carry-less multiplication followed by
// reduction (a second, independent method), and the field laws that
// make each modulus a field: no zero divisors, and every non-zero
// element invertible.
func TestGFMul(t *testing.T) {
	for _, poly := range []uint16{0x11B, 0x11D, 0x14D, 0x169, 0x1C3} {
		for a := range 256 {
			inverse := a == 0
			for b := range 256 {
				got := GFMul(byte(a), byte(b), poly)
				if want := clmulReduce(byte(a), byte(b), poly); got != want {
					t.Fatalf("GFMul(%#x, %#x, %#x) = %#x, want %#x", a, b, poly, got, want)
				}
				if got != GFMul(byte(b), byte(a), poly) {
					t.Fatalf("GFMul(%#x, %#x, %#x) is not commutative", a, b, poly)
				}
				if a != 0 && b != 0 && got == 0 {
					t.Fatalf("GFMul(%#x, %#x, %#x) = 0", a, b, poly)
				}
				inverse = inverse || got == 1
			}
			if !inverse {
				t.Fatalf("%#x has no inverse modulo %#x", a, poly)
			}
		}
	}
	// Known products: FIPS 197's {57}·{83} = {c1} (section 4.2) and
	// {57}·{13} = {fe} (section 4.2.1).
	if got := GFMul(0x57, 0x83, 0x11B); got != 0xC1 {
		t.Errorf("GFMul(0x57, 0x83, 0x11B) = %#x, want 0xc1", got)
	}
	if got := GFMul(0x57, 0x13, 0x11B); got != 0xFE {
		t.Errorf("GFMul(0x57, 0x13, 0x11B) = %#x, want 0xfe", got)
	}
}

// clmulReduce multiplies without carries into a 15-bit product, then
// reduces it modulo poly from the top bit down.
func clmulReduce(a, b byte, poly uint16) byte {
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
