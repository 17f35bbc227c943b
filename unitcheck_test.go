package xts

import "testing"

// The data-unit calls check in a fixed order whichever path they take (the
// inlined fast check or unitSlow): an unusable Cipher panics before the
// length is looked at, even for an empty unit; a usable one treats an
// empty unit as a no-op; and a valid unit with every implementation runs.
func TestUnitCheckOrder(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string) {
		key := randKey(newRand(t), 64)
		wiped := newImpl(t, name, key)
		wiped.Wipe()
		var zero Cipher
		live := newImpl(t, name, key)
		calls := map[string]func(c *Cipher, dst, src []byte){
			"Encrypt":          func(c *Cipher, d, s []byte) { c.Encrypt(d, s, 3) },
			"Decrypt":          func(c *Cipher, d, s []byte) { c.Decrypt(d, s, 3) },
			"EncryptWithTweak": func(c *Cipher, d, s []byte) { c.EncryptWithTweak(d, s, [16]byte{3}) },
			"DecryptWithTweak": func(c *Cipher, d, s []byte) { c.DecryptWithTweak(d, s, [16]byte{3}) },
		}
		for op, call := range calls {
			mustPanic(t, "wiped", func() { call(wiped, nil, nil) })
			mustPanic(t, "wiped", func() { call(wiped, make([]byte, 32), make([]byte, 32)) })
			mustPanic(t, "NewCipher", func() { call(&zero, nil, nil) })
			call(live, nil, nil) // empty: nothing happens
			buf := []byte("sixteen bytes!!!and then some")
			want := append([]byte(nil), buf...)
			call(live, buf, buf)
			if string(buf) == string(want) {
				t.Errorf("%s: a valid unit was left unchanged", op)
			}
		}
	})
}
