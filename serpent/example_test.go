// Copyright 2026 The fastxts Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package serpent_test

import (
	"bytes"
	"fmt"

	"github.com/fastxts/xts"
	"github.com/fastxts/xts/serpent"
)

// Serpent-XTS, as in LUKS serpent-xts-plain64 or a VeraCrypt volume: a
// 64-byte key is two 32-byte Serpent keys (data key, then tweak key).
func Example() {
	key := make([]byte, 64)
	for i := range key {
		key[i] = byte(i)
	}
	c, err := xts.NewCipher(serpent.NewCipher, key)
	if err != nil {
		panic(err)
	}
	sector := bytes.Repeat([]byte("serpent!"), 64) // one 512-byte sector
	ciphertext := make([]byte, len(sector))
	c.Encrypt(ciphertext, sector, 7) // sector number 7

	plaintext := make([]byte, len(ciphertext))
	c.Decrypt(plaintext, ciphertext, 7)
	fmt.Println(bytes.Equal(plaintext, sector))
	// Output: true
}

// One block, with the first NESSIE Serpent-128 vector.
func ExampleNewCipher() {
	key := make([]byte, 16)
	key[0] = 0x80
	c, err := serpent.NewCipher(key)
	if err != nil {
		panic(err)
	}
	out := make([]byte, serpent.BlockSize)
	c.Encrypt(out, make([]byte, serpent.BlockSize))
	fmt.Printf("%x\n", out)
	// Output: 264e5481eff42a4606abda06c0bfda3d
}
