// Copyright 2026 The fastxts Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package serpent_test

import (
	"testing"

	"github.com/fastxts/xts/internal/blocktest"
)

// TestTrueCryptVolume opens cryptsetup's TrueCrypt test volume
// tc_5-sha512-xts-serpent from ../shared/fde-images (Serpent-XTS with a
// SHA-512 key derivation): the header decrypts to the magic "TRUE" with
// both CRC-32s right, and the volume's first data sector decrypts with the
// master key to a FAT boot sector with the serial number DEAD-BABE. This
// checks the byte order against real TrueCrypt/VeraCrypt data.
func TestTrueCryptVolume(t *testing.T) {
	blocktest.TrueCryptVolume(t, spec, "tc_5-sha512-xts-serpent")
}
