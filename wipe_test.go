package xts

import (
	"bytes"
	"crypto/aes"
	"testing"
)

// TestWipe: after Wipe every call on the Cipher, and on a Unit made from
// it, panics with one message (never runs on a zeroed schedule), Wipe is
// idempotent, and an assembly engine's round keys are all zero.
func TestWipe(t *testing.T) {
	key := make([]byte, 64)
	for i := range key {
		key[i] = byte(i + 1)
	}
	forEachImpl(t, func(t *testing.T, name string) {
		c := newImpl(t, name, key)
		buf := make([]byte, 4096)
		u := c.NewEncrypter([16]byte{1})
		u.Update(buf[:32], buf[:32])
		zeroed := scheduleZeroed(c)
		c.Wipe()
		c.Wipe()
		if zeroed != nil && !zeroed() {
			t.Error("round keys left in the engine's schedule after Wipe")
		}
		const msg = "xts: use of a wiped Cipher"
		for opName, op := range map[string]func(){
			"Encrypt":          func() { c.Encrypt(buf[:512], buf[:512], 1) },
			"Decrypt":          func() { c.Decrypt(buf[:512], buf[:512], 1) },
			"Encrypt empty":    func() { c.Encrypt(nil, nil, 1) },
			"EncryptWithTweak": func() { c.EncryptWithTweak(buf[:20], buf[:20], [16]byte{}) },
			"DecryptWithTweak": func() { c.DecryptWithTweak(buf[:20], buf[:20], [16]byte{}) },
			"EncryptSectors":   func() { c.EncryptSectors(buf, buf, 512, 0) },
			"DecryptSectors":   func() { c.DecryptSectors(buf, buf, 512, 0) },
			"NewDecrypter":     func() { c.NewDecrypter([16]byte{}) },
			"Unit.Update":      func() { u.Update(buf[:16], buf[:16]) },
			"Unit.Final":       func() { u.Final(buf[:16], buf[:16]) },
			"Unit.Reset":       func() { u.Reset([16]byte{}) },
		} {
			t.Run(opName, func(t *testing.T) { mustPanic(t, msg, op) })
		}
		if got := c.Implementation(); got != name {
			t.Errorf("Implementation() after Wipe = %q, want %q", got, name)
		}
		// A new Cipher from the same key still works: Wipe touched only
		// this Cipher's copy.
		c2 := newImpl(t, name, key)
		ref, err := NewCipher(aes.NewCipher, key, WithImplementation(genericName))
		if err != nil {
			t.Fatal(err)
		}
		a, b := make([]byte, 512), make([]byte, 512)
		c2.Encrypt(a, buf[:512], 9)
		ref.Encrypt(b, buf[:512], 9)
		if !bytes.Equal(a, b) {
			t.Error("a Cipher made after another's Wipe encrypts differently from generic")
		}
	})
}
