//go:build !purego

package xts

import (
	"bytes"
	"crypto/aes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/cpuid/v2"
)

// asmMissing returns the CPU features a variant needs that this CPU (and
// OS) lacks, or "" if it can run.
func asmMissing(name string) string {
	type feat struct {
		name string
		id   cpuid.FeatureID
	}
	base := []feat{{"AES-NI", cpuid.AESNI}, {"SSSE3", cpuid.SSSE3}}
	need := map[string][]feat{
		"aesni":     base,
		"aesni-avx": append(base, feat{"AVX", cpuid.AVX}),
		"vaes-avx2": append(base, feat{"AVX2", cpuid.AVX2}, feat{"VAES", cpuid.VAES},
			feat{"VPCLMULQDQ", cpuid.VPCLMULQDQ}),
	}
	avx512 := append(need["vaes-avx2"], feat{"AVX512F", cpuid.AVX512F},
		feat{"AVX512BW", cpuid.AVX512BW}, feat{"AVX512VL", cpuid.AVX512VL}, feat{"BMI2", cpuid.BMI2})
	need["vaes-avx10_256"] = avx512
	need["vaes-avx10_512"] = avx512
	fs, ok := need[name]
	if !ok {
		return "unknown variant " + name
	}
	var missing []string
	for _, f := range fs {
		if !cpuid.CPU.Supports(f.id) {
			missing = append(missing, f.name)
		}
	}
	return strings.Join(missing, ", ")
}

// asmRun calls f for every assembly variant in a subtest, skipping those
// this CPU cannot run.
func asmRun(t *testing.T, f func(t *testing.T, v asmVariant)) {
	for _, v := range asmVariants {
		t.Run(v.name, func(t *testing.T) {
			if m := asmMissing(v.name); m != "" {
				t.Skipf("CPU lacks %s", m)
			}
			f(t, v)
		})
	}
}

// asmRef is the reference the variants are compared with.
func asmRef(t testing.TB, key []byte) byteEngine {
	k1, err := aes.NewCipher(key[:len(key)/2])
	if err != nil {
		t.Fatal(err)
	}
	k2, err := aes.NewCipher(key[len(key)/2:])
	if err != nil {
		t.Fatal(err)
	}
	return byteEngine{newGeneric(k1, k2)}
}

func asmKey(rng *rand.Rand, size int) []byte {
	key := make([]byte, 2*size)
	for i := range key {
		key[i] = byte(rng.Uint32())
	}
	return key
}

func asmFill(rng *rand.Rand, b []byte) {
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
}

// asmCall runs one variant on src at the given offsets (or in place) and
// checks dst against want, the stored tweak against wantTweak, that src is
// unchanged when out of place and that no byte around dst is touched.
func asmCall(t *testing.T, v asmVariant, ks *keySchedule, dec bool, src, want []byte,
	tweak, wantTweak [16]byte, flags uint64, srcOff, dstOff int, inPlace bool) {
	t.Helper()
	n := len(src)
	const canary = 0xa5
	sbuf := bytes.Repeat([]byte{canary}, srcOff+n+32)
	copy(sbuf[srcOff:], src)
	s := sbuf[srcOff : srcOff+n]
	dbuf, d := sbuf, s
	if !inPlace {
		dbuf = bytes.Repeat([]byte{canary}, dstOff+n+32)
		d = dbuf[dstOff : dstOff+n]
	}
	f := v.enc
	if dec {
		f = v.dec
	}
	tw := tweak
	f(ks, d, s, &tw, flags)
	op := "encrypt"
	if dec {
		op = "decrypt"
	}
	where := fmt.Sprintf("%s len %d flags %d srcOff %d dstOff %d inPlace %v", op, n, flags, srcOff, dstOff, inPlace)
	if !bytes.Equal(d, want) {
		i := 0
		for d[i] == want[i] {
			i++
		}
		t.Fatalf("%s: output differs from byte %d (block %d)\ngot  %x\nwant %x", where, i, i/16,
			d[i&^15:min(n, i&^15+32)], want[i&^15:min(n, i&^15+32)])
	}
	if flags&flagStoreTweak != 0 && tw != wantTweak {
		t.Fatalf("%s: stored tweak %x, want %x", where, tw, wantTweak)
	}
	if flags&flagStoreTweak == 0 && tw != tweak {
		t.Fatalf("%s: tweak changed without flagStoreTweak", where)
	}
	if !inPlace && !bytes.Equal(s, src) {
		t.Fatalf("%s: src modified", where)
	}
	off := dstOff
	if inPlace {
		off = srcOff
	}
	checkCanaries(t, where, dbuf, off, n, canary)
}

