package kuznyechik_test

import (
	"bytes"
	"testing"

	"github.com/fastxts/xts/kuznyechik"
)

// FuzzRoundTrip checks for any 32-byte key and any block that
// Decrypt(Encrypt(x)) == x and Encrypt(Decrypt(x)) == x, and that in-place
// calls give what calls into a separate buffer give.
func FuzzRoundTrip(f *testing.F) {
	f.Add(unhex(f, rfcKey), unhex(f, rfcPlain))
	f.Add(make([]byte, 32), make([]byte, 16))
	f.Fuzz(func(t *testing.T, key, block []byte) {
		if len(key) != 32 {
			if _, err := kuznyechik.NewCipher(key); err == nil {
				t.Fatalf("NewCipher accepted a %d-byte key", len(key))
			}
			return
		}
		if len(block) < kuznyechik.BlockSize {
			return
		}
		block = block[:kuznyechik.BlockSize]
		b, err := kuznyechik.NewCipher(key)
		if err != nil {
			t.Fatal(err)
		}
		ct := make([]byte, kuznyechik.BlockSize)
		b.Encrypt(ct, block)
		pt := make([]byte, kuznyechik.BlockSize)
		b.Decrypt(pt, ct)
		if !bytes.Equal(pt, block) {
			t.Fatalf("Decrypt(Encrypt(%x)) = %x", block, pt)
		}
		b.Decrypt(pt, block)
		b.Encrypt(pt, pt)
		if !bytes.Equal(pt, block) {
			t.Fatalf("Encrypt(Decrypt(%x)) = %x", block, pt)
		}
		buf := bytes.Clone(block)
		b.Encrypt(buf, buf)
		if !bytes.Equal(buf, ct) {
			t.Fatalf("in-place Encrypt = %x, out of place %x", buf, ct)
		}
		b.Decrypt(buf, buf)
		if !bytes.Equal(buf, block) {
			t.Fatalf("in-place Decrypt = %x, want %x", buf, block)
		}
	})
}
