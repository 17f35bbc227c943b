package veracrypt

import (
	"bytes"
	"testing"
)

// TestLRWSteps checks that LRW's incremental tweaks (one XOR per block)
// match T = K2*i computed afresh for each block, across indices whose
// increments carry through many bits.
func TestLRWSteps(t *testing.T) {
	key := make([]byte, lrwKeySize("aes"))
	for i := range key {
		key[i] = byte(i*7 + 1)
	}
	c, err := newLRWChain("aes", key)
	if err != nil {
		t.Fatal(err)
	}
	src := bytes.Repeat([]byte("0123456789abcdef"), 64)
	for _, first := range []uint64{1, 31, 1<<20 - 5, 1<<40 - 3, 1<<63 - 10} {
		bulk := make([]byte, len(src))
		c.crypt(bulk, src, first, true)
		for b := 0; b < len(src); b += 16 {
			one := make([]byte, 16)
			c.crypt(one, src[b:b+16], first+uint64(b/16), true)
			if !bytes.Equal(one, bulk[b:b+16]) {
				t.Fatalf("first %d, block %d: incremental tweak differs", first, b/16)
			}
		}
		back := make([]byte, len(src))
		c.crypt(back, bulk, first, false)
		if !bytes.Equal(back, src) {
			t.Fatalf("first %d: decryption does not invert", first)
		}
	}
	// K2*1 = K2, K2*2 = K2*x.
	if c.k2.mul(1) != c.k2 || c.k2.mul(2) != c.k2.mulX() {
		t.Fatal("mul")
	}
}

// TestLRWReadOnly: a TrueCrypt 4 LRW volume opens read-only even on a
// writable device, and ChangeKey refuses it.
func TestLRWReadOnly(t *testing.T) {
	dir := imagesDir(t)
	dev := imageCopy(t, dir, "tc_2-ripemd160-lrw-aes")
	v, err := Open(dev, []byte("aaaaaaaaaaaa"), &Options{PRF: "ripemd160", NoVeraCrypt: true})
	if err != nil {
		t.Fatal(err)
	}
	if !v.ReadOnly() || v.Header().Mode != "lrw" {
		t.Fatalf("read-only %v mode %s", v.ReadOnly(), v.Header().Mode)
	}
	if _, err := v.WriteAt(make([]byte, 512), 0); err == nil {
		t.Fatal("write accepted")
	}
	v.Close()
	if err := ChangeKey(dev, []byte("aaaaaaaaaaaa"), &Options{PRF: "ripemd160", NoVeraCrypt: true}, []byte("x"), nil); err == nil {
		t.Fatal("ChangeKey of an LRW volume accepted")
	}
}
