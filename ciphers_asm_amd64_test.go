//go:build !purego

package xts

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"errors"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/fastxts/xts/camellia"
	"github.com/fastxts/xts/kuznyechik"
	"github.com/fastxts/xts/serpent"
	"github.com/fastxts/xts/twofish"
)

// The tests every assembly engine of a block cipher other than AES goes
// through (cipher_select.go, engine_bulk.go): against the generic engine
// over the portable package, lengths around the groups, stealing, sectors,
// multi-part units, allocation, fuzzing; the guard pages are in
// ciphers_guard_amd64_test.go.

// otherCipherTest is one registered cipher family as the tests drive it:
// its constructor and the XTS key lengths it takes.
type otherCipherTest struct {
	cipher    string // the family's name in the registry
	newCipher func([]byte) (cipher.Block, error)
	keyLens   []int
}

// otherCipherTests lists every family with assembly on this platform; a
// family registered without a row here fails TestOtherCipherTestsComplete.
var otherCipherTests = []otherCipherTest{
	{"Serpent", serpent.NewCipher, []int{32, 48, 64}},
	{"Camellia", camellia.NewCipher, []int{32, 48, 64}},
	{"Twofish", twofish.NewCipher, []int{32, 48, 64}},
	{"Kuznyechik", kuznyechik.NewCipher, []int{64}},
}

// TestOtherCipherTestsComplete: every registered family is tested.
func TestOtherCipherTestsComplete(t *testing.T) {
	for _, fam := range families {
		if !slices.ContainsFunc(otherCipherTests, func(fc otherCipherTest) bool { return fc.cipher == fam.cipher }) {
			t.Errorf("cipher family %s has no row in otherCipherTests", fam.cipher)
		}
	}
}

// TestOtherCipherSelection: each family's constructor gets the family's
// first available variant by default (generic where none is), a function
// wrapping it the generic engine; a family's variants refuse AES and every
// other family's keys, and the constructor refuses AES's variants, the
// other families' and its own unavailable ones.
func TestOtherCipherSelection(t *testing.T) {
	key := randKey(newRand(t), 64) // a length every row takes
	for _, fc := range otherCipherTests {
		t.Run(fc.cipher, func(t *testing.T) {
			fam := familyNamed(fc.cipher)
			if fam == nil {
				t.Fatalf("no %s family registered", fc.cipher)
			}
			wrapped := func(k []byte) (cipher.Block, error) { return fc.newCipher(k) }
			if familyFor(fc.newCipher) != fam || familyFor(wrapped) != nil || familyFor(aes.NewCipher) != nil {
				t.Fatalf("familyFor: constructor %v, a wrapper %v, aes.NewCipher %v; want the %s family, nil, nil",
					familyFor(fc.newCipher), familyFor(wrapped), familyFor(aes.NewCipher), fc.cipher)
			}
			if c, err := NewCipher(wrapped, key); err != nil || c.Implementation() != genericName {
				t.Fatalf("wrapped constructor: %v, %v; want generic", c, err)
			}
			c, err := NewCipher(fc.newCipher, key)
			if err != nil {
				t.Fatal(err)
			}
			want := genericName
			if i := slices.IndexFunc(fam.list(), func(im otherImpl) bool { return im.available }); i >= 0 {
				want = fam.list()[i].name
			}
			if c.Implementation() != want {
				t.Errorf("default = %q, want %q (the first available)", c.Implementation(), want)
			}
			others := []func([]byte) (cipher.Block, error){aes.NewCipher}
			var foreign []string // the names of AES's and the other families' variants
			for _, v := range x86Variants {
				foreign = append(foreign, v.name)
			}
			for _, o := range otherCipherTests {
				if o.cipher == fc.cipher {
					continue
				}
				if familyFor(o.newCipher) == fam {
					t.Errorf("familyFor(%s's constructor) is the %s family", o.cipher, fc.cipher)
				}
				others = append(others, o.newCipher)
				if of := familyNamed(o.cipher); of != nil {
					for _, im := range of.list() {
						foreign = append(foreign, im.name)
					}
				}
			}
			for _, im := range fam.list() {
				for _, other := range others {
					if _, err := NewCipher(other, key, WithImplementation(im.name)); !errors.Is(err, ErrImplementation) {
						t.Errorf("another cipher with %s: error %v, want ErrImplementation", im.name, err)
					}
				}
				if !im.available {
					if _, err := NewCipher(fc.newCipher, key, WithImplementation(im.name)); !errors.Is(err, ErrImplementation) {
						t.Errorf("unavailable %s: error %v, want ErrImplementation", im.name, err)
					}
				}
			}
			for _, name := range foreign {
				if _, err := NewCipher(fc.newCipher, key, WithImplementation(name)); !errors.Is(err, ErrImplementation) {
					t.Errorf("%s with %s: error %v, want ErrImplementation", fc.cipher, name, err)
				}
			}
		})
	}
}

