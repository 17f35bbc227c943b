package camellia_test

import (
	"bytes"
	"testing"

	"github.com/fastxts/xts/camellia"
)

// FuzzRoundTrip checks for any key of a valid size and any block that
// Decrypt(Encrypt(x)) == x, and that in-place calls give what calls into
// a separate buffer give.
func FuzzRoundTrip(f *testing.F) {
	for _, v := range knownAnswers {
		f.Add(unhex(f, v.key), unhex(f, v.plain))
	}
	f.Add(make([]byte, 24), make([]byte, 16))
	f.Fuzz(func(t *testing.T, key, block []byte) {
		switch len(key) {
		case 16, 24, 32:
		default:
			if _, err := camellia.NewCipher(key); err == nil {
				t.Fatalf("NewCipher accepted a %d-byte key", len(key))
			}
			return
		}
		if len(block) < camellia.BlockSize {
			return
		}
		block = block[:camellia.BlockSize]
		b, err := camellia.NewCipher(key)
		if err != nil {
			t.Fatal(err)
		}
		ct := make([]byte, camellia.BlockSize)
		b.Encrypt(ct, block)
		pt := make([]byte, camellia.BlockSize)
		b.Decrypt(pt, ct)
		if !bytes.Equal(pt, block) {
			t.Fatalf("Decrypt(Encrypt(%x)) = %x", block, pt)
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
