// Package sector is the module's one sector layer: the cipher
// specifications that dm-crypt and LUKS name (CIPHER-xts-plain64,
// CIPHER-xts-plain, CIPHER-cbc-essiv:sha256, CIPHER-cbc-plain64 and
// CIPHER-cbc-plain, where CIPHER is aes, serpent, twofish or camellia),
// dm-crypt's IV numbering (sector sizes of 512 to 4096 bytes,
// iv_large_sectors, the plain IV's 32-bit wrap, the IV offset), and a
// Cipher that encrypts and decrypts runs of whole sectors under both.
//
// XTS goes through the xts package with the block cipher's own
// constructor (aes.NewCipher, serpent.NewCipher, ...), so that the xts
// package's generated implementations of each cipher are used where the
// CPU has them. CBC runs the block cipher through crypto/cipher.
//
// The luks package uses it for data segments and keyslot areas, and
// cmd/xts for dm-crypt's plain mode, so that the numbering exists once.
package sector
