package veracrypt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// Header geometry: every header is 512 bytes, a 64-byte salt followed by
// 448 bytes that the header key encrypts (XTS, data unit 0).
const (
	// HeaderSize is the size of a volume header on disk.
	HeaderSize = 512
	// SaltSize is the size of the clear salt at the start of a header.
	SaltSize = 64
	// KeyAreaSize is the size of the master key area of a header.
	KeyAreaSize = 256

	// Offsets of the headers of a non-system volume. The backup headers
	// sit in the last 128 KiB of the host: the normal volume's at
	// size-131072, the hidden volume's at size-65536.
	normalHeaderOffset = 0
	hiddenHeaderOffset = 65536
	backupReserve      = 131072
	// systemHeaderOffset: system encryption keeps its header in the last
	// sector of the first track (sector 62 of 512 bytes).
	systemHeaderOffset = 62 * 512
	// DataOffset is where a VeraCrypt/TrueCrypt 6+ file container's or
	// non-system partition's data area starts (after the two 64 KiB header
	// areas).
	DataOffset = 131072
)

// Header flag bits (Header.Flags).
const (
	// FlagSystem marks system encryption.
	FlagSystem = 1 << 0
	// FlagInPlace marks a non-system volume that was encrypted in place.
	FlagInPlace = 1 << 1
)

// ErrHeader is wrapped by the errors of a decrypted header that fails its
// checks (magic, CRCs, geometry).
var ErrHeader = errors.New("veracrypt: invalid header")

// Header is a decrypted volume header: the fields of the VeraCrypt Volume
// Format Specification (all big-endian on disk) and what the successful
// trial found (PRF, cipher chain, iterations).
type Header struct {
	// Salt is the header's clear 64-byte salt.
	Salt [SaltSize]byte
	// Magic is "VERA" (VeraCrypt) or "TRUE" (TrueCrypt).
	Magic string
	// Version is the header format version (VeraCrypt 5, TrueCrypt 7: 5).
	Version uint16
	// MinProgramVersion is the minimum program version required to open
	// the volume (BCD-like, 0x010b for 1.11).
	MinProgramVersion uint16
	// KeyAreaCRC is the stored CRC-32 of the master key area.
	KeyAreaCRC uint32
	// VolumeCreationTime and HeaderCreationTime are TrueCrypt's
	// timestamps (zero, reserved, in VeraCrypt headers).
	VolumeCreationTime, HeaderCreationTime uint64
	// HiddenVolumeSize is, in an outer volume's header, the size of the
	// hidden volume inside it (0 otherwise, or when the header hides it).
	HiddenVolumeSize uint64
	// VolumeSize is the size of the volume in bytes.
	VolumeSize uint64
	// EncryptedAreaStart is the byte offset, from the start of the host
	// (file, partition, or for system encryption the drive), where the
	// master key's scope, the data area, starts; EncryptedAreaLength its
	// length.
	EncryptedAreaStart, EncryptedAreaLength uint64
	// Flags: FlagSystem, FlagInPlace.
	Flags uint32
	// SectorSize is the sector size the volume was made for (512 before
	// VeraCrypt 1.18 and TrueCrypt 7.1, where the field was 0).
	SectorSize uint32
	// HeaderCRC is the stored CRC-32 of bytes 64..251.
	HeaderCRC uint32
	// KeyArea is the master key area: the primary keys of the chain's
	// ciphers, then their secondary (XTS tweak) keys, then unused bytes.
	KeyArea [KeyAreaSize]byte

	// PRF is the key derivation that decrypted the header: "sha512",
	// "sha256", "blake2s", "whirlpool", "streebog", "ripemd160", "sha1"
	// or "argon2id".
	PRF string
	// Iterations is PBKDF2's iteration count; for Argon2id its time cost.
	Iterations int
	// Memory is Argon2id's memory cost in KiB (0 for PBKDF2).
	Memory int
	// Cipher is the cipher chain as VeraCrypt names it, in lower case
	// ("aes", "aes-twofish-serpent"; CryptsetupChain gives cryptsetup's
	// name), in the mode Mode names; for CBC, TrueCrypt's name of a CBC
	// chain (cbcChains: "cast5", "des3_ede", "aes-blowfish-serpent"...).
	Cipher string
	// Mode is the chain's mode: "xts", or "lrw" for TrueCrypt 4.1-4.3a
	// volumes, "cbc" for TrueCrypt 1.0-4.0 volumes (both opened
	// read-only).
	Mode string
	// KeySize is the master key's size in bytes: 64 per cipher in XTS
	// mode (primary and secondary keys), 32 plus 32 per cipher in LRW mode
	// (the tweak key's slot, then the keys); in CBC mode 32 (the IV and
	// whitening seed) plus the ciphers' keys (Blowfish 56 bytes, CAST5
	// 16, Triple DES 24, the others 32).
	KeySize int
	// Offset is where on the device the header was read.
	Offset int64
	// TrueCrypt reports a TrueCrypt ("TRUE") header.
	TrueCrypt bool
	// Hidden reports a hidden volume's header; Backup a backup header;
	// System a system-encryption header.
	Hidden, Backup, System bool
}

