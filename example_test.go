package xts_test

import (
	"bytes"
	"crypto/aes"
	"encoding/hex"
	"fmt"

	"github.com/fastxts/xts"
)

// The drop-in replacement for golang.org/x/crypto/xts: only the import
// path changes. The key is the data key followed by the tweak key.
func Example() {
	key, _ := hex.DecodeString("000102030405060708090a0b0c0d0e0f" + "101112131415161718191a1b1c1d1e1f" +
		"f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff" + "e0e1e2e3e4e5e6e7e8e9eaebecedeeef")
	c, err := xts.NewCipher(aes.NewCipher, key) // AES-256-XTS
	if err != nil {
		panic(err)
	}

	sector := bytes.Repeat([]byte("secret!!"), 64) // one 512-byte sector
	ciphertext := make([]byte, len(sector))
	c.Encrypt(ciphertext, sector, 42) // sector number 42

	plaintext := make([]byte, len(ciphertext))
	c.Decrypt(plaintext, ciphertext, 42)
	fmt.Println(bytes.Equal(plaintext, sector))
	// Output: true
}

// Formats whose tweak is not a little-endian sector number pass any 16
// bytes. Data units need not be a multiple of 16 bytes: an 18-byte unit
// uses ciphertext stealing and stays 18 bytes long.
func ExampleCipher_EncryptWithTweak() {
	key, _ := hex.DecodeString("fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0" + "bfbebdbcbbbab9b8b7b6b5b4b3b2b1b0")
	c, err := xts.NewCipher(aes.NewCipher, key) // AES-128-XTS
	if err != nil {
		panic(err)
	}
	tweak := [16]byte{0x9a, 0x78, 0x56, 0x34, 0x12} // IEEE 1619 vector 16
	plaintext, _ := hex.DecodeString("000102030405060708090a0b0c0d0e0f1011")
	ciphertext := make([]byte, len(plaintext))
	c.EncryptWithTweak(ciphertext, plaintext, tweak)
	fmt.Printf("%x\n", ciphertext)
	// Output: d069444b7a7e0cab09e24447d24deb1fedbf
}

// A data unit can be fed in parts, for example as it arrives from a
// stream: every part but the last a multiple of 16 bytes. The result is
// the same as one call over the whole unit.
func ExampleCipher_NewEncrypter() {
	key := make([]byte, 64)
	for i := range key {
		key[i] = byte(i)
	}
	c, err := xts.NewCipher(aes.NewCipher, key)
	if err != nil {
		panic(err)
	}
	unit := bytes.Repeat([]byte{7}, 4100) // not a multiple of 16

	oneShot := make([]byte, len(unit))
	c.EncryptWithTweak(oneShot, unit, xts.SectorTweak(9))

	parts := make([]byte, len(unit))
	e := c.NewEncrypter(xts.SectorTweak(9))
	e.Update(parts[:2048], unit[:2048])
	e.Update(parts[2048:4080], unit[2048:4080])
	e.Final(parts[4080:], unit[4080:]) // the last 20 bytes: stealing
	fmt.Println(bytes.Equal(parts, oneShot))
	// Output: true
}

// Whole disk regions go through EncryptSectors: one call for many
// consecutive sectors, split across cores when large.
func ExampleCipher_EncryptSectors() {
	key := make([]byte, 64)
	for i := range key {
		key[i] = byte(255 - i)
	}
	c, err := xts.NewCipher(aes.NewCipher, key)
	if err != nil {
		panic(err)
	}
	region := make([]byte, 64*4096) // 64 sectors of 4096 bytes
	c.EncryptSectors(region, region, 4096, 1000)

	// Sector 1003 is the fourth one of the region.
	one := make([]byte, 4096)
	c.Decrypt(one, region[3*4096:4*4096], 1003)
	fmt.Println(bytes.Equal(one, make([]byte, 4096)))
	// Output: true
}

// Implementations lists what this build has and what this CPU runs; one
// can be pinned by name with WithImplementation.
func ExampleImplementations() {
	for _, im := range xts.Implementations() {
		if im.Name == "generic" {
			fmt.Println(im.Name, im.Available)
		}
	}
	// Output: generic true
}

// When a key must leave memory (a volume closed, a key rotated), clear
// your copy of it and Wipe the Cipher: its round keys are zeroed and any
// later use panics instead of encrypting under a zeroed key.
func ExampleCipher_Wipe() {
	key := make([]byte, 64)
	for i := range key {
		key[i] = byte(i)
	}
	c, err := xts.NewCipher(aes.NewCipher, key)
	clear(key)
	if err != nil {
		panic(err)
	}
	sector := make([]byte, 512)
	c.Encrypt(sector, sector, 0)
	c.Wipe()

	defer func() { fmt.Println(recover()) }()
	c.Encrypt(sector, sector, 1)
	// Output: xts: use of a wiped Cipher
}
