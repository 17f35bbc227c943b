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
// # Security considerations
//
// XTS gives confidentiality of data at rest and nothing more. It has no
// integrity: changes go undetected, a ciphertext block can be altered to
// randomise just its own 16 bytes of plaintext, and an old ciphertext of
// a sector can be replayed. It is deterministic: someone who sees the
// medium twice learns which 16-byte blocks of a sector changed. The tweak
// must be unique per data unit under one key (sector numbers are); the two
// key halves must be independent, which is why equal halves are refused
// unless AllowEqualKeyHalves is given. IEEE 1619 limits a data unit to 2^20
// blocks; like golang.org/x/crypto/xts this package does not enforce it.
// The assembly implementations and crypto/aes are constant time; with
// -tags purego crypto/aes uses lookup tables that are not. Cipher.Wipe
// zeroes the assembly implementations' round keys in place; it can only
// drop the crypto/aes ciphers of the generic implementation, and cannot
// reach copies the Go runtime may have made. The README has the full list.
//
// Programmer errors (data shorter than 16 bytes, output shorter than
// input, partially overlapping buffers) panic with a message starting with
// "xts: ", as crypto/cipher does. Bad keys and unusable implementations
// are reported as errors by NewCipher.
package xts
