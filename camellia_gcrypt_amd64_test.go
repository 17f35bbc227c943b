//go:build gcrypt && cgo && !purego

package xts

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/fastxts/xts/camellia"
	"github.com/fastxts/xts/internal/gcry"
)

// TestCamelliaAsmGcrypt compares every Camellia assembly variant with
// libgcrypt's XTS (the sector number as little-endian IV), both
// directions, Camellia-128/192/256, on units that take one to four
// groups of 16 blocks in the routine's last iteration, several full
// iterations and ciphertext stealing.
//
// Needs cgo and libgcrypt20-dev: go test -tags gcrypt -run CamelliaAsmGcrypt .
func TestCamelliaAsmGcrypt(t *testing.T) {
	fam := familyNamed("Camellia")
	if fam == nil {
		t.Fatal("no Camellia family registered")
	}
	r := newRand(t)
	for _, im := range fam.list() {
		t.Run(im.name, func(t *testing.T) {
			if !im.available {
				t.Skipf("%s unavailable here: %s", im.name, im.note)
			}
			for _, keyLen := range []int{32, 48, 64} {
				key := randKey(r, keyLen)
				c, err := NewCipher(camellia.NewCipher, key, WithImplementation(im.name))
				if err != nil {
					t.Fatal(err)
				}
				for _, n := range []int{256, 512, 768, 1024, 1040, 1280, 3072 + 5, 4096, 65536 + 256 + 31} {
					sector := r.Uint64()
					var iv [16]byte
					binary.LittleEndian.PutUint64(iv[:8], sector)
					in := randBytes(r, n)
					for _, enc := range []bool{true, false} {
						want, err := gcry.XTS(gcry.Camellia, enc, key, iv, in)
						if err != nil {
							t.Fatal(err)
						}
						got := make([]byte, n)
						if enc {
							c.Encrypt(got, in, sector)
						} else {
							c.Decrypt(got, in, sector)
						}
						if !bytes.Equal(got, want) {
							t.Fatalf("%d-byte key, %d bytes, enc=%v: %s", keyLen, n, enc, firstDiff(got, want, 16))
						}
					}
				}
			}
		})
	}
}
