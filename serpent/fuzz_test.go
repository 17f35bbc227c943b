// Copyright 2026 The fastxts Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package serpent

import (
	"bytes"
	"testing"
)

// FuzzRoundTrip checks Decrypt(Encrypt(x)) == x for every key size, and
// that in place gives the same bytes as out of place.
func FuzzRoundTrip(f *testing.F) {
	f.Add(make([]byte, 32), make([]byte, 16))
	f.Add(bytes.Repeat([]byte{0xd9}, 32), bytes.Repeat([]byte{0xd9}, 16))
	f.Fuzz(func(t *testing.T, key, block []byte) {
		if len(key) < 32 || len(block) < BlockSize {
			return
		}
		pt := block[:BlockSize]
		for _, n := range []int{16, 24, 32} {
			c, err := NewCipher(key[:n])
			if err != nil {
				t.Fatal(err)
			}
			ct := make([]byte, BlockSize)
			c.Encrypt(ct, pt)
			inPlace := bytes.Clone(pt)
			c.Encrypt(inPlace, inPlace)
			if !bytes.Equal(ct, inPlace) {
				t.Fatalf("key %x: in-place encrypt %x, out of place %x", key[:n], inPlace, ct)
			}
			back := make([]byte, BlockSize)
			c.Decrypt(back, ct)
			if !bytes.Equal(back, pt) {
				t.Fatalf("key %x: Decrypt(Encrypt(%x)) = %x", key[:n], pt, back)
			}
			c.Decrypt(inPlace, inPlace)
			if !bytes.Equal(inPlace, pt) {
				t.Fatalf("key %x: in-place Decrypt(Encrypt(%x)) = %x", key[:n], pt, inPlace)
			}
		}
	})
}
