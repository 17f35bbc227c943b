package xts_test

import (
	"bytes"
	"crypto/aes"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/fastxts/xts"
	xxts "golang.org/x/crypto/xts"
)

// This file holds the cross-check against golang.org/x/crypto/xts and the
// helpers that fuzz_test.go, concurrency_test.go and openssl_cgo_test.go
// share: they are black-box tests of the public API only.

// availableImpls returns the names of every implementation this machine can
// run, generic included. A test that loops over them covers whatever the
// registry offers here; variants the CPU lacks are listed as skipped.
func availableImpls(t testing.TB) []string {
	t.Helper()
	var names []string
	for _, im := range xts.Implementations() {
		if im.Cipher != "" {
			continue // runs another block cipher than AES
		}
		if im.Available {
			names = append(names, im.Name)
		} else {
			t.Logf("implementation %s not available here: %s", im.Name, im.Note)
		}
	}
	if len(names) == 0 {
		t.Fatal("Implementations() lists nothing available; generic must always be")
	}
	return names
}

// newImplCipher returns an AES-XTS Cipher pinned to implementation name and
// checks that the pin took effect.
func newImplCipher(t testing.TB, name string, key []byte, opts ...xts.Option) *xts.Cipher {
	t.Helper()
	opts = append([]xts.Option{xts.WithImplementation(name)}, opts...)
	c, err := xts.NewCipher(aes.NewCipher, key, opts...)
	if err != nil {
		t.Fatalf("NewCipher(%d-byte key, %s): %v", len(key), name, err)
	}
	if got := c.Implementation(); got != name {
		t.Fatalf("WithImplementation(%q) gave implementation %q", name, got)
	}
	return c
}

// testRand returns a generator seeded from XTS_TEST_SEED, or randomly. The
// seed is logged, so a failing run (whose log go test prints) can be
// repeated exactly.
func testRand(t testing.TB) *rand.Rand {
	t.Helper()
	seed := rand.Uint64()
	if s := os.Getenv("XTS_TEST_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("XTS_TEST_SEED=%q: %v", s, err)
		}
		seed = v
	}
	t.Logf("random seed %d (rerun with XTS_TEST_SEED=%d)", seed, seed)
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

func randBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := 0; i < n; i += 8 {
		v := rng.Uint64()
		for j := i; j < n && j < i+8; j++ {
			b[j] = byte(v)
			v >>= 8
		}
	}
	return b
}

// randKey returns a random XTS key of keyLen bytes whose two halves differ
// (FIPS and OpenSSL refuse equal halves; so does NewCipher by default).
func randKey(rng *rand.Rand, keyLen int) []byte {
	for {
		k := randBytes(rng, keyLen)
		if !bytes.Equal(k[:keyLen/2], k[keyLen/2:]) {
			return k
		}
	}
}

// randSector picks sector numbers that stress the tweak encoding: small
// ones, ones with high bits set (the upper bytes of the 8-byte field, the
// top bit of the 64-bit number) and the extremes.
func randSector(rng *rand.Rand) uint64 {
	switch rng.IntN(6) {
	case 0:
		return rng.Uint64N(1 << 20)
	case 1:
		return rng.Uint64() | 1<<63
	case 2:
		return []uint64{0, 1, 1<<32 - 1, 1 << 32, 1<<63 - 1, 1 << 63, 1<<64 - 1}[rng.IntN(7)]
	default:
		return rng.Uint64()
	}
}

// failBudget stops a test after a bounded number of reported mismatches:
// enough to see the pattern (which implementation, which lengths) without
// drowning it in thousands of lines.
type failBudget struct {
	t    testing.TB
	left int
}

func (f *failBudget) errorf(format string, args ...any) {
	f.t.Helper()
	f.t.Errorf(format, args...)
	if f.left--; f.left <= 0 {
		f.t.Fatal("too many mismatches; stopping")
	}
}

// TestXCryptoXTS compares every implementation with golang.org/x/crypto/xts
// (the API this package replaces) on every multiple-of-16 length up to 4 KiB,
// AES-128/192/256, random keys and sector numbers including ones with high
// bits set, in both directions. Decryption is checked on random input, not
// only on our own ciphertext, so it is compared with x/crypto independently.
func TestXCryptoXTS(t *testing.T) {
	rng := testRand(t)
	impls := availableImpls(t)
	step := 16
	if testing.Short() {
		step = 48 // every third length; still covers every length mod 64
	}
	fails := &failBudget{t: t, left: 20}
	for _, keyLen := range []int{32, 48, 64} {
		for n := 16; n <= 4096; n += step {
			key := randKey(rng, keyLen)
			ref, err := xxts.NewCipher(aes.NewCipher, key)
			if err != nil {
				t.Fatal(err)
			}
			sector := randSector(rng)
			pt := randBytes(rng, n)
			ct := randBytes(rng, n)
			wantCT := make([]byte, n)
			wantPT := make([]byte, n)
			ref.Encrypt(wantCT, pt, sector)
			ref.Decrypt(wantPT, ct, sector)

			got := make([]byte, n)
			for _, name := range impls {
				c := newImplCipher(t, name, key)
				c.Encrypt(got, pt, sector)
				if !bytes.Equal(got, wantCT) {
					fails.errorf("%s: AES-%d, len %d, sector %#x: Encrypt differs from x/crypto/xts", name, keyLen*4, n, sector)
				}
				c.Decrypt(got, ct, sector)
				if !bytes.Equal(got, wantPT) {
					fails.errorf("%s: AES-%d, len %d, sector %#x: Decrypt differs from x/crypto/xts", name, keyLen*4, n, sector)
				}
				// The sector form must be exactly the tweak form with SectorTweak.
				c.EncryptWithTweak(got, pt, xts.SectorTweak(sector))
				if !bytes.Equal(got, wantCT) {
					fails.errorf("%s: AES-%d, len %d, sector %#x: EncryptWithTweak(SectorTweak) differs from x/crypto/xts", name, keyLen*4, n, sector)
				}
			}
		}
	}
}