// checkCanaries fails if any byte of buf outside [off, off+n), the
// destination, lost its canary value.
func checkCanaries(t *testing.T, where string, buf []byte, off, n int, canary byte) {
	t.Helper()
	for i, b := range buf[:off] {
		if b != canary {
			t.Fatalf("%s: byte %d before dst written", where, off-i)
		}
	}
	for i, b := range buf[off+n:] {
		if b != canary {
			t.Fatalf("%s: byte %d after dst written", where, i)
		}
	}
}

// asmCheckLength compares every variant with the reference on one input,
// encrypting and decrypting, with the given offsets.
type asmLengthCase struct {
	n              int
	keySize        int
	srcOff, dstOff int
	inPlace        bool
}

func asmCheckCases(t *testing.T, cases []asmLengthCase, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	type prepared struct {
		asmLengthCase
		ks             *keySchedule
		pt, ct         []byte
		tweak, tweakIn [16]byte
		flags          uint64
		ctTweak        [16]byte
	}
	keys := map[int][]byte{}
	refs := map[int]byteEngine{}
	sched := map[int]*keySchedule{}
	for _, size := range []int{16, 24, 32} {
		keys[size] = asmKey(rng, size)
		refs[size] = asmRef(t, keys[size])
		sched[size] = asmTestSchedule(keys[size])
	}
	var ps []prepared
	for i, c := range cases {
		p := prepared{asmLengthCase: c, ks: sched[c.keySize]}
		p.pt = make([]byte, c.n)
		asmFill(rng, p.pt)
		asmFill(rng, p.tweakIn[:])
		// Alternate the flags: the IV encrypted first, or an already
		// encrypted tweak (then every carry pattern is reachable).
		p.flags = uint64(i%4) & (flagEncryptTweak | flagStoreTweak)
		p.ct = make([]byte, c.n)
		p.ctTweak = refs[c.keySize].encrypt(p.ct, p.pt, p.tweakIn, p.flags)
		// The reference must decrypt its own output (checked on short
		// inputs: the generic engine has its own tests).
		if c.n <= 4096 {
			back := make([]byte, c.n)
			tw := refs[c.keySize].decrypt(back, p.ct, p.tweakIn, p.flags)
			if !bytes.Equal(back, p.pt) || (p.flags&flagStoreTweak != 0 && tw != p.ctTweak) {
				t.Fatalf("reference does not round-trip at length %d", c.n)
			}
		}
		ps = append(ps, p)
	}
	asmRun(t, func(t *testing.T, v asmVariant) {
		for _, p := range ps {
			asmCall(t, v, p.ks, false, p.pt, p.ct, p.tweakIn, p.ctTweak, p.flags, p.srcOff, p.dstOff, p.inPlace)
			asmCall(t, v, p.ks, true, p.ct, p.pt, p.tweakIn, p.ctTweak, p.flags, p.dstOff, p.srcOff, p.inPlace)
		}
	})
}

// TestAsmLengths: every length 16..1100 with every key size, at offsets
// 0..63, in place and not.
func TestAsmLengths(t *testing.T) {
	var cases []asmLengthCase
	for n := 16; n <= 1100; n++ {
		for _, size := range []int{16, 24, 32} {
			cases = append(cases, asmLengthCase{n, size, n % 64, (n*7 + size) % 64, (n+size)%5 == 0})
		}
	}
	asmCheckCases(t, cases, 1)
}

// TestAsmIterationEdges: lengths within 17 bytes of every multiple of one
// main-loop step (64, 128, 256 bytes) up to 4 KiB.
func TestAsmIterationEdges(t *testing.T) {
	seen := map[int]bool{}
	var cases []asmLengthCase
	add := func(n int) {
		if n < 16 || seen[n] {
			return
		}
		seen[n] = true
		cases = append(cases, asmLengthCase{n, []int{16, 24, 32}[n%3], n % 61, n % 64, n%7 == 0})
	}
	for _, step := range []int{64, 128, 256} {
		for m := step; m <= 4096; m += step {
			for d := -17; d <= 17; d++ {
				add(m + d)
			}
		}
	}
	asmCheckCases(t, cases, 2)
}

