package xts

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/fastxts/xts/internal/parallel"
)

// perSector is the definition EncryptSectors must match: one Encrypt or
// Decrypt call per sector, tweak counted per sector or per tweak unit.
func perSector(c *Cipher, src []byte, sectorSize int, first uint64, unit int, decrypt bool) []byte {
	out := make([]byte, len(src))
	step := uint64(1)
	if unit != 0 {
		step = uint64(sectorSize / unit)
	}
	for k := 0; k*sectorSize < len(src); k++ {
		d, s := out[k*sectorSize:(k+1)*sectorSize], src[k*sectorSize:(k+1)*sectorSize]
		if decrypt {
			c.Decrypt(d, s, first+uint64(k)*step)
		} else {
			c.Encrypt(d, s, first+uint64(k)*step)
		}
	}
	return out
}

func TestSectors(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string) {
		r := newRand(t)
		firsts := []uint64{0, 1<<32 - 3, 1<<64 - 2, ^uint64(0)}
		for i, ks := range keySizes {
			key := randKey(r, ks)
			for _, unit := range []int{0, 512} {
				for _, par := range []bool{false, true} {
					opts := []Option{WithoutParallelism()}
					if par {
						opts = []Option{WithParallelThreshold(0)}
					}
					if unit != 0 {
						opts = append(opts, WithTweakUnit(unit))
					}
					c := newImpl(t, name, key, opts...)
					sizes := []int{16, 32, 512, 4096, 528}
					if unit != 0 {
						sizes = []int{512, 1024, 4096}
					}
					for _, ss := range sizes {
						for _, count := range []int{1, 2, 3, 7, 64 + i, 300} {
							if ss*count > 1<<20 && testing.Short() {
								continue
							}
							first := r.Uint64()
							if count%3 == 0 {
								first = firsts[(count+ss)%len(firsts)]
							}
							src := randBytes(r, ss*count)
							for _, dec := range []bool{false, true} {
								what := fmt.Sprintf("key %d unit %d par %v sector %d count %d first %#x dec %v", ks*4, unit, par, ss, count, first, dec)
								want := perSector(c, src, ss, first, unit, dec)
								got := make([]byte, len(src)+16)
								if dec {
									c.DecryptSectors(got[:len(src)], src, ss, first)
								} else {
									c.EncryptSectors(got[:len(src)], src, ss, first)
								}
								if !bytes.Equal(got[:len(src)], want) {
									t.Fatalf("%s: differs from per-sector calls", what)
								}
								if !bytes.Equal(got[len(src):], make([]byte, 16)) {
									t.Fatalf("%s: wrote past the output", what)
								}
								inPlace := bytes.Clone(src)
								if dec {
									c.DecryptSectors(inPlace, inPlace, ss, first)
								} else {
									c.EncryptSectors(inPlace, inPlace, ss, first)
								}
								if !bytes.Equal(inPlace, want) {
									t.Fatalf("%s: in place differs", what)
								}
							}
						}
					}
				}
			}
		}
	})
}

// TestSectorsWorkerPanic: a panic inside a worker goroutine reaches the
// caller of EncryptSectors.
func TestSectorsWorkerPanic(t *testing.T) {
	c := newImpl(t, genericName, randKey(newRand(t), 32), WithParallelThreshold(0))
	c.eng = panicEngine{}
	c.asm = nil
	mustPanic(t, "boom", func() { c.EncryptSectors(make([]byte, 4096), make([]byte, 4096), 512, 0) })

	// Split across goroutines, the panic comes back with the stack of the
	// goroutine where it began.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	v := func() (v any) {
		defer func() { v = recover() }()
		c.DecryptSectors(make([]byte, 1<<20), make([]byte, 1<<20), 512, 0)
		return nil
	}()
	p, ok := v.(*parallel.Panic)
	if !ok {
		t.Fatalf("recovered %T %v, want a *parallel.Panic", v, v)
	}
	if p.Value != "xts: boom" || !strings.Contains(string(p.Stack), "panicEngine.decrypt") {
		t.Fatalf("panic %v with stack\n%s\nwant xts: boom raised in panicEngine.decrypt", p.Value, p.Stack)
	}
}

type panicEngine struct{}

func (panicEngine) encrypt(dst, src []byte, tweak tweak128, flags uint64) tweak128 {
	panic("xts: boom")
}
func (panicEngine) decrypt(dst, src []byte, tweak tweak128, flags uint64) tweak128 {
	panic("xts: boom")
}
func (panicEngine) wipe() {}
