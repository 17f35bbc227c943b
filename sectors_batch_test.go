package xts

import (
	"bytes"
	"fmt"
	"testing"
)

// TestSectorsPartialBatch: a call whose sectors do not fill the batch
// routine's last batch (sectorsAsm gives those to the unit routine) equals
// one call per sector, for every count around the batch size, with the
// tweak counted per sector and per 512-byte unit, in place and not.
func TestSectorsPartialBatch(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string) {
		r := newRand(t)
		key := randKey(r, 64)
		for _, unit := range []int{0, 512} {
			opts := []Option{WithoutParallelism()}
			sizes := []int{16, 512, 1024, 4096}
			if unit != 0 {
				opts = append(opts, WithTweakUnit(unit))
				sizes = []int{512, 1024, 4096}
			}
			c := newImpl(t, name, key, opts...)
			for _, ss := range sizes {
				for count := 1; count <= 3*sectorBatch+1; count++ {
					src := randBytes(r, ss*count)
					first := r.Uint64()
					for _, dec := range []bool{false, true} {
						what := fmt.Sprintf("unit %d sector %d count %d dec %v", unit, ss, count, dec)
						want := perSector(c, src, ss, first, unit, dec)
						got := make([]byte, len(src))
						inPlace := bytes.Clone(src)
						if dec {
							c.DecryptSectors(got, src, ss, first)
							c.DecryptSectors(inPlace, inPlace, ss, first)
						} else {
							c.EncryptSectors(got, src, ss, first)
							c.EncryptSectors(inPlace, inPlace, ss, first)
						}
						if !bytes.Equal(got, want) || !bytes.Equal(inPlace, want) {
							t.Fatalf("%s: differs from one call per sector", what)
						}
					}
				}
			}
		}
	})
}

// TestSectorsNoAlloc: a serial EncryptSectors or DecryptSectors call
// allocates nothing, whatever mix of batch and unit calls it makes.
func TestSectorsNoAlloc(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string) {
		c := newImpl(t, name, randKey(newRand(t), 64), WithoutParallelism())
		buf := make([]byte, 7*512)
		for _, n := range []int{1, 2, 3, 5, 7} {
			allocs := testing.AllocsPerRun(50, func() {
				c.EncryptSectors(buf[:n*512], buf[:n*512], 512, 9)
				c.DecryptSectors(buf[:n*512], buf[:n*512], 512, 9)
			})
			if allocs != 0 {
				t.Errorf("%d sectors: %v allocations per call pair", n, allocs)
			}
		}
	})
}