// TestAsmLargeUnit: every length within 48 bytes of 256 KiB, each key
// size. The expected outputs share a prefix: the reference encrypts it
// once, stores the tweak that follows it, and then only each length's
// tail (the multi-part protocol the generic engine implements).
func TestAsmLargeUnit(t *testing.T) {
	const base, spread = 256 << 10, 48
	const prefix = base - spread - 16 // a multiple of 16, at least 16 below every length
	rng := rand.New(rand.NewPCG(9, 9))
	type tc struct {
		ks             *keySchedule
		pt, ct         []byte
		iv, after      [16]byte
		srcOff, dstOff int
		inPlace        bool
	}
	var cases []tc
	for _, size := range []int{16, 24, 32} {
		key := asmKey(rng, size)
		ref, ks := asmRef(t, key), asmTestSchedule(key)
		pt := make([]byte, base+spread)
		asmFill(rng, pt)
		var iv [16]byte
		asmFill(rng, iv[:])
		ct := make([]byte, base+spread)
		mid := ref.encrypt(ct[:prefix], pt[:prefix], iv, flagEncryptTweak|flagStoreTweak)
		for n := base - spread; n <= base+spread; n++ {
			if (n-base)%3 != size%3 {
				continue // each length once, the key sizes in turn
			}
			c := tc{ks: ks, pt: pt[:n], ct: make([]byte, n), iv: iv,
				srcOff: n % 64, dstOff: (n / 3) % 64, inPlace: n%5 == 0}
			copy(c.ct, ct[:prefix])
			c.after = ref.encrypt(c.ct[prefix:], pt[prefix:n], mid, flagStoreTweak)
			cases = append(cases, c)
		}
	}
	asmRun(t, func(t *testing.T, v asmVariant) {
		for _, c := range cases {
			flags := uint64(flagEncryptTweak | flagStoreTweak)
			asmCall(t, v, c.ks, false, c.pt, c.ct, c.iv, c.after, flags, c.srcOff, c.dstOff, c.inPlace)
			asmCall(t, v, c.ks, true, c.ct, c.pt, c.iv, c.after, flags, c.dstOff, c.srcOff, c.inPlace)
		}
	})
}

// TestAsmRandomLengths: random lengths up to 1 MiB.
func TestAsmRandomLengths(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	var cases []asmLengthCase
	count := 12
	if testing.Short() {
		count = 4
	}
	for i := 0; i < count; i++ {
		n := 16 + rng.IntN(1<<20-15)
		if i%2 == 0 {
			n = 16 + rng.IntN(1<<14)
		}
		cases = append(cases, asmLengthCase{n, []int{16, 24, 32}[i%3], rng.IntN(64), rng.IntN(64), i%4 == 3})
	}
	asmCheckCases(t, cases, 4)
}

