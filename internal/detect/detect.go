// Package detect names the disk-encryption format of a device or image
// from its header bytes, as blkid recognises them: LUKS1 and LUKS2,
// BitLocker (and BitLocker To Go) and FileVault 2 (Core Storage).
// VeraCrypt, TrueCrypt and plain dm-crypt have no recognisable header:
// their data is indistinguishable from random bytes, so the caller must
// name them.
package detect

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// Format is a disk-encryption format's name, as the xts command line
// names it.
type Format string

// The formats Detect recognises.
const (
	LUKS1         Format = "luks1"
	LUKS2         Format = "luks2"
	BitLocker     Format = "bitlocker"
	BitLockerToGo Format = "bitlocker-to-go"
	FVault2       Format = "fvault2" // Core Storage (FileVault 2)
)

// ErrUnknown is Detect's error when no header it knows is there.
var ErrUnknown = errors.New("detect: no known header: VeraCrypt/TrueCrypt and plain dm-crypt have none; name the type")

// headerSize is how much of the start Detect reads: every check but
// BitLocker's metadata block lies within it.
const headerSize = 512

// Detect reads the start of r (and, for BitLocker, the FVE metadata block
// its boot sector points to) and returns the format found there. It
// returns "" and ErrUnknown when no header matches, and "" with another
// error when reading fails or a LUKS header has a version it does not
// know. Short devices are fine: what is not there does not match.
func Detect(r io.ReaderAt) (Format, error) {
	b, err := readAt(r, 0, headerSize)
	if err != nil {
		return "", err
	}
	if f, err := luks(b); f != "" || err != nil {
		return f, err
	}
	if coreStorage(b) {
		return FVault2, nil
	}
	if f, err := bitLocker(r, b); f != "" || err != nil {
		return f, err
	}
	return "", ErrUnknown
}

// readAt reads up to n bytes at off; a short read at the end of r is no
// error (the bytes that are there are returned).
func readAt(r io.ReaderAt, off int64, n int) ([]byte, error) {
	b := make([]byte, n)
	m, err := r.ReadAt(b, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("detect: reading %d bytes at %d: %w", n, off, err)
	}
	return b[:m], nil
}

// luks: "LUKS\xba\xbe" and a big-endian version 1 or 2 (the primary
// header only; LUKS2's secondary copies are not looked for).
func luks(b []byte) (Format, error) {
	if len(b) < 8 || string(b[:6]) != "LUKS\xba\xbe" {
		return "", nil
	}
	switch v := binary.BigEndian.Uint16(b[6:]); v {
	case 1:
		return LUKS1, nil
	case 2:
		return LUKS2, nil
	default:
		return "", fmt.Errorf("detect: LUKS header version %d (only 1 and 2 are known)", v)
	}
}

// coreStorage: the Core Storage physical volume header ("CS" at 88,
// version 1, block type 0x0010, and its weak CRC-32C over bytes 8 to
// 512 from the initial value at 4).
func coreStorage(b []byte) bool {
	if len(b) < headerSize || string(b[88:90]) != "CS" {
		return false
	}
	le := binary.LittleEndian
	if le.Uint16(b[8:]) != 1 || le.Uint16(b[10:]) != 0x0010 {
		return false
	}
	// crc32's own table, built at the first call (fvault2/crc.go says why).
	sum := ^crc32.Update(^le.Uint32(b[4:]), crc32.MakeTable(crc32.Castagnoli), b[8:headerSize])
	return sum == le.Uint32(b[0:])
}

// bdeGUID is the BitLocker GUID 4967d63b-2e29-4ad8-8399-f6a339e3d001 in
// its on-disk (mixed-endian) byte order.
var bdeGUID = []byte{0x3b, 0xd6, 0x67, 0x49, 0x29, 0x2e, 0xd8, 0x4a, 0x83, 0x99, 0xf6, 0xa3, 0x39, 0xe3, 0xd0, 0x01}

// bitLocker: a boot sector whose OEM identifier (offset 3) is
// "-FVE-FS-" (BitLocker: with the jump EB 52 90, Vista's, the first FVE
// metadata offset is at 56; with EB 58 90, Windows 7's and later, at 176)
// or "MSWIN4.1" with the jump EB 58 90, the BitLocker GUID at 424 and the
// offset at 440 (BitLocker To Go, whose boot sector is a FAT32 one for
// old readers). As blkid does, the FVE metadata block there must start
// with "-FVE-FS-" and have version 1 or 2.
func bitLocker(r io.ReaderAt, b []byte) (Format, error) {
	if len(b) < headerSize {
		return "", nil
	}
	le := binary.LittleEndian
	var f Format
	var off uint64
	switch string(b[:11]) {
	case "\xeb\x52\x90-FVE-FS-":
		f, off = BitLocker, le.Uint64(b[56:])
	case "\xeb\x58\x90-FVE-FS-":
		f, off = BitLocker, le.Uint64(b[176:])
	case "\xeb\x58\x90MSWIN4.1":
		if !bytes.Equal(b[424:440], bdeGUID) {
			return "", nil // a FAT32 file system
		}
		f, off = BitLockerToGo, le.Uint64(b[440:])
	default:
		return "", nil
	}
	if off == 0 || off > 1<<62 {
		return "", nil
	}
	m, err := readAt(r, int64(off), 12)
	if err != nil {
		return "", err
	}
	if len(m) < 12 || string(m[:8]) != "-FVE-FS-" {
		return "", nil
	}
	if v := le.Uint16(m[10:]); v != 1 && v != 2 {
		return "", nil
	}
	return f, nil
}
