//go:build gcrypt && cgo

package sector

// These tests check the Cipher of serpent, twofish and camellia specs
// against libgcrypt through internal/gcry (apt-get install
// libgcrypt20-dev; go test -tags gcrypt): an implementation of the ciphers
// and of XTS written independently of this module, with the IVs computed
// here from dm-crypt's rules.

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fastxts/xts/internal/gcry"
)

// gcryRef encrypts src sector by sector with libgcrypt: XTS with the
// 16-byte little-endian IV as its tweak, or CBC built from libgcrypt's
// ECB blocks with the plain64 or essiv:sha256 IV.
func gcryRef(t *testing.T, a gcry.Algo, spec string, key []byte, n Numbering, k uint64, src []byte) []byte {
	t.Helper()
	ss := n.SectorSize
	out := make([]byte, 0, len(src))
	salt := sha256.Sum256(key)
	for j := 0; j*ss < len(src); j++ {
		iv := n.IV(k + uint64(j))
		var ivb [16]byte
		binary.LittleEndian.PutUint64(ivb[:], iv)
		s := src[j*ss : (j+1)*ss]
		if strings.Contains(spec, "-xts-") {
			ct, err := gcry.XTS(a, true, key, ivb, s)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, ct...)
			continue
		}
		if strings.HasSuffix(spec, "-essiv:sha256") {
			e, err := gcry.ECB(a, true, salt[:], ivb[:])
			if err != nil {
				t.Fatal(err)
			}
			copy(ivb[:], e)
		}
		prev := ivb[:]
		for off := 0; off < ss; off += 16 {
			var x [16]byte
			for i := range x {
				x[i] = s[off+i] ^ prev[i]
			}
			ct, err := gcry.ECB(a, true, key, x[:])
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, ct...)
			prev = ct
		}
	}
	return out
}

// TestGcryptSpecs: every spec of Serpent, Twofish and Camellia, every key
// size libgcrypt has, 512- and 4096-byte sectors, IVs past 2^32 (plain
// wraps, plain64 does not), encrypted here and by libgcrypt, and
// decrypted back here.
func TestGcryptSpecs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, a := range []gcry.Algo{gcry.Serpent, gcry.Twofish, gcry.Camellia} {
		name := strings.ToLower(a.String())
		for _, mode := range []string{"xts-plain64", "xts-plain", "cbc-essiv:sha256", "cbc-plain64", "cbc-plain"} {
			spec := name + "-" + mode
			for _, half := range a.KeySizes() {
				keyLen := half
				if strings.HasPrefix(mode, "xts") {
					keyLen = 2 * half
				}
				key := make([]byte, keyLen)
				for i := range key {
					key[i] = byte(rng.Uint32())
				}
				for _, ss := range []int{512, 4096} {
					n := Numbering{SectorSize: ss, Offset: (1<<32 - 2) * uint64(ss/512)}
					c, err := New(spec, key, n)
					if err != nil {
						t.Fatalf("%s: %v", spec, err)
					}
					src := make([]byte, 4*ss)
					for i := range src {
						src[i] = byte(rng.Uint32())
					}
					got := make([]byte, len(src))
					c.Encrypt(got, src, 1)
					n.Plain32 = c.Numbering().Plain32
					want := gcryRef(t, a, spec, key, n, 1, src)
					label := fmt.Sprintf("%s/%d-bit/%d", spec, 8*keyLen, ss)
					if !bytes.Equal(got, want) {
						t.Errorf("%s: differs from libgcrypt %s", label, gcry.Version())
					}
					c.Decrypt(got, got, 1)
					if !bytes.Equal(got, src) {
						t.Errorf("%s: Decrypt does not give the plaintext back", label)
					}
					c.Wipe()
				}
			}
		}
	}
}
