// Package fvault2 opens FileVault 2 volumes (Apple Core Storage, Mac OS X
// 10.7 to macOS 10.15) in pure Go, for reading and writing, as
// cryptsetup's FVAULT2 type does.
//
// The layout, after libfvde's "FileVault Drive Encryption (FVDE)"
// document and checked against cryptsetup's test volume:
//
//   - The physical volume header, the first 512 bytes of the partition:
//     weak CRC-32C checksum, "CS" at offset 88, block size, the block
//     numbers of up to four copies of the metadata, a 16-byte key and the
//     physical volume UUID.
//   - The metadata (disk label, block type 0x0011), which says where the
//     encrypted metadata lies.
//   - The encrypted metadata: AES-XTS-128 in 8192-byte units (unit i has
//     tweak i) under the header's key and the physical volume UUID. Its
//     blocks 0x001a (the logical volume: family UUID, size), 0x0305 (the
//     logical volume's extent on the physical volume) and 0x0019 (the
//     encryption context, an XML plist with the passphrase-wrapped
//     key-encrypting keys and the wrapped volume keys).
//   - A password opens a passphrase: PBKDF2-HMAC-SHA-256 (salt and
//     iterations from the context) gives an AES-128 key that unwraps (RFC
//     3394) the key-encrypting key, which unwraps the 128-bit volume key.
//     The XTS tweak key is the first 16 bytes of SHA-256(volume key ‖
//     family UUID).
//   - The logical volume is AES-XTS-128 in 512-byte sectors, the tweak
//     the sector number from the logical volume's start (aes-xts-plain64).
//
// Not supported (ErrUnsupported): volumes without encryption, system
// volumes keyed by EncryptedRoot.plist.wipekey, several physical or
// logical volumes, and volumes whose conversion is not complete.
package fvault2
