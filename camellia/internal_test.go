package camellia

import (
	"math/rand/v2"
	"testing"
)

// refF is the F-function exactly as RFC 3713, section 2.4.1 writes it:
// eight S-boxes, then the P-function.
func refF(in, k uint64) uint64 {
	x := in ^ k
	var t [8]byte
	for i := range 8 {
		t[i] = sbox(sboxOfByte[i], byte(x>>(56-8*i)))
	}
	return pFunc(t)
}

// TestSPTables checks the SP tables against the F-function of the RFC.
func TestSPTables(t *testing.T) {
	spOnce.Do(fillSP) // as NewCipher does
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 100000 {
		x, k := rng.Uint64(), rng.Uint64()
		if i < 256 {
			x = uint64(i) * 0x0101010101010101
		}
		if got, want := f(&sp, x^k), refF(x, k); got != want {
			t.Fatalf("f(%#x ^ %#x) = %#x, want %#x", x, k, got, want)
		}
	}
}

// TestSboxes checks the derived S-boxes against entries RFC 3713 gives
// and that each is a permutation.
func TestSboxes(t *testing.T) {
	// SBOX1..SBOX4 at 0x00, 0x01 and 0xff.
	want := map[[2]int]byte{
		{1, 0x00}: 112, {1, 0x01}: 130, {1, 0xff}: 158,
		{2, 0x00}: 224, {2, 0x01}: 5, {2, 0xff}: 61,
		{3, 0x00}: 56, {3, 0x01}: 65, {3, 0xff}: 79,
		{4, 0x00}: 112, {4, 0x01}: 44, {4, 0xff}: 158,
	}
	for k, v := range want {
		if got := sbox(k[0], byte(k[1])); got != v {
			t.Errorf("SBOX%d[%#x] = %d, want %d", k[0], k[1], got, v)
		}
	}
	for n := 1; n <= 4; n++ {
		var seen [256]bool
		for x := range 256 {
			seen[sbox(n, byte(x))] = true
		}
		for y, ok := range seen {
			if !ok {
				t.Errorf("SBOX%d never gives %#x", n, y)
			}
		}
	}
}

// TestFLInverse checks that FLINV undoes FL.
func TestFLInverse(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 10000 {
		x, k := rng.Uint64(), rng.Uint64()
		if got := flInv(fl(x, k), k); got != x {
			t.Fatalf("flInv(fl(%#x, %#x)) = %#x", x, k, got)
		}
	}
}

// TestRotl checks the 128-bit rotation used by the key schedule against a
// bit-by-bit rotation.
func TestRotl(t *testing.T) {
	v := u128{0x0123456789abcdef, 0xfedcba9876543210}
	for n := uint(0); n < 128; n++ {
		var want u128
		for i := uint(0); i < 128; i++ { // bit i of the result (0 = most significant)
			j := (i + n) % 128
			var bit uint64
			if j < 64 {
				bit = v.hi >> (63 - j) & 1
			} else {
				bit = v.lo >> (127 - j) & 1
			}
			if i < 64 {
				want.hi |= bit << (63 - i)
			} else {
				want.lo |= bit << (127 - i)
			}
		}
		if got := v.rotl(n); got != want {
			t.Errorf("rotl(%d) = %x, want %x", n, got, want)
		}
	}
}
