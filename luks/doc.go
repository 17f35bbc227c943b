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
// and Header.AddKey adds a keyslot; Header.KillSlot, RemoveKey,
// ChangeKey and Erase remove keyslots (the header first, then the area
// wiped), as cryptsetup's luksKillSlot, luksRemoveKey, luksChangeKey and
// luksErase do.
//
// Reencryption (cryptsetup reencrypt, offline): InitReencrypt records a
// volume-key rotation, an encryption of plain data (detached header, or
// in place with ReduceDeviceSize) or a decryption (detached header) in
// the header, with checksum, journal or none resilience (datashift in
// place); ResumeReencrypt runs it to the end, hotzone by hotzone,
// recovering an interrupted hotzone first; Reencrypt does both. Each
// resumes what the other tool started or left, cryptsetup killed
// mid-run included (this package needs no cryptsetup repair first).
// Header.Reencryption reports one in progress.
//
// Supported: keyslot KDFs pbkdf2 (sha1, sha256, sha384, sha512, and
// ripemd160 and whirlpool as old cryptsetup made LUKS1 keyslots with them:
// the same hash for the anti-forensic splitter and the volume key digest),
// argon2i and argon2id; data and keyslot ciphers CIPHER-xts-plain64,
// CIPHER-xts-plain, CIPHER-cbc-essiv:sha256, CIPHER-cbc-plain64 and
// CIPHER-cbc-plain, where CIPHER is aes, serpent, twofish or camellia,
// with 128-, 192- and 256-bit keys (XTS keys twice that: 256, 384 or 512
// bits); sector sizes 512 to 4096. Create makes any of them, LUKS1 or
// LUKS2, and encrypts the keyslots with the data cipher, as cryptsetup
// does. Refused with an error naming the feature: integrity protection,
// any mandatory requirement flag (Open and NewVolume refuse an image with
// a reencryption in progress, whose data is half old, half new:
// ResumeReencrypt finishes it), other ciphers (ErrUnsupported), unknown
// KDFs and anti-forensic types. Tokens are listed but ignored.
//
// Changing a header: Create and Header.AddKey (and every verb that
// changes a header) build the new header in memory and commit it the
// same way: the new header is encoded and checked as ReadHeader checks a
// header; the header on the device must still be the one the Header was
// read from (LUKS1: the same bytes; LUKS2: the same UUID, sequence id and
// JSON), else the change is refused, as another tool changed it; then the
// new keyslot material is written where no keyslot of the old header
// lies, then the LUKS2 secondary header copy, then the primary (with the
// sequence id one higher; the primary first when the header was read
// from the secondary copy, the primary being damaged), or the LUKS1
// header. A power loss at any point
// leaves an image that every old passphrase opens. The rule for the
// caller's *Header is the same for every such method: on success it is
// updated in place to the header as written (as ReadHeader would now
// read it); on error it is left as it was. JSON members this package
// does not model (token contents, integrity parameters, unknown members,
// keyslots of types other than luks2) are kept as they were.
//
// Security considerations: a header is untrusted input. ReadHeader
// checks it as strictly as cryptsetup 2.6 does, and refuses what
// cryptsetup refuses (ErrCorrupt): both LUKS2 binary headers' checksums,
// offsets and sizes; the JSON area (it starts with '{', the JSON is
// followed by a NUL and only zeros); every member cryptsetup requires,
// with its type; every reference (digests to keyslots and segments,
// tokens to keyslots, each luks2 keyslot bound to exactly one digest,
// each crypt segment to a digest); keyslot areas inside the keyslots
// area, apart from each other and from both header copies; keyslots_size
// consistent with the metadata size and ending before the data; segment
// offsets and sizes (a decimal up to 2^64-1, or "dynamic"); LUKS1 key
// material inside the header area, apart, before the payload. Open and
// OpenWithKey also refuse to write through a data segment that begins
// inside the header or its keyslots on the same device (a detached
// header's data at offset 0, used without Options.Header); NewVolume,
// which is not told where the header is, does not check this. What is
// trusted once checked: the cipher, KDF and hash names (refused with
// ErrUnsupported unless implemented), the KDF costs (within the limits
// below), and the digest, which is what proves a key right: a passphrase
// opens a keyslot only if the key it yields matches the digest, compared
// in constant time. Nothing authenticates the header itself: whoever can
// write the image can change its metadata (LUKS has no header MAC), as
// with cryptsetup.
//
// Untrusted input: every size and count read from a header is checked
// against the limits below before anything is allocated, so a crafted
// image gives an error, never a panic or an unbounded allocation. A
// keyslot whose sizes are past the limits (a key size, the stripes, an
// area too small for its split key) reads, as cryptsetup reads it, but
// does not open.
//   - LUKS2 header (binary header and JSON area): at most 4 MiB, as LUKS2 defines.
//   - keyslot key size: 1 to 256 bytes (MaxKeySize); AF stripes: at most 65536.
//   - argon2 memory cost: at most 4 GiB (MaxArgon2Memory, in KiB), time cost
//     at most 1<<20, parallel cost at most 16; pbkdf2 iterations below 1<<31.
//   - at most 32 keyslots, segments, digests and tokens each (their ids
//     may be larger).
//
// Speed: whole sectors go through github.com/fastxts/xts's
// EncryptSectors and DecryptSectors, in chunks spread over every core,
// with the xts package's generated implementation of the cipher where
// the CPU has one (AES, and Serpent, Twofish and Camellia where built). On
// Linux a Volume over an *os.File maps its data segment read-only and
// decrypts bulk reads straight from the page cache, without a copy; a file
// cut short under it makes ReadAt fail with an error. Argon2 keyslots
// unlock with an Argon2 of this module's own (internal/argon2), its
// memory in one region with transparent huge pages advised.
package luks
