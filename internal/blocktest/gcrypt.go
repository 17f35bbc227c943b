//go:build gcrypt && cgo

package blocktest

import (
	"bytes"
	crand "crypto/rand"
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/fastxts/xts"
	"github.com/fastxts/xts/internal/gcry"
)

// seeded returns a generator with a fresh seed, logged so that a failure
// can be replayed.
func seeded(t *testing.T) *rand.Rand {
	var seed [32]byte
	crand.Read(seed[:])
	t.Logf("libgcrypt %s; seed %x", gcry.Version(), seed)
	return rand.New(rand.NewChaCha8(seed))
}

// gcryKeySizes are the key sizes both c and libgcrypt's a have.
func gcryKeySizes(t *testing.T, c Cipher, a gcry.Algo) []int {
	var sizes []int
	for _, n := range a.KeySizes() {
		if c.validKeySize(n) {
			sizes = append(sizes, n)
		}
	}
	if len(sizes) == 0 {
		t.Fatalf("libgcrypt's %v has no key size of %s", a, c.Name)
	}
	return sizes
}

// GcryptECB compares c with libgcrypt's a in ECB mode for every key size
// both have: random keys and 1 to 8 random blocks, in both directions
// (decryption of random input, not of our own ciphertext), and checks
// that each side decrypts its own ciphertext.
func GcryptECB(t *testing.T, c Cipher, a gcry.Algo) {
	rng := seeded(t)
	for _, size := range gcryKeySizes(t, c, a) {
		for range 300 {
			key := make([]byte, size)
			fill(rng, key)
			in := make([]byte, BlockSize*(1+rng.IntN(8)))
			fill(rng, in)
			b, err := c.New(key)
			if err != nil {
				t.Fatal(err)
			}
			for _, enc := range []bool{true, false} {
				want, err := gcry.ECB(a, enc, key, in)
				if err != nil {
					t.Fatal(err)
				}
				got := make([]byte, len(in))
				back := make([]byte, len(in))
				for i := 0; i < len(in); i += BlockSize {
					if enc {
						b.Encrypt(got[i:], in[i:])
						b.Decrypt(back[i:], got[i:])
					} else {
						b.Decrypt(got[i:], in[i:])
						b.Encrypt(back[i:], got[i:])
					}
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("key %x enc=%v in %x: got %x, libgcrypt %x", key, enc, in, got, want)
				}
				if !bytes.Equal(back, in) {
					t.Fatalf("key %x enc=%v in %x: the inverse gives %x", key, enc, in, back)
				}
				again, err := gcry.ECB(a, !enc, key, want)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(again, in) {
					t.Fatalf("libgcrypt does not invert its own output")
				}
			}
		}
	}
}

// GcryptXTS compares c's XTS mode through the root package
// (xts.NewCipher(c.New, key), the sector number as tweak) with libgcrypt's
// GCRY_CIPHER_MODE_XTS and the 16-byte little-endian sector number as IV
// (dm-crypt's plain64), in both directions, for every key size both have
// and sector sizes 512, 520, 4096 and a few lengths that are not multiples
// of 16 (ciphertext stealing).
func GcryptXTS(t *testing.T, c Cipher, a gcry.Algo) {
	rng := seeded(t)
	for _, size := range gcryKeySizes(t, c, a) {
		for _, n := range []int{16, 17, 31, 512, 520, 528, 1000, 4096} {
			for range 4 {
				key := make([]byte, 2*size)
				fill(rng, key)
				x, err := xts.NewCipher(c.New, key)
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
					want, err := gcry.XTS(a, enc, key, iv, in)
					if err != nil {
						t.Fatal(err)
					}
					got := make([]byte, n)
					back := make([]byte, n)
					if enc {
						x.Encrypt(got, in, sector)
						x.Decrypt(back, got, sector)
					} else {
						x.Decrypt(got, in, sector)
						x.Encrypt(back, got, sector)
					}
					if !bytes.Equal(got, want) {
						t.Fatalf("%d-byte key, %d bytes, sector %d, enc=%v: differs from libgcrypt", 2*size, n, sector, enc)
					}
					if !bytes.Equal(back, in) {
						t.Fatalf("%d-byte key, %d bytes, sector %d, enc=%v: the inverse does not restore the input", 2*size, n, sector, enc)
					}
				}
			}
		}
	}
}

var gcryptUpdate = flag.Bool("gcrypt.update", false, "rewrite testdata/gcrypt_ecb.txt from libgcrypt")

// GcryptWriteVectors writes testdata/gcrypt_ecb.txt, libgcrypt's ECB
// blocks of a for random keys of every size it has and random plaintexts,
// which the package checks without cgo, when -gcrypt.update is given; note
// is a comment line on the byte order. It skips the test otherwise.
func GcryptWriteVectors(t *testing.T, a gcry.Algo, note string) {
	if !*gcryptUpdate {
		t.Skip("-gcrypt.update not given")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %v ECB blocks computed by libgcrypt %s (GCRY_CIPHER_MODE_ECB, keys of\n", a, gcry.Version())
	fmt.Fprintf(&b, "# %v bytes) for random keys and plaintexts, %s.\n", a.KeySizes(), note)
	fmt.Fprintf(&b, "# Written by go test -tags gcrypt -run TestGcryptWriteVectors -gcrypt.update.\n")
	fmt.Fprintf(&b, "#\n# Columns: key plaintext ciphertext.\n")
	for _, n := range a.KeySizes() {
		for range 8 {
			key, pt := make([]byte, n), make([]byte, BlockSize)
			crand.Read(key)
			crand.Read(pt)
			ct, err := gcry.ECB(a, true, key, pt)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%x %x %x\n", key, pt, ct)
		}
	}
	if err := os.WriteFile("testdata/gcrypt_ecb.txt", []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