// MasterKey returns the KeySize bytes of the key area that the cipher
// chain uses: its primary keys, then its secondary keys. The caller should
// clear it when done.
func (h *Header) MasterKey() []byte {
	n := min(max(h.KeySize, 0), KeyAreaSize)
	return append([]byte(nil), h.KeyArea[:n]...)
}

// DataOffsetUnits returns the XTS data-unit number of the data area's
// first sector: the encrypted area's start in 512-byte units.
func (h *Header) DataOffsetUnits() uint64 { return h.EncryptedAreaStart / 512 }

// ParseHeader parses a decrypted 512-byte header block: the salt in bytes
// 0..63 and the decrypted fields in bytes 64..511. It checks the magic
// ("VERA" or "TRUE"), both CRC-32s and the geometry, and returns an error
// wrapping ErrHeader for anything else; it never panics.
func ParseHeader(block []byte) (*Header, error) {
	if len(block) != HeaderSize {
		return nil, fmt.Errorf("%w: %d bytes, a header is %d", ErrHeader, len(block), HeaderSize)
	}
	magic := block[64:68]
	if !bytes.Equal(magic, []byte("VERA")) && !bytes.Equal(magic, []byte("TRUE")) {
		return nil, fmt.Errorf("%w: no VERA/TRUE magic", ErrHeader)
	}
	be := binary.BigEndian
	h := &Header{Magic: string(magic), TrueCrypt: magic[0] == 'T'}
	copy(h.Salt[:], block[:SaltSize])
	h.Version = be.Uint16(block[68:])
	h.MinProgramVersion = be.Uint16(block[70:])
	h.KeyAreaCRC = be.Uint32(block[72:])
	h.VolumeCreationTime = be.Uint64(block[76:])
	h.HeaderCreationTime = be.Uint64(block[84:])
	h.HiddenVolumeSize = be.Uint64(block[92:])
	h.VolumeSize = be.Uint64(block[100:])
	h.EncryptedAreaStart = be.Uint64(block[108:])
	h.EncryptedAreaLength = be.Uint64(block[116:])
	h.Flags = be.Uint32(block[124:])
	h.SectorSize = be.Uint32(block[128:])
	h.HeaderCRC = be.Uint32(block[252:])
	copy(h.KeyArea[:], block[256:512])
	if crc32.ChecksumIEEE(block[256:512]) != h.KeyAreaCRC {
		return nil, fmt.Errorf("%w: key area CRC-32 mismatch", ErrHeader)
	}
	// Headers of version 4 and up (TrueCrypt 6.0+) carry a CRC of their
	// fields; older ones have none.
	if h.Version >= 4 && crc32.ChecksumIEEE(block[64:252]) != h.HeaderCRC {
		return nil, fmt.Errorf("%w: header CRC-32 mismatch", ErrHeader)
	}
	if h.SectorSize == 0 {
		h.SectorSize = 512
	}
	if ss := h.SectorSize; ss < 512 || ss > 4096 || ss&(ss-1) != 0 {
		return nil, fmt.Errorf("%w: sector size %d", ErrHeader, ss)
	}
	if h.Version >= 4 {
		ss := uint64(h.SectorSize)
		if h.EncryptedAreaStart%512 != 0 || h.EncryptedAreaLength%ss != 0 {
			return nil, fmt.Errorf("%w: encrypted area [%d, +%d) not in whole sectors", ErrHeader, h.EncryptedAreaStart, h.EncryptedAreaLength)
		}
		if h.EncryptedAreaStart > 1<<62 || h.EncryptedAreaLength > 1<<62 {
			return nil, fmt.Errorf("%w: encrypted area [%d, +%d) too large", ErrHeader, h.EncryptedAreaStart, h.EncryptedAreaLength)
		}
	}
	h.System = h.Flags&FlagSystem != 0
	return h, nil
}

// marshal writes the header's fields, the salt and both CRCs into a
// 512-byte clear block (the caller encrypts bytes 64..511). Reserved bytes
// are zero.
func (h *Header) marshal() []byte {
	b := make([]byte, HeaderSize)
	be := binary.BigEndian
	copy(b, h.Salt[:])
	copy(b[64:68], h.Magic)
	be.PutUint16(b[68:], h.Version)
	be.PutUint16(b[70:], h.MinProgramVersion)
	be.PutUint64(b[76:], h.VolumeCreationTime)
	be.PutUint64(b[84:], h.HeaderCreationTime)
	be.PutUint64(b[92:], h.HiddenVolumeSize)
	be.PutUint64(b[100:], h.VolumeSize)
	be.PutUint64(b[108:], h.EncryptedAreaStart)
	be.PutUint64(b[116:], h.EncryptedAreaLength)
	be.PutUint32(b[124:], h.Flags)
	be.PutUint32(b[128:], h.SectorSize)
	copy(b[256:], h.KeyArea[:])
	be.PutUint32(b[72:], crc32.ChecksumIEEE(b[256:512]))
	be.PutUint32(b[252:], crc32.ChecksumIEEE(b[64:252]))
	return b
}