// forEachOtherAsm runs f as a subtest for every assembly variant of every
// cipher family, skipping, with the reason, those this machine cannot run
// (failing instead when XTS_TEST_REQUIRE_ALL=1).
func forEachOtherAsm(t *testing.T, f func(t *testing.T, fc otherCipherTest, name string)) {
	t.Helper()
	for _, fc := range otherCipherTests {
		fam := familyNamed(fc.cipher)
		if fam == nil {
			t.Fatalf("%s: no such cipher family registered", fc.cipher)
		}
		for _, im := range fam.list() {
			t.Run(im.name, func(t *testing.T) {
				if !im.available {
					if os.Getenv(envRequireAll) == "1" {
						t.Fatalf("%s unavailable here (%s), and %s=1", im.name, im.note, envRequireAll)
					}
					t.Skipf("%s unavailable here: %s", im.name, im.note)
				}
				f(t, fc, im.name)
			})
		}
	}
}

// otherPair returns the assembly and the generic Cipher for one key.
func otherPair(t *testing.T, fc otherCipherTest, name string, key []byte, opts ...Option) (asm, ref *Cipher) {
	t.Helper()
	asm, err := NewCipher(fc.newCipher, key, append(opts, WithImplementation(name))...)
	if err != nil {
		t.Fatal(err)
	}
	if asm.Implementation() != name {
		t.Fatalf("Implementation() = %q, want %q", asm.Implementation(), name)
	}
	ref, err = NewCipher(fc.newCipher, key, append(opts, WithImplementation(genericName))...)
	if err != nil {
		t.Fatal(err)
	}
	if ref.Implementation() != genericName {
		t.Fatalf("Implementation() = %q, want generic", ref.Implementation())
	}
	return asm, ref
}

// TestOtherAsmMatchesGeneric: XTS through the assembly equals the
// portable package through the generic engine, for every key size,
// lengths around the 512-byte groups (stealing included), random tweaks,
// in place and out of place at odd offsets, whole units and parts.
func TestOtherAsmMatchesGeneric(t *testing.T) {
	forEachOtherAsm(t, func(t *testing.T, fc otherCipherTest, name string) {
		r := newRand(t)
		lengths := []int{16, 17, 31, 255, 256, 257, 272, 496, 511, 512, 513, 527, 528, 543, 768, 784, 1008, 1024, 1039, 1536, 1792 + 15, 4096, 4111, 8192 + 37, 65536}
		for range 8 {
			lengths = append(lengths, 16+r.IntN(20000))
		}
		for _, keyLen := range fc.keyLens {
			key := randKey(r, keyLen)
			asm, ref := otherPair(t, fc, name, key)
			for _, n := range lengths {
				for _, inPlace := range []bool{false, true} {
					t.Run(fmt.Sprintf("key=%d/n=%d/inplace=%v", keyLen, n, inPlace), func(t *testing.T) {
						src := randBytes(r, n)
						tweak := randTweak(r)
						off := r.IntN(16)
						want := make([]byte, n)
						ref.EncryptWithTweak(want, src, tweak)

						got := make([]byte, n+off)[off:]
						if inPlace {
							copy(got, src)
							asm.EncryptWithTweak(got, got, tweak)
						} else {
							asm.EncryptWithTweak(got, src, tweak)
						}
						if !bytes.Equal(got, want) {
							t.Fatalf("encrypt differs from generic: %s", firstDiff(got, want, 16))
						}
						if !inPlace {
							clear(got)
							asm.DecryptWithTweak(got, want, tweak)
						} else {
							asm.DecryptWithTweak(got, got, tweak)
						}
						if !bytes.Equal(got, src) {
							t.Fatalf("decrypt does not invert: %s", firstDiff(got, src, 16))
						}
						// Decryption of other data, against generic.
						ref.DecryptWithTweak(want, src, tweak)
						asm.DecryptWithTweak(got, src, tweak)
						if !bytes.Equal(got, want) {
							t.Fatalf("decrypt differs from generic: %s", firstDiff(got, want, 16))
						}
					})
				}
			}
		}
	})
}

