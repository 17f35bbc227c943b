package kuznyechik_test

import (
	"bytes"
	"encoding/hex"
	"fmt"

	"github.com/fastxts/xts"
	"github.com/fastxts/xts/kuznyechik"
)

// Kuznyechik-XTS as VeraCrypt uses it: the 64-byte XTS key is the data key
// followed by the tweak key, the tweak the little-endian data unit number.
func Example() {
	key, _ := hex.DecodeString("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f" +
		"f0f1f2f3f4f5f6f7f8f9fafbfcfdfefff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")
	c, err := xts.NewCipher(kuznyechik.NewCipher, key)
	if err != nil {
		panic(err)
	}
	sector := bytes.Repeat([]byte("secret!!"), 64) // one 512-byte data unit
	ciphertext := make([]byte, len(sector))
	c.Encrypt(ciphertext, sector, 42) // data unit number 42

	plaintext := make([]byte, len(ciphertext))
	c.Decrypt(plaintext, ciphertext, 42)
	fmt.Println(bytes.Equal(plaintext, sector), bytes.Equal(ciphertext, sector))
	// Output: true false
}

// One block: the example of RFC 7801, section 5.5.
func ExampleNewCipher() {
	key, _ := hex.DecodeString("8899aabbccddeeff0011223344556677fedcba98765432100123456789abcdef")
	block, err := kuznyechik.NewCipher(key)
	if err != nil {
		panic(err)
	}
	plaintext, _ := hex.DecodeString("1122334455667700ffeeddccbbaa9988")
	dst := make([]byte, kuznyechik.BlockSize)
	block.Encrypt(dst, plaintext)
	fmt.Printf("%x\n", dst)
	// Output: 7f679d90bebc24305a468d42b9d4edcd
}
