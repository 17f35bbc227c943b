package xts

import (
	"crypto/aes"
	"math/rand/v2"
	"testing"
)

// forEachImpl runs f as a subtest for every implementation of this build,
// skipping, with the reason, those this machine cannot run.
func forEachImpl(t *testing.T, f func(t *testing.T, name string)) {
	t.Helper()
	for _, im := range Implementations() {
		t.Run(im.Name, func(t *testing.T) {
			if !im.Available {
				t.Skipf("%s unavailable here: %s", im.Name, im.Note)
			}
			f(t, im.Name)
		})
	}
}

// newImpl returns an AES-XTS Cipher pinned to the named implementation.
func newImpl(t testing.TB, name string, key []byte, opts ...Option) *Cipher {
	t.Helper()
	c, err := NewCipher(aes.NewCipher, key, append([]Option{WithImplementation(name)}, opts...)...)
	if err != nil {
		t.Fatalf("NewCipher(%s, %d-byte key): %v", name, len(key), err)
	}
	if got := c.Implementation(); got != name {
		t.Fatalf("Implementation() = %q, want %q", got, name)
	}
	return c
}

// randKey returns a random XTS key of keyBytes (32, 48 or 64) with
// distinct halves.
func randKey(r *rand.Rand, keyBytes int) []byte {
	k := randBytes(r, keyBytes)
	k[keyBytes/2] ^= k[0] ^ 0x5a // halves differ in at least one byte
	if k[0] == k[keyBytes/2] {
		k[0] ^= 1
	}
	return k
}

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func randTweak(r *rand.Rand) [16]byte {
	var t [16]byte
	copy(t[:], randBytes(r, 16))
	return t
}

func newRand(t testing.TB) *rand.Rand {
	seed := uint64(len(t.Name())) * 0x9e3779b97f4a7c15
	for _, c := range t.Name() {
		seed = seed*31 + uint64(c)
	}
	return rand.New(rand.NewPCG(seed, 42))
}

var keySizes = []int{32, 48, 64}

// byteEngine calls an engine with tweaks as byte arrays, as the tests
// that build tweaks byte by byte want them.
type byteEngine struct{ e engine }

func (b byteEngine) encrypt(dst, src []byte, tweak [16]byte, flags uint64) [16]byte {
	return b.e.encrypt(dst, src, tweakFromBytes(tweak), flags).bytes()
}

func (b byteEngine) decrypt(dst, src []byte, tweak [16]byte, flags uint64) [16]byte {
	return b.e.decrypt(dst, src, tweakFromBytes(tweak), flags).bytes()
}
