//go:build !purego

package xts

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// asmSectorFunc is the signature of the sector-batch routines.
type asmSectorFunc func(ks *keySchedule, dst, src []byte, sectorSize int, first, step uint64)

// asmSectorRoutines maps each variant of asmVariants to its sector-batch
// routines.
var asmSectorRoutines = map[string][2]asmSectorFunc{
	"aesni":          {encryptSectorsAESNI, decryptSectorsAESNI},
	"aesni-avx":      {encryptSectorsAESNIAVX, decryptSectorsAESNIAVX},
	"vaes-avx2":      {encryptSectorsVAESAVX2, decryptSectorsVAESAVX2},
	"vaes-avx10_256": {encryptSectorsVAESAVX10_256, decryptSectorsVAESAVX10_256},
	"vaes-avx10_512": {encryptSectorsVAESAVX10_512, decryptSectorsVAESAVX10_512},
}

func TestAsmSectorRoutinesListed(t *testing.T) {
	for _, v := range asmVariants {
		if _, ok := asmSectorRoutines[v.name]; !ok {
			t.Errorf("variant %s has no sector routines in the test table", v.name)
		}
	}
}

// asmSectorsWant is the definition: one reference call per sector, the IV
// of sector k being SectorTweak(first + k*step) (wrapping like uint64).
func asmSectorsWant(ref byteEngine, src []byte, sectorSize int, first, step uint64, dec bool) []byte {
	out := make([]byte, len(src))
	for off := 0; off < len(src); off += sectorSize {
		d, s := out[off:off+sectorSize], src[off:off+sectorSize]
		if dec {
			ref.decrypt(d, s, SectorTweak(first), flagEncryptTweak)
		} else {
			ref.encrypt(d, s, SectorTweak(first), flagEncryptTweak)
		}
		first += step
	}
	return out
}

// asmSectorsCheck runs f on src at the given offsets (or in place, at
// srcOff) inside buffers filled with a canary, and checks the output, that
// src is unchanged when out of place, and that no byte around dst changed.
func asmSectorsCheck(t *testing.T, f asmSectorFunc, ks *keySchedule, src, want []byte,
	sectorSize int, first, step uint64, srcOff, dstOff int, inPlace bool, what string) {
	t.Helper()
	const canary = 0x5a
	n := len(src)
	sbuf := bytes.Repeat([]byte{canary}, srcOff+n+64)
	s := sbuf[srcOff : srcOff+n]
	copy(s, src)
	dbuf, d, off := sbuf, s, srcOff
	if !inPlace {
		dbuf = bytes.Repeat([]byte{canary}, dstOff+n+64)
		d, off = dbuf[dstOff:dstOff+n], dstOff
	}
	f(ks, d, s, sectorSize, first, step)
	where := fmt.Sprintf("%s sector %d count %d first %#x step %#x srcOff %d dstOff %d inPlace %v",
		what, sectorSize, n/sectorSize, first, step, srcOff, dstOff, inPlace)
	if !bytes.Equal(d, want) {
		i := 0
		for d[i] == want[i] {
			i++
		}
		t.Fatalf("%s: output differs from byte %d (sector %d, block %d of it)", where, i, i/sectorSize, i%sectorSize/16)
	}
	if !inPlace && !bytes.Equal(s, src) {
		t.Fatalf("%s: src modified", where)
	}
	checkCanaries(t, where, dbuf, off, n, canary)
}

// TestAsmSectors compares every sector routine with per-sector reference
// calls: every sector size from 16 to 1100 bytes with a few counts around
// the batch of four, random first sectors and steps (some wrapping past
// 2^64), all key sizes, in place and at odd offsets.
func TestAsmSectors(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	type tcase struct {
		key         []byte
		sectorSize  int
		count       int
		first, step uint64
		srcOff      int
		dstOff      int
		inPlace     bool
	}
	var cases []tcase
	counts := []int{1, 2, 3, 4, 5, 7, 9}
	for ss := 16; ss <= 1100; ss += 16 {
		for i, count := range counts {
			if ss > 256 && (ss/16+i)%3 != 0 {
				continue // large sizes: a third of the counts, in turn
			}
			c := tcase{sectorSize: ss, count: count, first: rng.Uint64(), step: 1,
				srcOff: rng.IntN(16), dstOff: rng.IntN(16), inPlace: rng.IntN(3) == 0}
			c.key = asmKey(rng, []int{16, 24, 32}[(ss/16+i)%3])
			switch rng.IntN(4) {
			case 0: // wraps past 2^64 within the call
				c.first = -uint64(rng.IntN(count + 1))
			case 1: // dm-crypt's 512-byte units
				c.step = uint64(max(1, ss/512))
			case 2:
				c.step = rng.Uint64()
			}
			cases = append(cases, c)
		}
	}
	for _, c := range cases {
		ref, ks := asmRef(t, c.key), asmTestSchedule(c.key)
		src := make([]byte, c.sectorSize*c.count)
		asmFill(rng, src)
		for _, dec := range []bool{false, true} {
			want := asmSectorsWant(ref, src, c.sectorSize, c.first, c.step, dec)
			for _, v := range asmVariants {
				if asmMissing(v.name) != "" {
					continue
				}
				f := asmSectorRoutines[v.name][0]
				what := fmt.Sprintf("%s encrypt key %d", v.name, len(c.key)*4)
				if dec {
					f = asmSectorRoutines[v.name][1]
					what = fmt.Sprintf("%s decrypt key %d", v.name, len(c.key)*4)
				}
				asmSectorsCheck(t, f, ks, src, want, c.sectorSize, c.first, c.step,
					c.srcOff, c.dstOff, c.inPlace, what)
			}
		}
	}
	for _, v := range asmVariants {
		if m := asmMissing(v.name); m != "" {
			t.Logf("%s skipped: CPU lacks %s", v.name, m)
		}
	}
}

