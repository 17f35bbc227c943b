// Copyright 2026 The fastxts Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package serpent

import (
	"math/rand/v2"
	"testing"
)

// TestShortKeyPadding checks the specification's padding of short keys: a
// 16-byte key k is the 32-byte key k || 01 || 00...
func TestShortKeyPadding(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{16, 24} {
		key := make([]byte, n)
		for i := range key {
			key[i] = byte(rng.Uint32())
		}
		long := make([]byte, 32)
		copy(long, key)
		long[n] = 1
		a, _ := NewCipher(key)
		b, _ := NewCipher(long)
		if a.(*serpentCipher).k != b.(*serpentCipher).k {
			t.Errorf("%d-byte key: round keys differ from the padded 32-byte key's", n)
		}
	}
}
