package argon2

import (
	"math/rand/v2"
	"testing"
)

// forEachCompress runs f once with each compression function this CPU
// runs installed as the active one.
func forEachCompress(t *testing.T, f func(t *testing.T)) {
	saved := active
	t.Cleanup(func() { active = saved })
	for i := range compressImpls {
		t.Run("impl="+compressImpls[i].name, func(t *testing.T) {
			active = &compressImpls[i]
			f(t)
		})
	}
}

// TestCompressImplsAgree checks every compression function against the Go
// one (on separate copies of the blocks) on random blocks, with and without
// the XOR into the old output, and with out being x or y (the address
// generator computes in place); the inputs that are not out stay unchanged,
// and word 0 of out is final after the head alone.
func TestCompressImplsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	random := func() block {
		var b block
		for i := range b {
			b[i] = rng.Uint64()
		}
		return b
	}
	for _, impl := range compressImpls {
		t.Run(impl.name, func(t *testing.T) {
			for i := 0; i < 50; i++ {
				x, y, old := random(), random(), random()
				for _, xor := range []bool{false, true} {
					var tmp block
					// out separate: want from copies.
					want, wx, wy := old, x, y
					compressGeneric(&want, &wx, &wy, &tmp, xor)
					got, gx, gy := old, x, y
					impl.run(&got, &gx, &gy, &tmp, xor)
					if got != want || gx != x || gy != y {
						t.Fatalf("case %d xor=%v: differs from the Go compression function, or wrote x or y", i, xor)
					}
					got = old
					impl.head(&got, &gx, &gy, &tmp, xor)
					if got[0] != want[0] {
						t.Fatalf("case %d xor=%v: word 0 after the head is %#x, want %#x", i, xor, got[0], want[0])
					}
					// out is x: G(old, y) into old.
					want, wx, wy = old, old, y
					compressGeneric(&want, &wx, &wy, &tmp, xor)
					got, gy = old, y
					impl.run(&got, &got, &gy, &tmp, xor)
					if got != want || gy != y {
						t.Fatalf("case %d xor=%v out=x: differs from the Go compression function, or wrote y", i, xor)
					}
					// out is y: G(x, old) into old.
					want, wx, wy = old, x, old
					compressGeneric(&want, &wx, &wy, &tmp, xor)
					got, gx = old, x
					impl.run(&got, &gx, &got, &tmp, xor)
					if got != want || gx != x {
						t.Fatalf("case %d xor=%v out=y: differs from the Go compression function, or wrote x", i, xor)
					}
				}
			}
		})
	}
}

// TestCompressKnownAnswer pins G on one input so that a change to all
// implementations at once (the cross-checks above would not see it) still
// fails: G(0, 0) is 0, and with xor into an all-ones block gives all ones.
func TestCompressKnownAnswer(t *testing.T) {
	for _, impl := range compressImpls {
		t.Run(impl.name, func(t *testing.T) {
			var x, y, tmp block
			out := block{1}
			impl.run(&out, &x, &y, &tmp, false)
			if out != (block{}) {
				t.Fatalf("G(0, 0) = %x…, want 0", out[:4])
			}
			for i := range out {
				out[i] = ^uint64(0)
			}
			impl.run(&out, &x, &y, &tmp, true)
			for i, w := range out {
				if w != ^uint64(0) {
					t.Fatalf("G(0, 0) XOR ones: word %d = %#x", i, w)
				}
			}
		})
	}
}