// TestAsmSectorsLarge runs long batches (many full batches of four, the
// main loop's steps across whole 4096-byte sectors).
func TestAsmSectorsLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	key := asmKey(rng, 32)
	ref, ks := asmRef(t, key), asmTestSchedule(key)
	for _, c := range []struct{ ss, count int }{{512, 67}, {4096, 13}, {528, 30}, {4112, 6}} {
		src := make([]byte, c.ss*c.count)
		asmFill(rng, src)
		first := rng.Uint64()
		for _, dec := range []bool{false, true} {
			want := asmSectorsWant(ref, src, c.ss, first, 1, dec)
			asmRun(t, func(t *testing.T, v asmVariant) {
				f := asmSectorRoutines[v.name][0]
				if dec {
					f = asmSectorRoutines[v.name][1]
				}
				asmSectorsCheck(t, f, ks, src, want, c.ss, first, 1, 3, 0, false, fmt.Sprintf("dec %v", dec))
				asmSectorsCheck(t, f, ks, src, want, c.ss, first, 1, 0, 0, true, fmt.Sprintf("dec %v", dec))
			})
		}
	}
}

// TestAsmSectorsGuardPages runs the sector routines with src and dst
// flush against inaccessible pages, at their ends and at their starts:
// one byte read or written outside them crashes the test.
func TestAsmSectorsGuardPages(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	key := asmKey(rng, 32)
	ref, ks := asmRef(t, key), asmTestSchedule(key)
	const maxLen = 5 * 1040
	pt := make([]byte, maxLen)
	asmFill(rng, pt)
	asmRun(t, func(t *testing.T, v asmVariant) {
		srcR, dstR := guardedRegion(t, maxLen), guardedRegion(t, maxLen)
		for _, ss := range []int{16, 32, 48, 64, 80, 112, 128, 144, 512, 528, 1040} {
			for count := 1; count <= 5; count++ {
				n := ss * count
				first := rng.Uint64()
				for _, dec := range []bool{false, true} {
					f := asmSectorRoutines[v.name][0]
					if dec {
						f = asmSectorRoutines[v.name][1]
					}
					want := asmSectorsWant(ref, pt[:n], ss, first, 1, dec)
					for layout := 0; layout < 4; layout++ {
						s, d := guardLayout(srcR, dstR, n, layout)
						copy(s, pt[:n])
						f(ks, d, s, ss, first, 1)
						if !bytes.Equal(d, want) {
							t.Fatalf("sector %d count %d dec %v layout %d: wrong output", ss, count, dec, layout)
						}
					}
				}
			}
		}
	})
}

// TestAsmSectorsMisuse: a sector size that is not a positive multiple of
// 16 makes the routines return without touching dst, and a partial last
// sector is left alone (the Go callers rule both out; this is defence in
// depth against reading past src).
func TestAsmSectorsMisuse(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	key := asmKey(rng, 16)
	ref, ks := asmRef(t, key), asmTestSchedule(key)
	src := make([]byte, 200)
	asmFill(rng, src)
	asmRun(t, func(t *testing.T, v asmVariant) {
		for _, dec := range []bool{false, true} {
			f := asmSectorRoutines[v.name][0]
			if dec {
				f = asmSectorRoutines[v.name][1]
			}
			for _, ss := range []int{0, -16, 8, 24, 100} {
				dst := make([]byte, len(src))
				f(ks, dst, src, ss, 0, 1)
				if !bytes.Equal(dst, make([]byte, len(src))) {
					t.Fatalf("sector size %d: dst written", ss)
				}
			}
			// 200 bytes of 64-byte sectors: three sectors, 8 bytes left.
			dst := make([]byte, len(src))
			f(ks, dst, src, 64, 7, 1)
			want := asmSectorsWant(ref, src[:192], 64, 7, 1, dec)
			if !bytes.Equal(dst[:192], want) || !bytes.Equal(dst[192:], make([]byte, 8)) {
				t.Fatalf("dec %v: partial last sector: wrong output or written", dec)
			}
		}
	})
}
