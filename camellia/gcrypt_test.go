//go:build gcrypt && cgo

package camellia_test

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/fastxts/xts"
	"github.com/fastxts/xts/camellia"
	"github.com/fastxts/xts/camellia/internal/gcry"
)

// TestGcryptECB compares single blocks with libgcrypt's Camellia for every
// key size: random keys, random blocks, both directions (decryption of
// random input, not of our own ciphertext).
//
// Needs cgo and libgcrypt20-dev: go test -tags gcrypt ./camellia
func TestGcryptECB(t *testing.T) {
	t.Logf("libgcrypt %s", gcry.Version())
	rng := rand.New(rand.NewPCG(7, 8))
	for _, size := range []int{16, 24, 32} {
		for range 300 {
			key := make([]byte, size)
			fill(rng, key)
			in := make([]byte, 16*(1+rng.IntN(8)))
			fill(rng, in)
			b, err := camellia.NewCipher(key)
			if err != nil {
				t.Fatal(err)
			}
			for _, enc := range []bool{true, false} {
				want, err := gcry.ECB(enc, key, in)
				if err != nil {
					t.Fatal(err)
				}
				got := make([]byte, len(in))
				for i := 0; i < len(in); i += 16 {
					if enc {
						b.Encrypt(got[i:], in[i:])
					} else {
						b.Decrypt(got[i:], in[i:])
					}
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("key %x enc=%v in %x: got %x, libgcrypt %x", key, enc, in, got, want)
				}
			}
		}
	}
}

// TestGcryptXTS compares Camellia-XTS through the root package
// (xts.NewCipher(camellia.NewCipher, key), the sector number as tweak) with
// libgcrypt's GCRY_CIPHER_MODE_XTS and the 16-byte little-endian sector
// number as IV (dm-crypt's plain64), for every key size and sector sizes
// 512, 4096 and a few lengths that are not multiples of 16 (ciphertext
// stealing).
func TestGcryptXTS(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, size := range []int{32, 48, 64} {
		for _, n := range []int{16, 17, 31, 512, 528, 1000, 4096} {
			for range 4 {
				key := make([]byte, size)
				fill(rng, key)
				c, err := xts.NewCipher(camellia.NewCipher, key)
				if err != nil {
					t.Fatal(err)
				}
				sector := rng.Uint64()
				if rng.IntN(2) == 0 {
					sector >>= 40
				}
				var iv [16]byte
				binary.LittleEndian.PutUint64(iv[:8], sector)
				in := make([]byte, n)
				fill(rng, in)
				for _, enc := range []bool{true, false} {
					want, err := gcry.XTS(enc, key, iv, in)
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
						t.Fatalf("%d-byte key, %d bytes, sector %d, enc=%v: differs from libgcrypt", size, n, sector, enc)
					}
				}
			}
		}
	}
}
