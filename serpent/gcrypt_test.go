// Copyright 2026 The fastxts Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build gcrypt && cgo

package serpent_test

// These tests compare the package with libgcrypt through internal/gcry
// (apt-get install libgcrypt20-dev; go test -tags gcrypt). libgcrypt's
// Serpent has the byte order of the Linux kernel's "serpent" and of
// VeraCrypt.

import (
	"testing"

	"github.com/fastxts/xts/internal/blocktest"
	"github.com/fastxts/xts/internal/gcry"
)

// TestGcryptECB compares blocks under random keys of every size.
func TestGcryptECB(t *testing.T) { blocktest.GcryptECB(t, spec, gcry.Serpent) }

// TestGcryptXTS compares xts.NewCipher(serpent.NewCipher, ...) with
// libgcrypt's XTS mode, whose IV is the tweak: the little-endian sector
// number.
func TestGcryptXTS(t *testing.T) { blocktest.GcryptXTS(t, spec, gcry.Serpent) }

// TestGcryptWriteVectors writes testdata/gcrypt_ecb.txt, the libgcrypt
// ECB blocks that TestGcryptVectors checks without cgo, when
// -gcrypt.update is given.
func TestGcryptWriteVectors(t *testing.T) {
	blocktest.GcryptWriteVectors(t, gcry.Serpent, "in the byte order libgcrypt reads and writes")
}
