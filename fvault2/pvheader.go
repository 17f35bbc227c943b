package fvault2

import (
	"encoding/binary"
	"fmt"
)

// The Core Storage physical volume header: the first 512 bytes of the
// partition, little-endian, checksummed with weak CRC-32C. Offsets as in
// libfvde's "FileVault Drive Encryption (FVDE)" format document.
const (
	pvHeaderSize = 512

	pvVersionOff      = 8   // uint16, 1
	pvBlockTypeOff    = 10  // uint16, 0x0010
	pvBytesPerSectOff = 48  // uint32
	pvSizeOff         = 64  // uint64, bytes
	pvSignatureOff    = 88  // "CS"
	pvChecksumAlgOff  = 90  // uint32, 1 = CRC-32C
	pvBlockSizeOff    = 96  // uint32
	pvMetadataSizeOff = 100 // uint32, bytes
	pvMetadataOff     = 104 // 4 x uint64 block numbers
	pvKeyDataSizeOff  = 168 // uint32, 16
	pvEncMethodOff    = 172 // uint32, 2 = AES-XTS
	pvKeyDataOff      = 176 // 16 bytes (of a 128-byte field)
	pvUUIDOff         = 304 // 16 bytes, big-endian UUID
	pvGroupUUIDOff    = 320 // 16 bytes, big-endian UUID

	pvBlockType   = 0x0010
	pvMetadataMax = 4
	encAESXTS     = 2
)

// pvHeader is the parsed physical volume header.
type pvHeader struct {
	bytesPerSector uint32
	pvSize         uint64
	blockSize      uint32
	metadataSize   uint32
	metadataBlocks []uint64 // the non-zero ones
	keyData        [16]byte
	pvUUID         UUID
	groupUUID      UUID
}

// parsePVHeader checks and parses the 512-byte physical volume header b.
func parsePVHeader(b []byte) (*pvHeader, error) {
	if len(b) < pvHeaderSize {
		return nil, fmt.Errorf("fvault2: physical volume header: %d bytes, want %d", len(b), pvHeaderSize)
	}
	b = b[:pvHeaderSize]
	if string(b[pvSignatureOff:pvSignatureOff+2]) != "CS" {
		return nil, ErrNotFVault2
	}
	le := binary.LittleEndian
	if v := le.Uint16(b[pvVersionOff:]); v != 1 {
		return nil, fmt.Errorf("%w: Core Storage version %d (only 1 is known)", ErrUnsupported, v)
	}
	if t := le.Uint16(b[pvBlockTypeOff:]); t != pvBlockType {
		return nil, fmt.Errorf("%w: physical volume header block type %#04x, want %#04x", ErrNotFVault2, t, pvBlockType)
	}
	if a := le.Uint32(b[pvChecksumAlgOff:]); a != 1 {
		return nil, fmt.Errorf("%w: checksum algorithm %d (only 1, CRC-32C, is known)", ErrUnsupported, a)
	}
	if !checksumOK(b) {
		return nil, fmt.Errorf("fvault2: physical volume header checksum mismatch")
	}
	h := &pvHeader{
		bytesPerSector: le.Uint32(b[pvBytesPerSectOff:]),
		pvSize:         le.Uint64(b[pvSizeOff:]),
		blockSize:      le.Uint32(b[pvBlockSizeOff:]),
		metadataSize:   le.Uint32(b[pvMetadataSizeOff:]),
	}
	if !powerOfTwo(h.bytesPerSector, 512, 4096) {
		return nil, fmt.Errorf("fvault2: physical volume header: %d bytes per sector (want 512 to 4096, a power of two)", h.bytesPerSector)
	}
	if !powerOfTwo(h.blockSize, 512, 1<<20) || h.blockSize < h.bytesPerSector {
		return nil, fmt.Errorf("fvault2: physical volume header: block size %d (want a power of two from the sector size to 1 MiB)", h.blockSize)
	}
	if h.metadataSize < metadataBlockSize || h.metadataSize > 1<<30 {
		return nil, fmt.Errorf("fvault2: physical volume header: metadata size %d (want %d bytes to 1 GiB)", h.metadataSize, metadataBlockSize)
	}
	for i := range pvMetadataMax {
		if n := le.Uint64(b[pvMetadataOff+8*i:]); n != 0 {
			h.metadataBlocks = append(h.metadataBlocks, n)
		}
	}
	if len(h.metadataBlocks) == 0 {
		return nil, fmt.Errorf("fvault2: physical volume header names no metadata block")
	}
	if n := le.Uint32(b[pvKeyDataSizeOff:]); n != 16 {
		return nil, fmt.Errorf("%w: metadata key of %d bytes (want 16)", ErrUnsupported, n)
	}
	if m := le.Uint32(b[pvEncMethodOff:]); m != encAESXTS {
		return nil, fmt.Errorf("%w: encryption method %d (only 2, AES-XTS, is known)", ErrUnsupported, m)
	}
	copy(h.keyData[:], b[pvKeyDataOff:])
	copy(h.pvUUID[:], b[pvUUIDOff:])
	copy(h.groupUUID[:], b[pvGroupUUIDOff:])
	return h, nil
}

// powerOfTwo reports whether v is a power of two in [lo, hi].
func powerOfTwo(v, lo, hi uint32) bool {
	return v >= lo && v <= hi && v&(v-1) == 0
}
