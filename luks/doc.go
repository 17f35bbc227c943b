// Package luks opens, reads, writes and creates LUKS1 and LUKS2 encrypted
// disk images in pure Go, without root or device-mapper, bit-compatible
// with cryptsetup.
//
// ReadHeader parses a header (both LUKS2 binary copies with their SHA-256
// checksums, the JSON metadata, the valid copy with the highest sequence
// id; or a LUKS1 header) into a Header that holds everything
// `cryptsetup luksDump` shows. Header.Unlock turns a passphrase into the
// volume key; NewVolume gives io.ReaderAt and io.WriterAt access to the
// decrypted data segment. Open does all three. Create makes a new image
// and Header.AddKey adds a keyslot.
//
// Supported: keyslot KDFs pbkdf2 (sha1, sha256, sha512), argon2i and
// argon2id; data and keyslot ciphers aes-xts-plain64, aes-xts-plain,
// aes-cbc-essiv:sha256, aes-cbc-plain64 and aes-cbc-plain with 128- and
// 256-bit AES; sector sizes 512 to 4096. Refused with an error naming the
// feature: integrity protection, a reencryption in progress (and any
// other mandatory requirement flag), ciphers other than AES, unknown KDFs
// and anti-forensic types. Tokens are listed but ignored.
//
// Untrusted input: every size and count read from a header is checked
// against the limits below before anything is allocated, so a crafted
// image gives an error, never a panic or an unbounded allocation.
//   - LUKS2 header (binary header and JSON area): at most 4 MiB, as LUKS2 defines.
//   - keyslot key size: 1 to 256 bytes (MaxKeySize); AF stripes: at most 65536.
//   - argon2 memory cost: at most 4 GiB (MaxArgon2Memory, in KiB), time cost
//     at most 1<<20, parallel cost at most 16; pbkdf2 iterations below 1<<31.
//   - at most 32 keyslots, segments, digests and tokens each.
//
// Speed: whole sectors go through github.com/fastxts/xts's
// EncryptSectors and DecryptSectors, in chunks spread over every core. On
// Linux a Volume over an *os.File maps its data segment read-only and
// decrypts bulk reads straight from the page cache, without a copy; a file
// cut short under it makes ReadAt fail with an error. Argon2 keyslots
// unlock with an Argon2 of this module's own (luks/internal/argon2), its
// memory in one region with transparent huge pages advised.
package luks
