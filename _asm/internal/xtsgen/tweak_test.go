package xtsgen

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/mmcloughlin/avo/reg"
)

// lane is one 128-bit lane: lo and hi quadwords.
type lane struct{ lo, hi uint64 }

// double is the XTS multiplication by x, bit by bit (IEEE 1619).
func (a lane) double() lane {
	carry := a.hi >> 63
	return lane{a.lo<<1 ^ carry*0x87, a.hi<<1 | a.lo>>63}
}

// clmul is the carry-less product of two quadwords.
func clmul(a, b uint64) lane {
	var r lane
	for i := range 64 {
		if b>>i&1 != 0 {
			r.lo ^= a << i
			if i > 0 {
				r.hi ^= a >> (64 - i)
			}
		}
	}
	return r
}

// model runs MulX's and Lanes' instructions on one lane, with per-quadword
// shift counts left and right (VPSLLQ/VPSRLQ, or VPSLLVQ/VPSRLVQ with
// Shl and Shr), as the SDM defines them: a count of 64 gives zero.
func model(src lane, left, right uint) lane {
	shl := func(x uint64, n uint) uint64 {
		if n >= 64 {
			return 0
		}
		return x << n
	}
	shr := func(x uint64, n uint) uint64 {
		if n >= 64 {
			return 0
		}
		return x >> n
	}
	carry := lane{shr(src.lo, right), shr(src.hi, right)} // VPSRLQ
	dst := lane{shl(src.lo, left), shl(src.hi, left)}     // VPSLLQ
	spill := lane{0, carry.lo}                            // VPSLLDQ $8
	carry = clmul(carry.hi, 0x87)                         // VPCLMULQDQ $0x01 with Poly
	return lane{dst.lo ^ carry.lo ^ spill.lo, dst.hi ^ carry.hi ^ spill.hi}
}

// TestMulXArithmetic checks the arithmetic of MulX's five instructions
// (the counts 64-k and k, 0 < k < 64) and of Lanes' (the counts of Shl
// and Shr, lane l: l and 64-l) against k doublings, on random tweaks and
// on all-ones. It models the instructions; that the generators emit them
// is checked by their outputs staying byte-identical (_asm/check.sh) and
// by the root package's tests, which run them.
func TestMulXArithmetic(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	inputs := []lane{{^uint64(0), ^uint64(0)}, {1, 0}, {0, 1 << 63}}
	for range 100 {
		inputs = append(inputs, lane{r.Uint64(), r.Uint64()})
	}
	for _, in := range inputs {
		want := in
		for k := 1; k < 64; k++ {
			want = want.double()
			if got := model(in, uint(k), uint(64-k)); got != want {
				t.Fatalf("MulX by x^%d of %x = %x, want %x", k, in, got, want)
			}
		}
		want = in
		for l := range 4 {
			if got := model(in, uint(l), uint(64-l)); got != want {
				t.Fatalf("Lanes, lane %d of %x = %x, want %x", l, in, got, want)
			}
			want = want.double()
		}
	}
	// The product of the carries (k bits) with 0x87 has at most k+7 bits:
	// past 57 it reaches the high quadword, which model keeps.
	if p := clmul(1<<62, 0x87); p.hi == 0 || bits.Len64(p.hi) != 6 {
		t.Errorf("clmul(2^62, 0x87) = %x: want the product's top in the high quadword", p)
	}
}

// TestMulXRange: MulX refuses the exponents its shifts cannot do before
// it emits anything.
func TestMulXRange(t *testing.T) {
	for _, k := range []int{0, 64, -1, 100} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("MulX by x^%d did not panic", k)
				}
			}()
			Tweak{}.MulX(reg.Z0, reg.Z0, k, reg.Z1, reg.Z2)
		}()
	}
}
