package xts

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// The engine contract (engine.go), checked for every implementation
// against the portable reference: exact output at every length and
// offset, in place and not, the stored tweak, src untouched and not one
// byte around dst written.

// engineCase is one input of the raw engine tests.
type engineCase struct {
	n              int
	keySize        int // bytes of each half: 16, 24 or 32
	srcOff, dstOff int
	inPlace        bool
}

// engineCall runs te on src at the given offsets (or in place) and checks
// dst against want, the returned tweak against wantTweak when flags asks
// for it, src unchanged when out of place, and the canaries around dst.
func engineCall(t *testing.T, te testEngine, dec bool, src, want []byte,
	tweak, wantTweak [16]byte, flags uint64, srcOff, dstOff int, inPlace bool) {
	t.Helper()
	const canary = 0xa5
	s, d, dbuf, off := inBuffers(src, srcOff, dstOff, inPlace, canary)
	got := te.crypt(dec, d, s, tweak, flags)
	where := fmt.Sprintf("dec %v len %d flags %d srcOff %d dstOff %d inPlace %v", dec, len(src), flags, srcOff, dstOff, inPlace)
	if !bytes.Equal(d, want) {
		t.Fatalf("%s: %s", where, firstDiff(d, want, len(src)))
	}
	if flags&flagStoreTweak != 0 && got != wantTweak {
		t.Fatalf("%s: returned tweak %x, want %x", where, got, wantTweak)
	}
	if !inPlace && !bytes.Equal(s, src) {
		t.Fatalf("%s: src modified", where)
	}
	checkCanaries(t, where, dbuf, off, len(src), canary)
}

// checkEngineCases prepares every case's reference output once and runs
// them through every implementation, in both directions.
func checkEngineCases(t *testing.T, cases []engineCase, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	type prepared struct {
		engineCase
		pt, ct    []byte
		iv, after [16]byte
		flags     uint64
	}
	keys := map[int][]byte{}
	for _, size := range []int{16, 24, 32} {
		keys[size] = randKey(rng, 2*size)
	}
	var ps []prepared
	for i, c := range cases {
		ref := refEngine(t, keys[c.keySize])
		p := prepared{engineCase: c, pt: randBytes(rng, c.n), ct: make([]byte, c.n), iv: randTweak(rng)}
		// Alternate the flags: the IV encrypted first, or an already
		// encrypted tweak (then every carry pattern is reachable).
		p.flags = uint64(i%4) & (flagEncryptTweak | flagStoreTweak)
		p.after = ref.encrypt(p.ct, p.pt, p.iv, p.flags)
		ps = append(ps, p)
	}
	forEachImpl(t, func(t *testing.T, name string) {
		engines := map[int]testEngine{}
		for size, key := range keys {
			engines[size] = newTestEngine(t, name, key)
		}
		for _, p := range ps {
			te := engines[p.keySize]
			engineCall(t, te, false, p.pt, p.ct, p.iv, p.after, p.flags, p.srcOff, p.dstOff, p.inPlace)
			engineCall(t, te, true, p.ct, p.pt, p.iv, p.after, p.flags, p.dstOff, p.srcOff, p.inPlace)
		}
	})
}

// TestEngineLengths: every length 16..1100 with every key size, at offsets
// 0..63, in place and not.
func TestEngineLengths(t *testing.T) {
	var cases []engineCase
	for n := 16; n <= 1100; n++ {
		for _, size := range []int{16, 24, 32} {
			cases = append(cases, engineCase{n, size, n % 64, (n*7 + size) % 64, (n+size)%5 == 0})
		}
	}
	checkEngineCases(t, cases, 1)
}

// TestEngine512Flags: lengths around 512 bytes (dm-crypt's unit, a
// benchmark size, and where the zmm main loop has exactly two steps) with
// every key size and every flag combination each, in place and not:
// TestEngineLengths gives each length and key size only one combination.
func TestEngine512Flags(t *testing.T) {
	var cases []engineCase
	for _, n := range []int{496, 500, 511, 512, 513, 520, 527, 528, 576, 1024} {
		for _, size := range []int{16, 24, 32} {
			for k := range 4 { // case i gets flags i%4
				cases = append(cases, engineCase{n, size, (k * 17) % 64, (n + k) % 64, k%2 == 0})
			}
		}
	}
	checkEngineCases(t, cases, 8)
}

