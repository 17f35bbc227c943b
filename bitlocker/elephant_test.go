package bitlocker

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// refDiffuser is the diffusers' definition step by step (indices modulo
// n), in the decryption direction; enc undoes it.
func refDiffuser(d []uint32, rot [4]int, cycles, a, b int, enc bool) {
	n := len(d)
	steps := cycles * n
	for s := 0; s < steps; s++ {
		i := s % n
		if enc {
			i = n - 1 - i
		}
		x := d[((i+a)%n+n)%n] ^ bits.RotateLeft32(d[((i+b)%n+n)%n], rot[i&3])
		if enc {
			d[i] -= x
		} else {
			d[i] += x
		}
	}
}

func TestDiffusers(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{16, 128, 1024} {
		w := make([]uint32, n)
		for i := range w {
			w[i] = rng.Uint32()
		}
		for _, tc := range []struct {
			name      string
			fast      func([]uint32)
			rot       [4]int
			cyc, a, b int
			enc       bool
		}{
			{"A decrypt", diffuserADecrypt, rotA, cyclesA, -2, -5, false},
			{"A encrypt", diffuserAEncrypt, rotA, cyclesA, -2, -5, true},
			{"B decrypt", diffuserBDecrypt, rotB, cyclesB, 2, 5, false},
			{"B encrypt", diffuserBEncrypt, rotB, cyclesB, 2, 5, true},
		} {
			got, want := slices.Clone(w), slices.Clone(w)
			tc.fast(got)
			refDiffuser(want, tc.rot, tc.cyc, tc.a, tc.b, tc.enc)
			if !slices.Equal(got, want) {
				t.Errorf("%d words, %s: differs from the definition", n, tc.name)
			}
			if slices.Equal(got, w) {
				t.Errorf("%d words, %s: changed nothing", n, tc.name)
			}
		}
		x := slices.Clone(w)
		diffuserAEncrypt(x)
		diffuserBEncrypt(x)
		diffuserBDecrypt(x)
		diffuserADecrypt(x)
		if !slices.Equal(x, w) {
			t.Errorf("%d words: decrypt does not undo encrypt", n)
		}
	}
}
