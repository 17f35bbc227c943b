//go:build gcrypt && cgo

package luks

// This test checks images of Serpent, Twofish and Camellia in XTS
// against libgcrypt through internal/gcry (apt-get install
// libgcrypt20-dev; go test -tags gcrypt): the data area and the keyslot
// area are decrypted by libgcrypt's XTS, an implementation written apart
// from this module, with the tweaks computed here (dm-crypt's plain64 and
// plain: the sector's 512-byte unit number, little-endian).

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/fastxts/xts/internal/gcry"
	ipbkdf2 "github.com/fastxts/xts/internal/pbkdf2"
)

// gcryDecrypt decrypts whole sectors of ss bytes of spec's cipher in XTS
// with libgcrypt, the first sector at IV iv0 in 512-byte units.
func gcryDecrypt(t *testing.T, spec string, key, ct []byte, ss int, iv0 uint64) []byte {
	t.Helper()
	a := map[string]gcry.Algo{"serpent": gcry.Serpent, "twofish": gcry.Twofish, "camellia": gcry.Camellia}[strings.SplitN(spec, "-", 2)[0]]
	if a == 0 || !strings.Contains(spec, "-xts-") {
		t.Fatalf("gcryDecrypt: %s", spec)
	}
	var out []byte
	for s := 0; s*ss < len(ct); s++ {
		iv := iv0 + uint64(s*ss/512)
		if strings.HasSuffix(spec, "-plain") {
			iv &= 1<<32 - 1
		}
		var tweak [16]byte
		binary.LittleEndian.PutUint64(tweak[:], iv)
		p, err := gcry.XTS(a, false, key, tweak, ct[s*ss:(s+1)*ss])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p...)
	}
	return out
}

// TestGcryptImages: for each XTS case of cipherCases with key sizes
// libgcrypt has, the data written through a Volume is what libgcrypt
// decrypts from the data area, and keyslot 0's area, decrypted by
// libgcrypt under the key internal/pbkdf2 derives and merged by
// refAFMerge, holds the volume key.
func TestGcryptImages(t *testing.T) {
	t.Logf("libgcrypt %s", gcry.Version())
	for _, c := range cipherCases() {
		if strings.HasPrefix(c.spec, "aes-") || !strings.Contains(c.spec, "-xts-") || c.keyBits == 384 {
			continue
		}
		t.Run(c.String(), func(t *testing.T) {
			const dataSize = 32 << 10
			pass := []byte("gcrypt passphrase")
			f, h, key := createCase(t, t.TempDir(), c, pass, dataSize)
			v, err := Open(f, pass, nil)
			if err != nil {
				t.Fatal(err)
			}
			model := make([]byte, dataSize)
			writeSome(t, v, model)
			v.Close()
			seg := h.Segments[0]
			if got := gcryDecrypt(t, c.spec, key, readAt(t, f, seg.Offset, dataSize), seg.SectorSize, seg.IVTweak); !bytes.Equal(got, model) {
				t.Fatal("libgcrypt decrypts other data from the data area")
			}
			ks := &h.Keyslots[0]
			areaKey := ipbkdf2.Key(refHash(t, ks.KDF.Hash), pass, ks.KDF.Salt, ks.KDF.Iterations, ks.Area.KeySize)
			n := int(luks1Sectors(ks.KeySize, ks.AF.Stripes)) * 512
			split := gcryDecrypt(t, ks.Area.Encryption, areaKey, readAt(t, f, ks.Area.Offset, n), 512, 0)
			if got := refAFMerge(refHash(t, ks.AF.Hash), split, ks.KeySize, ks.AF.Stripes); !bytes.Equal(got, key) {
				t.Fatal("keyslot 0, decrypted by libgcrypt, does not hold the volume key")
			}
		})
	}
}