// TestEngineIterationEdges: lengths within 17 bytes of every multiple of
// one main-loop step of the variants (64, 128, 256 bytes) up to 4 KiB.
func TestEngineIterationEdges(t *testing.T) {
	seen := map[int]bool{}
	var cases []engineCase
	for _, step := range []int{64, 128, 256} {
		for m := step; m <= 4096; m += step {
			for d := -17; d <= 17; d++ {
				if n := m + d; n >= 16 && !seen[n] {
					seen[n] = true
					cases = append(cases, engineCase{n, []int{16, 24, 32}[n%3], n % 61, n % 64, n%7 == 0})
				}
			}
		}
	}
	checkEngineCases(t, cases, 2)
}

// TestEngineLargeUnit: every length within 48 bytes of 256 KiB, each key
// size. The expected outputs share a prefix: the reference encrypts it
// once, returns the tweak that follows it, and then only each length's
// tail (the multi-part protocol).
func TestEngineLargeUnit(t *testing.T) {
	const base, spread = 256 << 10, 48
	const prefix = base - spread - 16 // a multiple of 16, at least 16 below every length
	rng := rand.New(rand.NewPCG(9, 9))
	type tc struct {
		key            []byte
		pt, ct         []byte
		iv, after      [16]byte
		srcOff, dstOff int
		inPlace        bool
	}
	var cases []tc
	for _, size := range []int{16, 24, 32} {
		key := randKey(rng, 2*size)
		ref := refEngine(t, key)
		pt := randBytes(rng, base+spread)
		iv := randTweak(rng)
		ct := make([]byte, base+spread)
		mid := ref.encrypt(ct[:prefix], pt[:prefix], iv, flagEncryptTweak|flagStoreTweak)
		for n := base - spread; n <= base+spread; n++ {
			if (n-base)%3 != size%3 {
				continue // each length once, the key sizes in turn
			}
			c := tc{key: key, pt: pt[:n], ct: make([]byte, n), iv: iv,
				srcOff: n % 64, dstOff: (n / 3) % 64, inPlace: n%5 == 0}
			copy(c.ct, ct[:prefix])
			c.after = ref.encrypt(c.ct[prefix:], pt[prefix:n], mid, flagStoreTweak)
			cases = append(cases, c)
		}
	}
	forEachImpl(t, func(t *testing.T, name string) {
		for _, c := range cases {
			te := newTestEngine(t, name, c.key)
			flags := uint64(flagEncryptTweak | flagStoreTweak)
			engineCall(t, te, false, c.pt, c.ct, c.iv, c.after, flags, c.srcOff, c.dstOff, c.inPlace)
			engineCall(t, te, true, c.ct, c.pt, c.iv, c.after, flags, c.dstOff, c.srcOff, c.inPlace)
		}
	})
}

// divX returns t·x^-1 in GF(2^128) (the inverse of the XTS doubling).
func divX(t [16]byte) [16]byte {
	carry := t[0]&1 != 0
	if carry {
		t[0] ^= 0x87
	}
	var r [16]byte
	for i := 0; i < 16; i++ {
		r[i] = t[i] >> 1
		if i < 15 {
			r[i] |= t[i+1] << 7
		}
	}
	if carry {
		r[15] |= 0x80
	}
	return r
}

