//go:build openssl && cgo

package osslxts

import (
	"bytes"
	"crypto/aes"
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"testing"

	"golang.org/x/crypto/xts"
)

// TestOpenSSLBridge checks the bridge itself before anything relies on it:
// an IEEE 1619 vector, agreement with x/crypto/xts on whole blocks, the
// round trip on stolen lengths, and the refusals.
func TestOpenSSLBridge(t *testing.T) {
	// IEEE 1619-2007 vector 4 (AES-128-XTS, data unit sequence number 0),
	// first 32 bytes of its 512-byte data unit.
	key := unhex(t, "27182818284590452353602874713526"+"31415926535897932384626433832795")
	pt := make([]byte, 512)
	for i := range pt {
		pt[i] = byte(i)
	}
	ct, err := XTS(true, key, make([]byte, 16), pt)
	if err != nil {
		t.Fatal(err)
	}
	if want := unhex(t, "27a7479befa1d476489f308cd4cfa6e2a96e4bbe3208ff25287dd3819616e89c"); !bytes.Equal(ct[:32], want) {
		t.Fatalf("vector 4: got %x, want %x", ct[:32], want)
	}

	rng := rand.New(rand.NewPCG(1, 2))
	for _, keyLen := range []int{32, 64} {
		key := make([]byte, keyLen)
		fill(rng, key)
		ref, err := xts.NewCipher(aes.NewCipher, key)
		if err != nil {
			t.Fatal(err)
		}
		for n := 16; n <= 1024; n += 16 {
			sector := rng.Uint64()
			tweak := make([]byte, 16)
			binary.LittleEndian.PutUint64(tweak, sector)
			pt := make([]byte, n)
			fill(rng, pt)
			want := make([]byte, n)
			ref.Encrypt(want, pt, sector)
			got := MustXTS(true, key, tweak, pt)
			if !bytes.Equal(got, want) {
				t.Fatalf("key %d, len %d: OpenSSL and x/crypto/xts disagree", keyLen, n)
			}
			if back := MustXTS(false, key, tweak, got); !bytes.Equal(back, pt) {
				t.Fatalf("key %d, len %d: OpenSSL decrypt does not invert", keyLen, n)
			}
		}
		for n := 17; n < 100; n++ {
			tweak := make([]byte, 16)
			fill(rng, tweak)
			pt := make([]byte, n)
			fill(rng, pt)
			ct := MustXTS(true, key, tweak, pt)
			if bytes.Equal(ct[n-16:], pt[n-16:]) {
				t.Fatalf("len %d: tail left in the clear", n)
			}
			if back := MustXTS(false, key, tweak, ct); !bytes.Equal(back, pt) {
				t.Fatalf("len %d: stolen round trip failed", n)
			}
		}
	}

	if _, err := XTS(true, make([]byte, 64), make([]byte, 16), make([]byte, 32)); err == nil {
		t.Error("equal key halves accepted; the cross-check relies on OpenSSL refusing them")
	}
	if _, err := XTS(true, key[:24], make([]byte, 16), make([]byte, 32)); err == nil {
		t.Error("24-byte key accepted")
	}
	if _, err := XTS(true, key, make([]byte, 16), make([]byte, 15)); err == nil {
		t.Error("15-byte input accepted")
	}
}

func fill(rng *rand.Rand, b []byte) {
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
