// Copyright 2026 The fastxts Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package twofish_test

import (
	"bytes"
	"crypto/cipher"
	"crypto/pbkdf2"
	"crypto/sha512"
	"encoding/binary"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/fastxts/xts"
	"github.com/fastxts/xts/twofish"
)

// TestTrueCryptVolume opens cryptsetup's TrueCrypt test volume
// tc_5-sha512-xts-twofish from ../shared/fde-images (Twofish-XTS with a
// SHA-512 key derivation): the header decrypts to the magic "TRUE" with
// both CRC-32s right, and the volume's first data sector decrypts with the
// master key to a FAT boot sector with the serial number DEAD-BABE. This
// checks the byte order against real TrueCrypt/VeraCrypt data.
func TestTrueCryptVolume(t *testing.T) {
	img := tcryptImage(t, "tc_5-sha512-xts-twofish")
	checkTrueCrypt(t, img, twofish.NewCipher)
}

// tcryptImage unpacks one volume of tcrypt-images.tar.xz into t.TempDir()
// and reads it, skipping the test when the archive or tar is absent.
func tcryptImage(t *testing.T, name string) []byte {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("../shared/fde-images not found (no module root)")
		}
		dir = parent
	}
	archive := filepath.Join(dir, "..", "shared", "fde-images", "tcrypt-images.tar.xz")
	if _, err := os.Stat(archive); err != nil {
		t.Skip("../shared/fde-images not found")
	}
	if _, err := exec.LookPath("tar"); err != nil {
		t.Skip("tar not found: cannot unpack ../shared/fde-images/tcrypt-images.tar.xz")
	}
	tmp := t.TempDir()
	member := "tcrypt-images/" + name
	if out, err := exec.Command("tar", "-xJf", archive, "-C", tmp, member).CombinedOutput(); err != nil {
		t.Fatalf("unpacking %s: %v\n%s", member, err, out)
	}
	img, err := os.ReadFile(filepath.Join(tmp, member))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// checkTrueCrypt checks a TrueCrypt volume with one XTS cipher and a
// PBKDF2-HMAC-SHA512 header key (1000 iterations, TrueCrypt's count),
// password "aaaaaaaaaaaa" (fde-images README).
func checkTrueCrypt(t *testing.T, img []byte, newCipher func([]byte) (cipher.Block, error)) {
	t.Helper()
	if len(img) < 512 {
		t.Fatalf("image of %d bytes", len(img))
	}
	dk, err := pbkdf2.Key(sha512.New, "aaaaaaaaaaaa", img[:64], 1000, 64)
	if err != nil {
		t.Fatal(err)
	}
	hc, err := xts.NewCipher(newCipher, dk)
	if err != nil {
		t.Fatal(err)
	}
	// The header's bytes 64..511 are one XTS data unit, number 0.
	hdr := make([]byte, 448)
	hc.Decrypt(hdr, img[64:512], 0)
	if string(hdr[:4]) != "TRUE" {
		t.Fatalf("decrypted header starts %x, want \"TRUE\"", hdr[:4])
	}
	if got, want := crc32.ChecksumIEEE(hdr[192:448]), binary.BigEndian.Uint32(hdr[8:12]); got != want {
		t.Fatalf("master key area CRC-32 %08x, header says %08x", got, want)
	}
	if got, want := crc32.ChecksumIEEE(hdr[:188]), binary.BigEndian.Uint32(hdr[188:192]); got != want {
		t.Fatalf("header CRC-32 %08x, header says %08x", got, want)
	}
	start := binary.BigEndian.Uint64(hdr[44:52])
	if start%512 != 0 || start+512 > uint64(len(img)) {
		t.Fatalf("encrypted area starts at %d, outside the %d-byte image", start, len(img))
	}
	// The master key: data key then tweak key; data units are numbered by
	// their byte offset in the volume divided by 512.
	mc, err := xts.NewCipher(newCipher, hdr[192:192+64])
	if err != nil {
		t.Fatal(err)
	}
	sector := make([]byte, 512)
	mc.Decrypt(sector, img[start:start+512], start/512)
	if sector[510] != 0x55 || sector[511] != 0xAA {
		t.Fatalf("first data sector does not end in a boot signature: %x", sector[496:])
	}
	if !bytes.Contains(sector[:90], []byte{0xBE, 0xBA, 0xAD, 0xDE}) {
		t.Fatalf("first data sector holds no volume serial DEAD-BABE: %x", sector[:90])
	}
}