// TestEngineTweakCarries sets the top bit of the tweak (and of its low
// half) at block 0 and at the blocks on each side of every lane, vector
// and main-loop boundary, so every carry path of the tweak arithmetic runs.
func TestEngineTweakCarries(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	key := randKey(rng, 64)
	ref := refEngine(t, key)
	type tc struct {
		pt, ct       []byte
		tweak, after [16]byte
	}
	var cases []tc
	add := func(n int, t0 [16]byte) {
		c := tc{pt: randBytes(rng, n), ct: make([]byte, n), tweak: t0}
		c.after = ref.encrypt(c.ct, c.pt, t0, flagStoreTweak)
		cases = append(cases, c)
	}
	for _, j := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65} {
		for _, bits := range [][]int{{127}, {63}, {127, 63}, {127, 126, 125, 124, 123, 122, 121, 120, 63, 62, 61, 60, 59, 58, 57, 56}} {
			tj := randTweak(rng)
			for i := range tj {
				tj[i] &= 0x0f // few other carries
			}
			for _, b := range bits {
				tj[b/8] |= 1 << (b % 8)
			}
			t0 := tj
			for range j {
				t0 = divX(t0)
			}
			add(16*(j+1)+16*(j%5), t0) // vary the tail too
			add(16*(j+1)+5, t0)
		}
	}
	// All-ones tweak: every lane carries at every step.
	ones := [16]byte{}
	for i := range ones {
		ones[i] = 0xff
	}
	for _, n := range []int{16, 100, 256, 1024, 1040} {
		add(n, ones)
	}
	forEachImpl(t, func(t *testing.T, name string) {
		te := newTestEngine(t, name, key)
		for _, c := range cases {
			engineCall(t, te, false, c.pt, c.ct, c.tweak, c.after, flagStoreTweak, 0, 0, false)
			engineCall(t, te, true, c.ct, c.pt, c.tweak, c.after, flagStoreTweak, 0, 0, false)
		}
	})
}

