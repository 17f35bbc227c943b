// Copyright 2026 The fastxts Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package serpent_test

import (
	"testing"

	"github.com/fastxts/xts"
	"github.com/fastxts/xts/serpent"
)

func BenchmarkEncrypt(b *testing.B) {
	c, _ := serpent.NewCipher(make([]byte, 32))
	buf := make([]byte, serpent.BlockSize)
	b.SetBytes(serpent.BlockSize)
	for b.Loop() {
		c.Encrypt(buf, buf)
	}
}

func BenchmarkDecrypt(b *testing.B) {
	c, _ := serpent.NewCipher(make([]byte, 32))
	buf := make([]byte, serpent.BlockSize)
	b.SetBytes(serpent.BlockSize)
	for b.Loop() {
		c.Decrypt(buf, buf)
	}
}

func BenchmarkNewCipher(b *testing.B) {
	key := make([]byte, 32)
	for b.Loop() {
		serpent.NewCipher(key)
	}
}

// BenchmarkXTS is Serpent-256-XTS over one 4 KiB sector.
func BenchmarkXTS(b *testing.B) {
	key := make([]byte, 64)
	for i := range key {
		key[i] = byte(i)
	}
	c, err := xts.NewCipher(serpent.NewCipher, key)
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 4096)
	b.Run("Encrypt4K", func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		for b.Loop() {
			c.Encrypt(buf, buf, 1)
		}
	})
	b.Run("Decrypt4K", func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		for b.Loop() {
			c.Decrypt(buf, buf, 1)
		}
	})
}
