package xts

import (
	"bytes"
	"crypto/aes"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
)

// This file is the test harness: every property is written once, as a
// function of an implementation's name, and forEachImpl runs it over every
// implementation of the build (the portable one and each assembly
// variant of this architecture's table). Tests that need the engine
// contract itself (raw flags, offsets, canaries, inputs the API rules out)
// reach an implementation's engine through newTestEngine.

// envRequireAll names the environment variable that turns "this machine
// cannot run implementation X" skips into failures, for CI on a machine
// known to run every variant.
const envRequireAll = "XTS_TEST_REQUIRE_ALL"

// forEachImpl runs f as a subtest for every implementation of this build,
// skipping, with the reason, those this machine cannot run (failing
// instead when XTS_TEST_REQUIRE_ALL=1).
func forEachImpl(t *testing.T, f func(t *testing.T, name string)) {
	t.Helper()
	for _, im := range Implementations() {
		if im.Cipher != "" {
			continue // not AES: tested in its own file (serpent_amd64_test.go)
		}
		t.Run(im.Name, func(t *testing.T) {
			if !im.Available {
				if os.Getenv(envRequireAll) == "1" {
					t.Fatalf("%s unavailable here (%s), and %s=1", im.Name, im.Note, envRequireAll)
				}
				t.Skipf("%s unavailable here: %s", im.Name, im.Note)
			}
			f(t, im.Name)
		})
	}
}

// testEngine is one implementation's engine for one key, reached past the
// public API's checks.
type testEngine struct {
	c *Cipher
}

// newTestEngine returns the named implementation's engine for key (equal
// halves allowed: the engines do not care).
func newTestEngine(t testing.TB, name string, key []byte) testEngine {
	t.Helper()
	return testEngine{newImpl(t, name, key, AllowEqualKeyHalves())}
}

// crypt runs the engine once on src into dst with raw flags.
func (te testEngine) crypt(dec bool, dst, src []byte, tweak [16]byte, flags uint64) [16]byte {
	if dec {
		return te.c.eng.decrypt(dst, src, tweakFromBytes(tweak), flags).bytes()
	}
	return te.c.eng.encrypt(dst, src, tweakFromBytes(tweak), flags).bytes()
}

// bulk reports whether the engine has a sector-batch routine of its own
// (the assembly variants do; the portable engine runs one unit at a time).
func (te testEngine) bulk() bool { return te.c.asm != nil }

// sectors runs a run of sectors on the calling goroutine: all of them
// through the engine's sector-batch routine when it has one (a last
// partial batch included, which the Cipher gives to the unit routine),
// else one unit per sector.
func (te testEngine) sectors(dec bool, dst, src []byte, sectorSize int, first, step uint64) {
	switch {
	case te.c.asm != nil && dec:
		te.c.asm.decryptSectors(dst, src, sectorSize, first, step)
	case te.c.asm != nil:
		te.c.asm.encryptSectors(dst, src, sectorSize, first, step)
	default:
		te.c.sectorsSerial(dst, src, sectorSize, first, step, dec)
	}
}

// refEngine is the reference the raw engine tests compare with: the
// portable engine, itself checked against an independent IEEE 1619 model
// (reference_test.go) and the published vectors.
func refEngine(t testing.TB, key []byte) byteEngine {
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

// firstDiff describes where got and want first differ.
func firstDiff(got, want []byte, unit int) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	return fmt.Sprintf("output differs from byte %d (unit %d, block %d of it)\ngot  %x\nwant %x",
		i, i/unit, i%unit/16, got[i&^15:min(len(got), i&^15+32)], want[i&^15:min(len(want), i&^15+32)])
}

// inBuffers places n bytes of src at srcOff (and dst at dstOff, or in
// place) in buffers filled with a canary and 64 bytes of slack after.
func inBuffers(src []byte, srcOff, dstOff int, inPlace bool, canary byte) (s, d, dbuf []byte, off int) {
	n := len(src)
	sbuf := bytes.Repeat([]byte{canary}, srcOff+n+64)
	s = sbuf[srcOff : srcOff+n]
	copy(s, src)
	if inPlace {
		return s, s, sbuf, srcOff
	}
	dbuf = bytes.Repeat([]byte{canary}, dstOff+n+64)
	return s, dbuf[dstOff : dstOff+n], dbuf, dstOff
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
