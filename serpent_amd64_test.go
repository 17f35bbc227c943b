//go:build !purego

package xts

import (
	"crypto/aes"
	"crypto/cipher"
	"errors"
	"strings"
	"testing"

	"github.com/fastxts/xts/internal/cpuid"
	"github.com/fastxts/xts/serpent"
)

// TestSerpentSelection: serpent.NewCipher gets the first available
// Serpent variant by default, a function wrapping it generic; the variants
// refuse AES and AES variants refuse Serpent.
func TestSerpentSelection(t *testing.T) {
	key := randKey(newRand(t), 64)
	wrapped := func(k []byte) (cipher.Block, error) { return serpent.NewCipher(k) }
	if !isSerpent(serpent.NewCipher) || isSerpent(wrapped) || isSerpent(aes.NewCipher) {
		t.Fatalf("isSerpent: serpent.NewCipher %v, a wrapper %v, aes.NewCipher %v; want true, false, false",
			isSerpent(serpent.NewCipher), isSerpent(wrapped), isSerpent(aes.NewCipher))
	}
	if c, err := NewCipher(wrapped, key); err != nil || c.Implementation() != genericName {
		t.Fatalf("wrapped serpent.NewCipher: %v, %v; want generic", c, err)
	}
	c, err := NewCipher(serpent.NewCipher, key)
	if err != nil {
		t.Fatal(err)
	}
	want := genericName
	if d := serpentDefault(); d >= 0 {
		want = theSerpentImpls()[d].name
	}
	if c.Implementation() != want {
		t.Errorf("default for Serpent = %q, want %q", c.Implementation(), want)
	}
	for _, im := range theSerpentImpls() {
		if _, err := NewCipher(aes.NewCipher, key, WithImplementation(im.name)); !errors.Is(err, ErrImplementation) {
			t.Errorf("AES with %s: error %v, want ErrImplementation", im.name, err)
		}
		if !im.available {
			if _, err := NewCipher(serpent.NewCipher, key, WithImplementation(im.name)); !errors.Is(err, ErrImplementation) {
				t.Errorf("Serpent with unavailable %s: error %v, want ErrImplementation", im.name, err)
			}
		}
	}
	for _, v := range x86Variants {
		if _, err := NewCipher(serpent.NewCipher, key, WithImplementation(v.name)); !errors.Is(err, ErrImplementation) {
			t.Errorf("Serpent with %s: error %v, want ErrImplementation", v.name, err)
		}
	}
}

// TestSerpentNeeds: on a CPU without AVX-512 the variant is unavailable
// and says what it lacks; with every feature it is available.
func TestSerpentNeeds(t *testing.T) {
	var none cpuid.X86
	if why := missing(needsSerpentAVX512(none)); !strings.Contains(why, "AVX-512") || !strings.Contains(why, "VPCLMULQDQ") {
		t.Errorf("no features: %q, want AVX-512 and VPCLMULQDQ named", why)
	}
	for _, r := range needsSerpentAVX512(none) {
		if r.ok {
			t.Errorf("%s reported present on an empty CPU", r.name)
		}
	}
}