// asmDivX returns t·x^-1 in GF(2^128) (the inverse of the XTS doubling).
func asmDivX(t [16]byte) [16]byte {
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

// TestAsmTweakCarries sets the top bit of the tweak (and of its low half)
// at block 0 and at the blocks on each side of every lane, vector and
// main-loop boundary, so every carry path of the tweak arithmetic runs.
func TestAsmTweakCarries(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	var positions []int
	for _, j := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65} {
		positions = append(positions, j)
	}
	key := asmKey(rng, 32)
	ref, ks := asmRef(t, key), asmTestSchedule(key)
	type tc struct {
		pt, ct       []byte
		tweak, after [16]byte
	}
	var cases []tc
	for _, j := range positions {
		for _, bits := range [][]int{{127}, {63}, {127, 63}, {127, 126, 125, 124, 123, 122, 121, 120, 63, 62, 61, 60, 59, 58, 57, 56}} {
			var tj [16]byte
			asmFill(rng, tj[:])
			for i := range tj {
				tj[i] &= 0x0f // few other carries
			}
			for _, b := range bits {
				tj[b/8] |= 1 << (b % 8)
			}
			t0 := tj
			for i := 0; i < j; i++ {
				t0 = asmDivX(t0)
			}
			for _, extra := range []int{0, 5} {
				n := 16*(j+1) + extra
				if extra == 0 {
					n += 16 * (j % 5) // vary the tail too
				}
				c := tc{pt: make([]byte, n), ct: make([]byte, n), tweak: t0}
				asmFill(rng, c.pt)
				c.after = ref.encrypt(c.ct, c.pt, t0, flagStoreTweak)
				cases = append(cases, c)
			}
		}
	}
	// All-ones tweak: every lane carries at every step.
	for _, n := range []int{16, 100, 256, 1024, 1040} {
		var ones [16]byte
		for i := range ones {
			ones[i] = 0xff
		}
		c := tc{pt: make([]byte, n), ct: make([]byte, n), tweak: ones}
		asmFill(rng, c.pt)
		c.after = ref.encrypt(c.ct, c.pt, ones, flagStoreTweak)
		cases = append(cases, c)
	}
	asmRun(t, func(t *testing.T, v asmVariant) {
		for _, c := range cases {
			asmCall(t, v, ks, false, c.pt, c.ct, c.tweak, c.after, flagStoreTweak, 0, 0, false)
			asmCall(t, v, ks, true, c.ct, c.pt, c.tweak, c.after, flagStoreTweak, 0, 0, false)
		}
	})
}

// TestAsmMultiPart splits data units into random parts (all but the last a
// multiple of 16) with the multi-part flags and compares with one call.
func TestAsmMultiPart(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	asmRun(t, func(t *testing.T, v asmVariant) {
		for iter := 0; iter < 300; iter++ {
			size := []int{16, 24, 32}[iter%3]
			key := asmKey(rng, size)
			ref, ks := asmRef(t, key), asmTestSchedule(key)
			n := 16 + rng.IntN(3000)
			pt := make([]byte, n)
			asmFill(rng, pt)
			var iv [16]byte
			asmFill(rng, iv[:])
			ct := make([]byte, n)
			ref.encrypt(ct, pt, iv, flagEncryptTweak)
			for _, dec := range []bool{false, true} {
				in, want := pt, ct
				f := v.enc
				if dec {
					in, want, f = ct, pt, v.dec
				}
				out := make([]byte, n)
				inPlace := iter%2 == 1
				if inPlace {
					copy(out, in)
				}
				tw := iv
				flags := uint64(flagEncryptTweak | flagStoreTweak)
				for off := 0; off < n; {
					rest := n - off
					part := rest
					// Not the last part: a multiple of 16 that leaves at least 16 bytes.
					if rest >= 32 && rng.IntN(3) > 0 {
						part = 16 * (1 + rng.IntN((rest-16)/16))
					}
					last := part == rest
					if last && rng.IntN(2) == 0 {
						flags &^= flagStoreTweak
					}
					src := in[off : off+part]
					if inPlace {
						src = out[off : off+part]
					}
					f(ks, out[off:off+part], src, &tw, flags)
					flags = flagStoreTweak
					off += part
				}
				if !bytes.Equal(out, want) {
					t.Fatalf("iter %d len %d dec %v inPlace %v: multi-part output differs", iter, n, dec, inPlace)
				}
			}
		}
	})
}

// TestAsmGuardPages runs every length 16..600 with src and dst flush
// against inaccessible pages, at their ends and at their starts: one byte
// read or written outside them crashes the test.
func TestAsmGuardPages(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const maxLen = 600
	key := asmKey(rng, 32)
	ref, ks := asmRef(t, key), asmTestSchedule(key)
	pt := make([]byte, maxLen)
	asmFill(rng, pt)
	asmRun(t, func(t *testing.T, v asmVariant) {
		srcR, dstR := guardedRegion(t, maxLen), guardedRegion(t, maxLen)
		for n := 16; n <= maxLen; n++ {
			var iv [16]byte
			asmFill(rng, iv[:])
			want := make([]byte, n)
			wantTweak := ref.encrypt(want, pt[:n], iv, flagEncryptTweak|flagStoreTweak)
			for _, dec := range []bool{false, true} {
				in, out, f := pt[:n], want, v.enc
				if dec {
					in, out, f = want, pt[:n], v.dec
				}
				for layout := 0; layout < 4; layout++ {
					s, d := guardLayout(srcR, dstR, n, layout)
					copy(s, in)
					tw := iv
					f(ks, d, s, &tw, flagEncryptTweak|flagStoreTweak)
					if !bytes.Equal(d, out) || tw != wantTweak {
						t.Fatalf("len %d dec %v layout %d: wrong output", n, dec, layout)
					}
				}
			}
		}
	})
}

