package veracrypt

import (
	"crypto/cipher"
	"crypto/des"
	"fmt"

	"golang.org/x/crypto/blowfish" //lint:ignore SA1019 TrueCrypt 1.0-4.0 volumes used Blowfish; opened read-only, never created
	"golang.org/x/crypto/cast5"    //lint:ignore SA1019 TrueCrypt 1.0-4.0 volumes used CAST5; opened read-only, never created
)

// legacyCipher is a block cipher of TrueCrypt's CBC era (1.0 to 4.0),
// with the key size TrueCrypt used for it.
type legacyCipher struct {
	keySize int
	new     func(key []byte) (cipher.Block, error)
}

// legacyCiphers are the ciphers of TrueCrypt's CBC volumes, by
// cryptsetup's names: AES, Serpent and Twofish with 256-bit keys, Blowfish
// with 448-bit keys, CAST5 with 128-bit keys and Triple DES (EDE, three
// 56-bit keys with their parity bits: 192 bits).
var legacyCiphers = map[string]legacyCipher{
	"aes":      {32, blockCiphers["aes"]},
	"serpent":  {32, blockCiphers["serpent"]},
	"twofish":  {32, blockCiphers["twofish"]},
	"blowfish": {56, newBlowfishLE},
	"cast5":    {16, newCAST5},
	"des3_ede": {24, des.NewTripleDESCipher},
}

func newCAST5(key []byte) (cipher.Block, error) { return cast5.NewCipher(key) }

// blowfishLE is Blowfish as TrueCrypt ran it: the 64-bit block read as
// two little-endian 32-bit halves (the specification, and
// x/crypto/blowfish, read them big-endian).
type blowfishLE struct{ c *blowfish.Cipher }

func newBlowfishLE(key []byte) (cipher.Block, error) {
	c, err := blowfish.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("veracrypt: blowfish: %w", err)
	}
	return blowfishLE{c}, nil
}

func (b blowfishLE) BlockSize() int { return 8 }

// swapHalves reverses the bytes of each 32-bit half of an 8-byte block.
func swapHalves(dst, src []byte) {
	_ = src[7]
	_ = dst[7]
	dst[0], dst[1], dst[2], dst[3], dst[4], dst[5], dst[6], dst[7] =
		src[3], src[2], src[1], src[0], src[7], src[6], src[5], src[4]
}

func (b blowfishLE) Encrypt(dst, src []byte) {
	var t [8]byte
	swapHalves(t[:], src)
	b.c.Encrypt(t[:], t[:])
	swapHalves(dst, t[:])
}

func (b blowfishLE) Decrypt(dst, src []byte) {
	var t [8]byte
	swapHalves(t[:], src)
	b.c.Decrypt(t[:], t[:])
	swapHalves(dst, t[:])
}
