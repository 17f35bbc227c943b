// Package sector is the module's one sector layer: the cipher
// specifications that dm-crypt and LUKS name (aes-xts-plain64,
// aes-xts-plain, aes-cbc-essiv:sha256, aes-cbc-plain64, aes-cbc-plain),
// dm-crypt's IV numbering (sector sizes of 512 to 4096 bytes,
// iv_large_sectors, the plain IV's 32-bit wrap, the IV offset), and a
// Cipher that encrypts and decrypts runs of whole sectors under both.
//
// The luks package uses it for data segments and keyslot areas, and
// cmd/xts for dm-crypt's plain mode, so that the numbering exists once.
package sector
