// Copyright 2026 The fastxts Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package twofish_test

import (
	"crypto/cipher"
	"testing"

	"github.com/fastxts/xts/internal/blocktest"
	"github.com/fastxts/xts/twofish"

	//lint:ignore SA1019 x/crypto/twofish is deprecated for new uses; here it is only the benchmark baseline.
	xtwofish "golang.org/x/crypto/twofish"
)

func BenchmarkEncrypt(b *testing.B) { blocktest.BenchEncrypt(b, spec) }

func BenchmarkDecrypt(b *testing.B) { blocktest.BenchDecrypt(b, spec) }

func BenchmarkNewCipher(b *testing.B) { blocktest.BenchNewCipher(b, spec) }

// BenchmarkXTS is Twofish-256-XTS over one 4 KiB sector.
func BenchmarkXTS(b *testing.B) { blocktest.BenchXTS(b, spec) }

// BenchmarkCompare runs this package and golang.org/x/crypto/twofish
// interleaved, one block at a time.
func BenchmarkCompare(b *testing.B) {
	key := make([]byte, 32)
	ours, _ := twofish.NewCipher(key)
	theirs, _ := xtwofish.NewCipher(key)
	buf := make([]byte, twofish.BlockSize)
	for _, c := range []struct {
		name string
		blk  cipher.Block
	}{{"fastxts", ours}, {"xcrypto", theirs}} {
		b.Run("Encrypt/"+c.name, func(b *testing.B) {
			b.SetBytes(twofish.BlockSize)
			for b.Loop() {
				c.blk.Encrypt(buf, buf)
			}
		})
		b.Run("Decrypt/"+c.name, func(b *testing.B) {
			b.SetBytes(twofish.BlockSize)
			for b.Loop() {
				c.blk.Decrypt(buf, buf)
			}
		})
	}
}
