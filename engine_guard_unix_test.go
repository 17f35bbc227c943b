//go:build linux || darwin

package xts

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestEngineGuardPages runs every implementation with src and dst flush
// against inaccessible pages, at their ends and at their starts (see
// guardLayout): one byte read or written outside them crashes the test.
// Unit lengths 16..600 and runs of sectors of 16..1040 bytes.
func TestEngineGuardPages(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const maxLen = 5 * 1040
	key := randKey(rng, 64)
	ref := refEngine(t, key)
	pt := randBytes(rng, maxLen)
	forEachImpl(t, func(t *testing.T, name string) {
		te := newTestEngine(t, name, key)
		srcR, dstR := guardedRegion(t, maxLen), guardedRegion(t, maxLen)
		for n := 16; n <= 600; n++ {
			iv := randTweak(rng)
			want := make([]byte, n)
			wantTweak := ref.encrypt(want, pt[:n], iv, flagEncryptTweak|flagStoreTweak)
			for _, dec := range []bool{false, true} {
				in, out := pt[:n], want
				if dec {
					in, out = want, pt[:n]
				}
				for layout := range 4 {
					s, d := guardLayout(srcR, dstR, n, layout)
					copy(s, in)
					tw := te.crypt(dec, d, s, iv, flagEncryptTweak|flagStoreTweak)
					if !bytes.Equal(d, out) || tw != wantTweak {
						t.Fatalf("len %d dec %v layout %d: wrong output", n, dec, layout)
					}
				}
			}
		}
		for _, ss := range []int{16, 32, 48, 64, 80, 112, 128, 144, 512, 528, 1040} {
			for count := 1; count <= 5; count++ {
				n := ss * count
				first := rng.Uint64()
				for _, dec := range []bool{false, true} {
					want := sectorsWant(ref, pt[:n], ss, first, 1, dec)
					for layout := range 4 {
						s, d := guardLayout(srcR, dstR, n, layout)
						copy(s, pt[:n])
						te.sectors(dec, d, s, ss, first, 1)
						if !bytes.Equal(d, want) {
							t.Fatalf("sector %d count %d dec %v layout %d: wrong output", ss, count, dec, layout)
						}
					}
				}
			}
		}
	})
}

// TestEngineShortInput: below 16 bytes (outside the contract, which the
// Go callers enforce) the assembly unit routines must not touch memory at
// all, not even to read: src ends, and dst starts, at a guard page.
func TestEngineShortInput(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string) {
		te := newTestEngine(t, name, make([]byte, 64))
		requireBulk(t, te, "input shorter than 16 bytes")
		region := guardedRegion(t, 64)
		for n := range 16 {
			for _, dec := range []bool{false, true} {
				for i := range region {
					region[i] = 0x5a
				}
				te.crypt(dec, region[:n], region[len(region)-n:], [16]byte{1}, flagEncryptTweak|flagStoreTweak)
				if !bytes.Equal(region, bytes.Repeat([]byte{0x5a}, len(region))) {
					t.Fatalf("len %d dec %v: memory written", n, dec)
				}
			}
		}
	})
}
