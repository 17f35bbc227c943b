//go:build gcrypt && cgo && !purego

package xts

// TestTwofishAsmGcrypt compares every Twofish assembly variant with
// libgcrypt's Twofish-XTS through internal/gcry (apt-get install
// libgcrypt20-dev; go test -tags gcrypt). libgcrypt has Twofish-128 and
// -256 only, so the XTS keys are 32 and 64 bytes.

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/fastxts/xts/internal/gcry"
	"github.com/fastxts/xts/twofish"
)

func TestTwofishAsmGcrypt(t *testing.T) {
	fam := familyNamed("Twofish")
	if fam == nil {
		t.Fatal("no Twofish family registered")
	}
	r := newRand(t)
	lengths := []int{512, 1024, 4096, 4096 + 16, 512 + 11, 8192 + 37, 65536}
	for range 6 {
		lengths = append(lengths, 512+r.IntN(20000))
	}
	for _, im := range fam.list() {
		t.Run(im.name, func(t *testing.T) {
			if !im.available {
				t.Skipf("%s cannot run here: %s", im.name, im.note)
			}
			for _, half := range gcry.Twofish.KeySizes() {
				key := randKey(r, 2*half)
				c, err := NewCipher(twofish.NewCipher, key, WithImplementation(im.name))
				if err != nil {
					t.Fatal(err)
				}
				for _, n := range lengths {
					t.Run(fmt.Sprintf("key=%d/n=%d", 2*half, n), func(t *testing.T) {
						src := randBytes(r, n)
						var tweak [16]byte
						copy(tweak[:], randBytes(r, 16))
						want, err := gcry.XTS(gcry.Twofish, true, key, tweak, src)
						if err != nil {
							t.Fatal(err)
						}
						got := make([]byte, n)
						c.EncryptWithTweak(got, src, tweak)
						if !bytes.Equal(got, want) {
							t.Fatalf("encrypt differs from libgcrypt %s: %s", gcry.Version(), firstDiff(got, want, 16))
						}
						want, err = gcry.XTS(gcry.Twofish, false, key, tweak, src)
						if err != nil {
							t.Fatal(err)
						}
						c.DecryptWithTweak(got, src, tweak)
						if !bytes.Equal(got, want) {
							t.Fatalf("decrypt differs from libgcrypt %s: %s", gcry.Version(), firstDiff(got, want, 16))
						}
					})
				}
			}
		})
	}
}