// TestAsmKnownAnswers runs the vectors in testdata through every variant.
func TestAsmKnownAnswers(t *testing.T) {
	type vector struct {
		ID                    string
		Key, Tweak, Plaintext string
		Ciphertext            string
	}
	files, _ := filepath.Glob("testdata/*.json")
	if len(files) == 0 {
		t.Fatal("no testdata/*.json")
	}
	var vs []vector
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct{ Vectors []vector }
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		vs = append(vs, doc.Vectors...)
	}
	unhex := func(s string) []byte {
		b, err := hex.DecodeString(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	asmRun(t, func(t *testing.T, v asmVariant) {
		for _, vec := range vs {
			key, pt, ct := unhex(vec.Key), unhex(vec.Plaintext), unhex(vec.Ciphertext)
			var iv [16]byte
			copy(iv[:], unhex(vec.Tweak))
			// The production key expansion and the test's own.
			for _, ks := range []*keySchedule{newKeySchedule(key), asmTestSchedule(key)} {
				asmKnownAnswer(t, v, ks, vec.ID, iv, pt, ct)
			}
		}
		if len(vs) < 700 {
			t.Errorf("only %d vectors", len(vs))
		}
	})
}

func asmKnownAnswer(t *testing.T, v asmVariant, ks *keySchedule, id string, iv [16]byte, pt, ct []byte) {
	t.Helper()
	got := make([]byte, len(pt))
	tw := iv
	v.enc(ks, got, pt, &tw, flagEncryptTweak)
	if !bytes.Equal(got, ct) {
		t.Errorf("%s: encrypt\ngot  %x\nwant %x", id, got, ct)
	}
	tw = iv
	v.dec(ks, got, ct, &tw, flagEncryptTweak)
	if !bytes.Equal(got, pt) {
		t.Errorf("%s: decrypt\ngot  %x\nwant %x", id, got, pt)
	}
}

// BenchmarkAsm calls each routine directly, one call per message.
func BenchmarkAsm(b *testing.B) {
	for _, v := range asmVariants {
		for _, op := range []string{"enc", "dec"} {
			for _, keyBits := range []int{128, 256} {
				for _, size := range []int{16, 512, 4096, 65536} {
					name := fmt.Sprintf("variant=%s/op=%s/key=%d/size=%d", v.name, op, keyBits, size)
					b.Run(name, func(b *testing.B) {
						if m := asmMissing(v.name); m != "" {
							b.Skipf("CPU lacks %s", m)
						}
						rng := rand.New(rand.NewPCG(8, 8))
						ks := asmTestSchedule(asmKey(rng, keyBits/8))
						f := v.enc
						if op == "dec" {
							f = v.dec
						}
						buf := make([]byte, size)
						// Through a func value the tweak escapes: one
						// variable for the whole run, or each call
						// would allocate.
						tw := new([16]byte)
						b.SetBytes(int64(size))
						for b.Loop() {
							*tw = [16]byte{}
							f(ks, buf, buf, tw, flagEncryptTweak)
						}
					})
				}
			}
		}
	}
}

// TestAsmShortInput: below 16 bytes (outside the contract, which the Go
// callers enforce) the routines must not touch memory at all.
func TestAsmShortInput(t *testing.T) {
	ks := asmTestSchedule(make([]byte, 64))
	asmRun(t, func(t *testing.T, v asmVariant) {
		region := guardedRegion(t, 64)
		for n := 0; n < 16; n++ {
			for _, f := range []asmFunc{v.enc, v.dec} {
				src := region[len(region)-n:]
				dst := region[:n]
				for i := range region {
					region[i] = 0x5a
				}
				tw := [16]byte{1}
				f(ks, dst, src, &tw, flagEncryptTweak|flagStoreTweak)
				if tw != [16]byte{1} || !bytes.Equal(region, bytes.Repeat([]byte{0x5a}, len(region))) {
					t.Fatalf("len %d: memory written", n)
				}
			}
		}
	})
}
