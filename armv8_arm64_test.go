//go:build !purego && linux

package xts

import (
	"bytes"
	"crypto/aes"
	"fmt"
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/cpu"
)

// Temporary, until the shared harness drives every implementation's
// engine directly: the armv8-ce routines called raw, against the generic
// engine, with data flush against PROT_NONE pages on either side (an
// access one byte out of bounds crashes the test), every flag
// combination, in place and not, and the sector routine with IVs that
// wrap and bad arguments it must ignore.

func armv8Require(t *testing.T) {
	if !cpu.ARM64.HasAES {
		t.Skip("CPU lacks the AES instructions (or GODEBUG=cpu.aes=off)")
	}
}

func armv8Keys(t *testing.T, size int, r *rand.Rand) (*keySchedule, *genericEngine) {
	key := make([]byte, size)
	for i := range key {
		key[i] = byte(r.Uint32())
	}
	k1, err := aes.NewCipher(key[:size/2])
	if err != nil {
		t.Fatal(err)
	}
	k2, _ := aes.NewCipher(key[size/2:])
	return newKeySchedule(key), newGeneric(k1, k2)
}

func TestARMv8UnitGuarded(t *testing.T) {
	armv8Require(t)
	r := rand.New(rand.NewPCG(1, 2))
	lengths := []int{}
	for n := 16; n <= 300; n++ {
		lengths = append(lengths, n)
	}
	lengths = append(lengths, 511, 512, 513, 1031, 4096, 4111)
	srcR, dstR := guardedRegion(t, 8192), guardedRegion(t, 8192)
	for _, size := range []int{32, 48, 64} {
		ks, ref := armv8Keys(t, size, r)
		for _, n := range lengths {
			for layout := range 4 {
				for _, flags := range []uint64{0, 1, 2, 3} {
					for _, dec := range []bool{false, true} {
						src, dst := guardLayout(srcR, dstR, n, layout)
						in := make([]byte, n)
						for i := range in {
							in[i] = byte(r.Uint32())
						}
						copy(src, in)
						tw := tweak128{r.Uint64(), r.Uint64() | 1<<63}
						want := make([]byte, n)
						var wantT, gotT tweak128
						f := encryptARMv8
						if dec {
							f = decryptARMv8
							wantT = ref.decrypt(want, in, tw, flags)
						} else {
							wantT = ref.encrypt(want, in, tw, flags)
						}
						gotT.lo, gotT.hi = f(ks, dst, src, tw.lo, tw.hi, flags)
						what := fmt.Sprintf("AES-%d n=%d layout=%d flags=%d dec=%v", 4*size, n, layout, flags, dec)
						if !bytes.Equal(dst, want) {
							t.Fatalf("%s: output differs from generic", what)
						}
						if layout < 2 && !bytes.Equal(src, in) {
							t.Fatalf("%s: source changed", what)
						}
						if flags&flagStoreTweak != 0 && gotT != wantT {
							t.Fatalf("%s: next tweak %x, want %x", what, gotT, wantT)
						}
					}
				}
			}
		}
	}
}

func TestARMv8SectorsGuarded(t *testing.T) {
	armv8Require(t)
	r := rand.New(rand.NewPCG(3, 4))
	srcR, dstR := guardedRegion(t, 1<<14), guardedRegion(t, 1<<14)
	for _, size := range []int{32, 64} {
		ks, ref := armv8Keys(t, size, r)
		for _, ss := range []int{16, 32, 48, 112, 128, 144, 512, 4096} {
			for _, units := range []int{1, 2, 3, 4, 5, 7, 8, 9} {
				n := ss * units
				if n > 1<<14 {
					continue
				}
				for _, step := range []uint64{1, 8} {
					for layout := range 4 {
						for _, dec := range []bool{false, true} {
							first := ^uint64(0) - 2 - uint64(r.IntN(3)) // wraps
							src, dst := guardLayout(srcR, dstR, n, layout)
							in := make([]byte, n)
							for i := range in {
								in[i] = byte(r.Uint32())
							}
							copy(src, in)
							want := make([]byte, n)
							f := encryptSectorsARMv8
							if dec {
								f = decryptSectorsARMv8
							}
							for k := 0; k < units; k++ {
								tw := tweakFromBytes(SectorTweak(first + uint64(k)*step))
								w, s := want[k*ss:(k+1)*ss], in[k*ss:(k+1)*ss]
								if dec {
									ref.decrypt(w, s, tw, flagEncryptTweak)
								} else {
									ref.encrypt(w, s, tw, flagEncryptTweak)
								}
							}
							f(ks, dst, src, ss, first, step)
							if !bytes.Equal(dst, want) {
								t.Fatalf("AES-%d sector %d × %d step %d layout %d dec=%v: differs from generic", 4*size, ss, units, step, layout, dec)
							}
						}
					}
				}
			}
		}
	}
	// Bad sector sizes do nothing; a partial last unit is left alone.
	ks, ref := armv8Keys(t, 64, r)
	for _, c := range []struct{ ss, n, whole int }{{0, 64, 0}, {-16, 64, 0}, {8, 64, 0}, {24, 96, 0}, {32, 48, 32}, {64, 48, 0}} {
		src, dst := make([]byte, c.n), bytes.Repeat([]byte{0xee}, c.n)
		want := bytes.Clone(dst)
		if c.whole > 0 {
			ref.encrypt(want[:c.whole], src[:c.whole], tweakFromBytes(SectorTweak(0)), flagEncryptTweak)
		}
		encryptSectorsARMv8(ks, dst, src, c.ss, 0, 1)
		if !bytes.Equal(dst, want) {
			t.Errorf("sectorSize %d, %d bytes: %x, want only the first %d bytes written", c.ss, c.n, dst, c.whole)
		}
	}
}