// TestOtherAsmSectorsAndParts: EncryptSectors/DecryptSectors and the
// multi-part Unit agree with generic.
func TestOtherAsmSectorsAndParts(t *testing.T) {
	forEachOtherAsm(t, func(t *testing.T, fc otherCipherTest, name string) {
		r := newRand(t)
		asm, ref := otherPair(t, fc, name, randKey(r, fc.keyLens[len(fc.keyLens)-1]))
		for _, ss := range []int{512, 4096, 528} {
			for _, count := range []int{1, 3, 16, 17, 40} {
				src := randBytes(r, ss*count)
				first := r.Uint64()
				got, want := make([]byte, len(src)), make([]byte, len(src))
				asm.EncryptSectors(got, src, ss, first)
				ref.EncryptSectors(want, src, ss, first)
				if !bytes.Equal(got, want) {
					t.Fatalf("EncryptSectors(%d x %d): %s", count, ss, firstDiff(got, want, ss))
				}
				asm.DecryptSectors(got, got, ss, first)
				if !bytes.Equal(got, src) {
					t.Fatalf("DecryptSectors(%d x %d) does not invert: %s", count, ss, firstDiff(got, src, ss))
				}
			}
		}
		// Sectors with a tweak unit smaller than the sector (step > 1).
		asmU, refU := otherPair(t, fc, name, randKey(r, fc.keyLens[0]), WithTweakUnit(512))
		src := randBytes(r, 4096*19)
		got, want := make([]byte, len(src)), make([]byte, len(src))
		first := r.Uint64()
		asmU.DecryptSectors(got, src, 4096, first)
		refU.DecryptSectors(want, src, 4096, first)
		if !bytes.Equal(got, want) {
			t.Fatalf("DecryptSectors with tweak unit 512: %s", firstDiff(got, want, 4096))
		}
		// Parts: 512 + 1040 + 16 + 2007 (odd groups of 16 blocks included).
		src = randBytes(r, 512+1040+16+2007)
		tweak := randTweak(r)
		want = make([]byte, len(src))
		ref.EncryptWithTweak(want, src, tweak)
		got = make([]byte, len(src))
		u := asm.NewEncrypter(tweak)
		u.Update(got[:512], src[:512])
		u.Update(got[512:1552], src[512:1552])
		u.Update(got[1552:1568], src[1552:1568])
		u.Final(got[1568:], src[1568:])
		if !bytes.Equal(got, want) {
			t.Fatalf("Unit parts: %s", firstDiff(got, want, 16))
		}
	})
}

// FuzzOtherAsm: for arbitrary keys (each key length a family takes),
// tweaks and data, every assembly variant of every cipher family that
// runs here encrypts as generic does and decrypts back, in place. Data is
// cut at 8 KiB.
func FuzzOtherAsm(f *testing.F) {
	f.Add(make([]byte, 64), make([]byte, 16), make([]byte, 512), uint8(2))
	f.Add(make([]byte, 32), make([]byte, 16), make([]byte, 1040+7), uint8(0))
	f.Add(make([]byte, 48), make([]byte, 16), make([]byte, 4096), uint8(1))
	f.Fuzz(func(t *testing.T, keyMat, tweakMat, data []byte, ks uint8) {
		if len(tweakMat) < 16 || len(data) < 16 {
			return
		}
		data = data[:min(len(data), 8192)]
		var tweak [16]byte
		copy(tweak[:], tweakMat)
		for _, fc := range otherCipherTests {
			keyLen := fc.keyLens[int(ks)%len(fc.keyLens)]
			if len(keyMat) < keyLen {
				continue
			}
			key := keyMat[:keyLen]
			for _, im := range familyNamed(fc.cipher).list() {
				if !im.available {
					continue
				}
				asm, ref := otherPair(t, fc, im.name, key, AllowEqualKeyHalves())
				want := make([]byte, len(data))
				ref.EncryptWithTweak(want, data, tweak)
				got := make([]byte, len(data))
				asm.EncryptWithTweak(got, data, tweak)
				if !bytes.Equal(got, want) {
					t.Fatalf("%s: encrypt differs from generic (key %d bytes, %d bytes): %s", im.name, keyLen, len(data), firstDiff(got, want, 16))
				}
				asm.DecryptWithTweak(got, got, tweak)
				if !bytes.Equal(got, data) {
					t.Fatalf("%s: decrypt does not invert: %s", im.name, firstDiff(got, data, 16))
				}
			}
		}
	})
}

// TestOtherAsmAllocs: the assembly path allocates nothing per call, one
// data unit or a run of sectors.
func TestOtherAsmAllocs(t *testing.T) {
	forEachOtherAsm(t, func(t *testing.T, fc otherCipherTest, name string) {
		c, _ := otherPair(t, fc, name, randKey(newRand(t), fc.keyLens[len(fc.keyLens)-1]), WithoutParallelism())
		buf := make([]byte, 64<<10)
		for _, tc := range []struct {
			what string
			f    func()
		}{
			{"Encrypt 4 KiB", func() { c.Encrypt(buf[:4096], buf[:4096], 3) }},
			{"Decrypt 1040 B", func() { c.Decrypt(buf[:1040], buf[:1040], 3) }},
			{"DecryptSectors 64 KiB / 512", func() { c.DecryptSectors(buf, buf, 512, 9) }},
			{"EncryptSectors 64 KiB / 4096", func() { c.EncryptSectors(buf, buf, 4096, 9) }},
		} {
			if n := testing.AllocsPerRun(20, tc.f); n != 0 {
				t.Errorf("%s: %v allocations per call, want 0", tc.what, n)
			}
		}
	})
}
