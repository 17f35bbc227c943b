// Package xts implements XTS mode (IEEE 1619, NIST SP 800-38E), the mode
// used to encrypt storage: dm-crypt/LUKS aes-xts-plain64, VeraCrypt,
// BitLocker, APFS.
//
// It is a drop-in replacement for golang.org/x/crypto/xts: NewCipher,
// Encrypt and Decrypt take the same arguments and produce the same bytes.
// Beyond that it accepts any data unit of 16 bytes or more (ciphertext
// stealing), any 16-byte tweak (EncryptWithTweak), data units fed in
// several parts (NewEncrypter, NewDecrypter), and many consecutive sectors
// in one call spread across cores (EncryptSectors).
//
// With aes.NewCipher and an x86-64 CPU with AES-NI, or an arm64 CPU with
// the ARMv8 AES instructions, the work is done by generated assembly; the
// fastest variant this CPU runs well is chosen at start-up (see
// Implementations). In FIPS 140 mode (GODEBUG=fips140=on) AES goes
// through crypto/aes instead, as it does for golang.org/x/crypto/xts. Everywhere else, and for block ciphers
// other than AES, a portable implementation runs. Every implementation
// produces the same output.
//
// Programmer errors (data shorter than 16 bytes, output shorter than
// input, partially overlapping buffers) panic with a message starting with
// "xts: ", as crypto/cipher does. Bad keys and unusable implementations
// are reported as errors by NewCipher.
package xts
