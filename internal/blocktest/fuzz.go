package blocktest

import (
	"bytes"
	"testing"
)

// Fuzz runs the round-trip fuzz target of c with the seeds of seeds (pairs
// of a key and a block) and a zero key of each valid size. For a fuzzed key
// and block it checks, for the key itself where its length is valid and
// for each prefix of a valid key size: Decrypt(Encrypt(x)) == x,
// Encrypt(Decrypt(x)) == x, and that in-place calls give what calls into a
// separate buffer give. A key of an invalid length must be refused.
func Fuzz(f *testing.F, c Cipher, seeds ...[2][]byte) {
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	for _, n := range c.KeySizes {
		f.Add(make([]byte, n), make([]byte, BlockSize))
	}
	f.Add(bytes.Repeat([]byte{0xd9}, 32), bytes.Repeat([]byte{0xd9}, 16))
	f.Fuzz(func(t *testing.T, key, block []byte) {
		if !c.validKeySize(len(key)) {
			if b, err := c.New(key); err == nil || b != nil {
				t.Fatalf("NewCipher accepted a %d-byte key", len(key))
			}
		}
		if len(block) < BlockSize {
			return
		}
		block = block[:BlockSize]
		for _, n := range c.KeySizes {
			if n <= len(key) {
				roundTrip(t, c, key[:n], block)
			}
		}
	})
}

func roundTrip(t *testing.T, c Cipher, key, block []byte) {
	b, err := c.New(key)
	if err != nil {
		t.Fatal(err)
	}
	ct := make([]byte, BlockSize)
	b.Encrypt(ct, block)
	pt := make([]byte, BlockSize)
	b.Decrypt(pt, ct)
	if !bytes.Equal(pt, block) {
		t.Fatalf("key %x: Decrypt(Encrypt(%x)) = %x", key, block, pt)
	}
	buf := bytes.Clone(block)
	b.Encrypt(buf, buf)
	if !bytes.Equal(buf, ct) {
		t.Fatalf("key %x: in-place Encrypt = %x, out of place %x", key, buf, ct)
	}
	b.Decrypt(buf, buf)
	if !bytes.Equal(buf, block) {
		t.Fatalf("key %x: in-place Decrypt = %x, want %x", key, buf, block)
	}
	b.Decrypt(pt, block)
	b.Encrypt(pt, pt)
	if !bytes.Equal(pt, block) {
		t.Fatalf("key %x: Encrypt(Decrypt(%x)) = %x", key, block, pt)
	}
}
