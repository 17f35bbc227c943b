// Copyright 2026 The fastxts Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package twofish

import (
	"bytes"
	"encoding/hex"
	"math/rand/v2"
	"slices"
	"testing"

	//lint:ignore SA1019 x/crypto/twofish is deprecated for new uses; here it is only an oracle for the tests.
	xtwofish "golang.org/x/crypto/twofish"
)

// TestECBTable runs the chain of ECB_TBL.TXT for each key size and checks
// its published last ciphertext (I=49). Each step encrypts the previous
// ciphertext under a key made of the previous plaintext followed by the
// first len(key)-16 bytes of the previous key, starting from zeros.
func TestECBTable(t *testing.T) {
	for _, tc := range []struct {
		keyLen int
		last   string
	}{
		{16, "5d9d4eeffa9151575524f115815a12e0"},
		{24, "e75449212beef9f4a390bd860a640941"},
		{32, "37fe26ff1cf66175f5ddf4c33b97a205"},
	} {
		key, pt := make([]byte, tc.keyLen), make([]byte, BlockSize)
		ct := make([]byte, BlockSize)
		for range 49 {
			c, err := NewCipher(key)
			if err != nil {
				t.Fatal(err)
			}
			c.Encrypt(ct, pt)
			back := make([]byte, BlockSize)
			c.Decrypt(back, ct)
			if !bytes.Equal(back, pt) {
				t.Fatalf("%d-byte key %x: decrypt does not invert encrypt", tc.keyLen, key)
			}
			key = append(slices.Clone(pt), key[:tc.keyLen-16]...)
			pt = slices.Clone(ct)
		}
		if got := hex.EncodeToString(ct); got != tc.last {
			t.Errorf("%d-byte key: I=49 ciphertext %s, want %s", tc.keyLen, got, tc.last)
		}
	}
}

// TestXCrypto compares with golang.org/x/crypto/twofish for random keys of
// every size and random blocks.
func TestXCrypto(t *testing.T) {
	rng := rand.NewChaCha8([32]byte{1})
	for _, n := range []int{16, 24, 32} {
		for range 300 {
			key, pt := make([]byte, n), make([]byte, BlockSize)
			rng.Read(key)
			rng.Read(pt)
			a, err := NewCipher(key)
			if err != nil {
				t.Fatal(err)
			}
			b, err := xtwofish.NewCipher(key)
			if err != nil {
				t.Fatal(err)
			}
			got, want := make([]byte, BlockSize), make([]byte, BlockSize)
			a.Encrypt(got, pt)
			b.Encrypt(want, pt)
			if !bytes.Equal(got, want) {
				t.Fatalf("key %x pt %x: encrypt %x, x/crypto %x", key, pt, got, want)
			}
			a.Decrypt(got, pt)
			b.Decrypt(want, pt)
			if !bytes.Equal(got, want) {
				t.Fatalf("key %x ct %x: decrypt %x, x/crypto %x", key, pt, got, want)
			}
		}
	}
}
