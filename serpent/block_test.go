// Copyright 2026 The fastxts Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package serpent_test

import (
	"testing"

	"github.com/fastxts/xts/internal/blocktest"
	"github.com/fastxts/xts/serpent"
)

var spec = blocktest.Cipher{
	Name:      "serpent",
	New:       serpent.NewCipher,
	BlockSize: serpent.BlockSize,
	KeySizes:  []int{16, 24, 32},
	Overlap:   true,
}

func TestNESSIE(t *testing.T) {
	blocktest.CheckVectors(t, spec, "nessie.txt", blocktest.ReadVectors(t, "testdata/nessie.txt"))
}

// TestSubmission checks the AES-submission vectors, printed in the reverse
// byte order.
func TestSubmission(t *testing.T) {
	vs := blocktest.ReadVectors(t, "testdata/submission.txt")
	blocktest.Reverse(vs)
	blocktest.CheckVectors(t, spec, "submission.txt", vs)
}

// TestGcryptVectors checks ECB blocks that libgcrypt 1.10.1 computed for
// random keys and plaintexts (written by go test -tags gcrypt -run
// TestGcryptWriteVectors -gcrypt.update).
func TestGcryptVectors(t *testing.T) {
	blocktest.CheckVectors(t, spec, "gcrypt_ecb.txt", blocktest.ReadVectors(t, "testdata/gcrypt_ecb.txt"))
}

func TestKeySizes(t *testing.T) { blocktest.KeySizes[serpent.KeySizeError](t, spec) }

func TestPanics(t *testing.T) { blocktest.Panics(t, spec) }

func TestInPlaceAndLonger(t *testing.T) { blocktest.InPlaceAndLonger(t, spec) }

func TestKeyCopied(t *testing.T) {
	blocktest.KeyCopied(t, spec, blocktest.ReadVectors(t, "testdata/nessie.txt")[0])
}

func TestNoAllocs(t *testing.T) { blocktest.NoAllocs(t, spec) }

// TestConcurrent uses Blocks from several goroutines (run with -race).
func TestConcurrent(t *testing.T) {
	blocktest.Concurrent(t, spec, blocktest.ReadVectors(t, "testdata/nessie.txt"))
}
