// Copyright 2026 The fastxts Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package twofish_test

import (
	"bytes"
	"fmt"

	"github.com/fastxts/xts"
	"github.com/fastxts/xts/twofish"
)

// Twofish-XTS, as in LUKS twofish-xts-plain64 or a VeraCrypt volume: a
// 64-byte key is two 32-byte Twofish keys (data key, then tweak key).
func Example() {
	key := make([]byte, 64)
	for i := range key {
		key[i] = byte(i)
	}
	c, err := xts.NewCipher(twofish.NewCipher, key)
	if err != nil {
		panic(err)
	}
	sector := bytes.Repeat([]byte("twofish!"), 64) // one 512-byte sector
	ciphertext := make([]byte, len(sector))
	c.Encrypt(ciphertext, sector, 7) // sector number 7

	plaintext := make([]byte, len(ciphertext))
	c.Decrypt(plaintext, ciphertext, 7)
	fmt.Println(bytes.Equal(plaintext, sector))
	// Output: true
}

// One block, with the Twofish-128 vector of the paper's ECB_IVAL.TXT.
func ExampleNewCipher() {
	c, err := twofish.NewCipher(make([]byte, 16))
	if err != nil {
		panic(err)
	}
	out := make([]byte, twofish.BlockSize)
	c.Encrypt(out, make([]byte, twofish.BlockSize))
	fmt.Printf("%x\n", out)
	// Output: 9f589f5cf6122c32b6bfec2f2ae8c35a
}
