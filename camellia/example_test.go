package camellia_test

import (
	"bytes"
	"encoding/hex"
	"fmt"

	"github.com/fastxts/xts"
	"github.com/fastxts/xts/camellia"
)

// Camellia-256-XTS, as LUKS camellia-xts-plain64 with a 512-bit key and
// VeraCrypt use it: the XTS key is the data key followed by the tweak key.
func Example() {
	key, _ := hex.DecodeString("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f" +
		"f0f1f2f3f4f5f6f7f8f9fafbfcfdfefff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")
	c, err := xts.NewCipher(camellia.NewCipher, key)
	if err != nil {
		panic(err)
	}
	sector := bytes.Repeat([]byte("secret!!"), 64) // one 512-byte sector
	ciphertext := make([]byte, len(sector))
	c.Encrypt(ciphertext, sector, 42) // sector number 42

	plaintext := make([]byte, len(ciphertext))
	c.Decrypt(plaintext, ciphertext, 42)
	fmt.Println(bytes.Equal(plaintext, sector), bytes.Equal(ciphertext, sector))
	// Output: true false
}

// One block with the RFC 3713 128-bit test key.
func ExampleNewCipher() {
	key, _ := hex.DecodeString("0123456789abcdeffedcba9876543210")
	block, err := camellia.NewCipher(key)
	if err != nil {
		panic(err)
	}
	dst := make([]byte, camellia.BlockSize)
	block.Encrypt(dst, key) // the RFC encrypts the key's bytes as the plaintext
	fmt.Printf("%x\n", dst)
	// Output: 67673138549669730857065648eabe43
}