// sectorsWant is the definition of a run of sectors: one reference call
// per sector, the IV of sector k being SectorTweak(first + k*step)
// (wrapping like uint64).
func sectorsWant(ref byteEngine, src []byte, sectorSize int, first, step uint64, dec bool) []byte {
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

// sectorsCall runs te's sectors on src at the given offsets (or in place)
// and checks the output, src, and the canaries around dst.
func sectorsCall(t *testing.T, te testEngine, dec bool, src, want []byte,
	sectorSize int, first, step uint64, srcOff, dstOff int, inPlace bool) {
	t.Helper()
	const canary = 0x5a
	s, d, dbuf, off := inBuffers(src, srcOff, dstOff, inPlace, canary)
	te.sectors(dec, d, s, sectorSize, first, step)
	where := fmt.Sprintf("dec %v sector %d count %d first %#x step %#x srcOff %d dstOff %d inPlace %v",
		dec, sectorSize, len(src)/sectorSize, first, step, srcOff, dstOff, inPlace)
	if !bytes.Equal(d, want) {
		t.Fatalf("%s: %s", where, firstDiff(d, want, sectorSize))
	}
	if !inPlace && !bytes.Equal(s, src) {
		t.Fatalf("%s: src modified", where)
	}
	checkCanaries(t, where, dbuf, off, len(src), canary)
}

// TestEngineSectors compares every implementation's run of sectors with
// per-sector reference calls: every sector size from 16 to 1100 bytes
// with counts around the assembly's batch of four, random first sectors
// and steps (some wrapping past 2^64), all key sizes, in place and at odd
// offsets; then long runs of 512- and 4096-byte sectors and their
// neighbours.
func TestEngineSectors(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	type tcase struct {
		key         []byte
		src         []byte
		want        [2][]byte // encrypt, decrypt
		sectorSize  int
		first, step uint64
		srcOff      int
		dstOff      int
		inPlace     bool
	}
	var cases []tcase
	add := func(c tcase, count int) {
		ref := refEngine(t, c.key)
		c.src = randBytes(rng, c.sectorSize*count)
		c.want[0] = sectorsWant(ref, c.src, c.sectorSize, c.first, c.step, false)
		c.want[1] = sectorsWant(ref, c.src, c.sectorSize, c.first, c.step, true)
		cases = append(cases, c)
	}
	counts := []int{1, 2, 3, 4, 5, 7, 9}
	for ss := 16; ss <= 1100; ss += 16 {
		for i, count := range counts {
			if ss > 256 && (ss/16+i)%3 != 0 {
				continue // large sizes: a third of the counts, in turn
			}
			c := tcase{sectorSize: ss, first: rng.Uint64(), step: 1,
				srcOff: rng.IntN(16), dstOff: rng.IntN(16), inPlace: rng.IntN(3) == 0}
			c.key = randKey(rng, 2*[]int{16, 24, 32}[(ss/16+i)%3])
			switch rng.IntN(4) {
			case 0: // wraps past 2^64 within the call
				c.first = -uint64(rng.IntN(count + 1))
			case 1: // dm-crypt's 512-byte units
				c.step = uint64(max(1, ss/512))
			case 2:
				c.step = rng.Uint64()
			}
			add(c, count)
		}
	}
	long := randKey(rng, 64)
	for _, c := range []struct{ ss, count int }{{512, 67}, {4096, 13}, {528, 30}, {4112, 6}} {
		add(tcase{key: long, sectorSize: c.ss, first: rng.Uint64(), step: 1, srcOff: 3}, c.count)
		add(tcase{key: long, sectorSize: c.ss, first: rng.Uint64(), step: 1, inPlace: true}, c.count)
	}
	forEachImpl(t, func(t *testing.T, name string) {
		for _, c := range cases {
			te := newTestEngine(t, name, c.key)
			for i, dec := range []bool{false, true} {
				sectorsCall(t, te, dec, c.src, c.want[i], c.sectorSize, c.first, c.step, c.srcOff, c.dstOff, c.inPlace)
			}
		}
	})
}

// requireBulk skips, with the reason, an engine without a sector-batch
// routine: the out-of-contract inputs below are defence in depth of the
// assembly, which the Go callers never pass (the portable engine trusts
// its callers' checks instead).
func requireBulk(t *testing.T, te testEngine, what string) {
	t.Helper()
	if !te.bulk() {
		t.Skipf("%s: only the assembly routines defend against it; the Go callers rule it out", what)
	}
}

// TestEngineSectorsMisuse: a sector size that is not a positive multiple
// of 16 makes the sector routines return without touching dst, and a
// partial last sector is left alone.
func TestEngineSectorsMisuse(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	key := randKey(rng, 32)
	ref := refEngine(t, key)
	src := randBytes(rng, 200)
	forEachImpl(t, func(t *testing.T, name string) {
		te := newTestEngine(t, name, key)
		requireBulk(t, te, "a bad sector size or a partial last sector")
		for _, dec := range []bool{false, true} {
			for _, ss := range []int{0, -16, 8, 24, 100} {
				dst := make([]byte, len(src))
				te.sectors(dec, dst, src, ss, 0, 1) // the bulk routine, unchecked
				if !bytes.Equal(dst, make([]byte, len(src))) {
					t.Fatalf("dec %v, sector size %d: dst written", dec, ss)
				}
			}
			// 200 bytes of 64-byte sectors: three sectors, 8 bytes left.
			dst := make([]byte, len(src))
			te.sectors(dec, dst, src, 64, 7, 1)
			want := sectorsWant(ref, src[:192], 64, 7, 1, dec)
			if !bytes.Equal(dst[:192], want) || !bytes.Equal(dst[192:], make([]byte, 8)) {
				t.Fatalf("dec %v: partial last sector: wrong output or written", dec)
			}
		}
	})
}

// TestEngineNoAlloc: an engine call allocates nothing (the tweak travels
// by value; a pointer through a function value would escape).
func TestEngineNoAlloc(t *testing.T) {
	key := make([]byte, 64)
	for i := range key {
		key[i] = byte(i)
	}
	buf := make([]byte, 4096+5)
	forEachImpl(t, func(t *testing.T, name string) {
		e := newTestEngine(t, name, key).c.eng
		var tw tweak128
		allocs := testing.AllocsPerRun(100, func() {
			tw = e.encrypt(buf, buf, tw, flagEncryptTweak|flagStoreTweak)
			tw = e.decrypt(buf, buf, tw, flagStoreTweak)
		})
		if allocs != 0 {
			t.Errorf("%v allocations per encrypt+decrypt", allocs)
		}
	})
}
