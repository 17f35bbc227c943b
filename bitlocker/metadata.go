package bitlocker

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"time"
)

// Errors that the callers can test with errors.Is.
var (
	// ErrNotBitLocker: the first sector has neither BitLocker signature.
	ErrNotBitLocker = errors.New("bitlocker: not a BitLocker volume")
	// ErrCorrupt: no copy of the FVE metadata is intact, or the intact one
	// contradicts the volume header.
	ErrCorrupt = errors.New("bitlocker: corrupt metadata")
	// ErrUnsupported: the volume is BitLocker but cannot be opened; the
	// error's text names the reason (Vista metadata, encrypt-on-write or a
	// conversion in progress, only TPM or smart-card protectors, ...).
	ErrUnsupported = errors.New("bitlocker: unsupported volume")
	// ErrWrongSecret: no protector of the volume accepts the secret.
	ErrWrongSecret = errors.New("bitlocker: wrong password, recovery password or key")
)

// MetadataAreaSize is the length of each of the three FVE metadata areas of
// Windows 7 and later (they read as zeros through the volume).
const MetadataAreaSize = 65536

const (
	blockHeaderSize = 64
	metaHeaderSize  = 48
	stateNormal     = 4 // the block header's state when no conversion runs
)

// Metadata is what a BitLocker volume says about itself (everything
// `cryptsetup bitlkDump` prints, and more).
type Metadata struct {
	Version        int  // FVE metadata block version: 1 Windows Vista, 2 Windows 7 and later
	ToGo           bool // BitLocker To Go: a FAT discovery volume in front ("MSWIN4.1")
	EncryptOnWrite bool // the volume header's identifier says encrypt-on-write
	Identifier     GUID // the BitLocker identifier in the volume header

	GUID        GUID      // the volume's identifier
	SectorSize  int       // bytes per sector
	VolumeSize  int64     // bytes of the volume (the block header's encrypted volume size)
	Created     time.Time // the metadata header's creation time
	Description string    // drive label: computer, drive letter, date
	Method      Method    // data encryption method
	MethodHigh  uint16    // the upper half of the method field (informational)
	NonceCount  uint32    // the next nonce counter

	State, NextState uint16 // block header states: 4 and 4 when no conversion runs

	Protectors []Protector
	FVEKSize   int // the FVEK entry's encrypted key data, in bytes (cryptsetup's "Key data size")

	MetadataOffsets [3]int64 // the three FVE metadata areas
	MetadataSize    int64    // each area's length (MetadataAreaSize)
	HeaderOffset    int64    // where the volume's first sectors are stored, encrypted
	HeaderSize      int64    // how many bytes of them

	Copy       int      // which metadata copy (0, 1, 2) this was read from
	CopyErrors [3]error // why the copies before it (or any copy) were refused; nil if intact

	Entries []Entry // the top-level metadata entries, as stored

	block  []byte // the chosen block: header, metadata and validation
	valLen int    // the part of block the validation covers
	fvek   Entry  // the FVEK entry
}

// Protector is a volume master key (VMK) entry: one way to unlock the volume
// (cryptsetup calls it a keyslot).
type Protector struct {
	GUID        GUID
	Type        ProtectionType
	Modified    time.Time
	Salt        []byte // the stretch key's salt (password, recovery password); nil if none
	KeyDataSize int    // bytes of the encrypted VMK (cryptsetup's "Key data size")
	Description string // e.g. "DiskPassword", "ExternalKey" when present

	entry Entry
}

// readFull reads len(p) bytes at off; a short read is an error naming what.
func readFull(r io.ReaderAt, p []byte, off int64, what string) error {
	n, err := r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("bitlocker: reading %s at %d: %w", what, off, err)
}

// ReadMetadata reads the volume header and the FVE metadata. It uses the
// first of the three copies that is intact (its CRC-32 matches) and refuses
// one that contradicts the volume header. Volumes that Open refuses (Vista,
// encrypt-on-write, TPM-only) still have their metadata read.
func ReadMetadata(r io.ReaderAt) (*Metadata, error) {
	var hdr [512]byte
	if err := readFull(r, hdr[:], 0, "the volume header"); err != nil {
		return nil, err
	}
	m := &Metadata{}
	var offs [3]int64
	bps := int(binary.LittleEndian.Uint16(hdr[11:13]))
	switch {
	case string(hdr[3:11]) == "-FVE-FS-" && hdr[0] == 0xeb && hdr[1] == 0x52:
		// Windows Vista: the first metadata block is at a cluster number.
		m.Version = 1
		spc := int64(hdr[13])
		cl := binary.LittleEndian.Uint64(hdr[56:64])
		if bps == 0 || spc == 0 || cl > 1<<40 {
			return nil, fmt.Errorf("%w: Vista header with metadata at cluster %d (%d bytes per sector, %d per cluster)", ErrCorrupt, cl, bps, spc)
		}
		offs[0] = int64(cl) * spc * int64(bps)
	case string(hdr[3:11]) == "-FVE-FS-":
		m.Version = 2
		copy(m.Identifier[:], hdr[160:176])
		for i := range offs {
			offs[i] = int64(binary.LittleEndian.Uint64(hdr[176+8*i:]))
		}
	case string(hdr[3:11]) == "MSWIN4.1":
		m.Version = 2
		m.ToGo = true
		copy(m.Identifier[:], hdr[424:440])
		for i := range offs {
			offs[i] = int64(binary.LittleEndian.Uint64(hdr[440+8*i:]))
		}
	default:
		return nil, ErrNotBitLocker
	}
	if m.Version == 2 {
		switch m.Identifier {
		case guidNormal:
		case guidEOW:
			m.EncryptOnWrite = true
		default:
			if m.ToGo {
				// A FAT volume with the signature but without BitLocker's GUID.
				return nil, fmt.Errorf("%w (MSWIN4.1 without the BitLocker identifier; found %v)", ErrNotBitLocker, m.Identifier)
			}
			return nil, fmt.Errorf("%w: unknown BitLocker identifier %v in the volume header", ErrUnsupported, m.Identifier)
		}
	}
	if bps != 512 && bps != 1024 && bps != 2048 && bps != 4096 {
		return nil, fmt.Errorf("%w: sector size %d (want 512, 1024, 2048 or 4096)", ErrCorrupt, bps)
	}
	m.SectorSize = bps

	block := make([]byte, MetadataAreaSize)
	var firstErr error
	for i := 0; i < 3; i++ {
		if m.Version == 1 && i > 0 {
			break // Vista: the other offsets come from the first block
		}
		if offs[i] <= 0 || offs[i]%512 != 0 {
			m.CopyErrors[i] = fmt.Errorf("%w: metadata copy %d at offset %d is not on a sector", ErrCorrupt, i, offs[i])
			continue
		}
		n, err := r.ReadAt(block, offs[i])
		if n < blockHeaderSize+metaHeaderSize {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			m.CopyErrors[i] = fmt.Errorf("bitlocker: reading metadata copy %d at %d: %w", i, offs[i], err)
			continue
		}
		if err := m.parseBlock(block[:n], i, offs); err != nil {
			m.CopyErrors[i] = err
			continue
		}
		m.Copy = i
		for j := i + 1; j < 3; j++ {
			m.CopyErrors[j] = nil
		}
		return m, nil
	}
	for _, err := range m.CopyErrors {
		if err != nil {
			firstErr = err
			break
		}
	}
	if firstErr == nil {
		firstErr = fmt.Errorf("%w: no metadata copy", ErrCorrupt)
	}
	return nil, fmt.Errorf("%w: no intact FVE metadata copy; first: %w", ErrCorrupt, firstErr)
}

// parseBlock fills m from metadata block copy i; on error m may be partly
// filled and the caller tries the next copy.
func (m *Metadata) parseBlock(b []byte, i int, hdrOffs [3]int64) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: metadata copy %d: %s", ErrCorrupt, i, fmt.Sprintf(format, a...))
	}
	if string(b[0:8]) != "-FVE-FS-" {
		return bad("no -FVE-FS- signature")
	}
	ver := int(binary.LittleEndian.Uint16(b[10:12]))
	if ver != m.Version {
		return bad("block version %d in a version %d volume header", ver, m.Version)
	}
	m.State = binary.LittleEndian.Uint16(b[12:14])
	m.NextState = binary.LittleEndian.Uint16(b[14:16])
	for j := range m.MetadataOffsets {
		m.MetadataOffsets[j] = int64(binary.LittleEndian.Uint64(b[32+8*j:]))
	}
	m.MetadataSize = MetadataAreaSize
	if m.Version == 2 {
		if m.MetadataOffsets != hdrOffs {
			return bad("metadata offsets %v differ from the volume header's %v", m.MetadataOffsets, hdrOffs)
		}
		m.VolumeSize = int64(binary.LittleEndian.Uint64(b[16:24]))
		m.HeaderOffset = int64(binary.LittleEndian.Uint64(b[56:64]))
		m.HeaderSize = int64(binary.LittleEndian.Uint32(b[28:32])) * int64(m.SectorSize)
	} else if m.MetadataOffsets[0] != hdrOffs[0] {
		return bad("first metadata offset %d differs from the volume header's %d", m.MetadataOffsets[0], hdrOffs[0])
	}

	// The metadata header and its entries.
	mh := b[blockHeaderSize:]
	msize := int(binary.LittleEndian.Uint32(mh[0:4]))
	if v := binary.LittleEndian.Uint32(mh[4:8]); v != 1 {
		return bad("metadata header version %d", v)
	}
	if hs := binary.LittleEndian.Uint32(mh[8:12]); hs != metaHeaderSize {
		return bad("metadata header size %d", hs)
	}
	if msize < metaHeaderSize || msize > len(mh) {
		return bad("metadata size %d out of range", msize)
	}
	if c := int(binary.LittleEndian.Uint32(mh[12:16])); c != msize {
		return bad("metadata size %d and its copy %d differ", msize, c)
	}

	// Validation (version 2): the CRC-32 of the block up to the validation
	// structure, which starts at the block size (in 16-byte units).
	if m.Version == 2 {
		v := int(binary.LittleEndian.Uint16(b[8:10])) * 16
		if v < blockHeaderSize+msize || v+8 > len(b) {
			return bad("block size %d does not hold the %d bytes of metadata", v, msize)
		}
		want := binary.LittleEndian.Uint32(b[v+4 : v+8])
		if got := crc32.ChecksumIEEE(b[:v]); got != want {
			return bad("CRC-32 %08x, the validation says %08x", got, want)
		}
		m.valLen = v
		// The block is kept (header, metadata, validation and its entry).
		end := min(len(b), v+8+0x200)
		m.block = bytes.Clone(b[:end])
	} else {
		m.block = bytes.Clone(b[:blockHeaderSize+msize])
	}
	mh = m.block[blockHeaderSize:]

	copy(m.GUID[:], mh[16:32])
	m.NonceCount = binary.LittleEndian.Uint32(mh[32:36])
	m.Method = Method(binary.LittleEndian.Uint16(mh[36:38]))
	m.MethodHigh = binary.LittleEndian.Uint16(mh[38:40])
	m.Created = filetime(binary.LittleEndian.Uint64(mh[40:48]))

	entries, err := parseEntries(mh[metaHeaderSize:msize])
	if err != nil {
		return fmt.Errorf("%w: metadata copy %d: %w", ErrCorrupt, i, err)
	}
	m.Entries = entries
	m.Protectors = nil
	m.fvek = Entry{}
	m.FVEKSize = 0
	for _, e := range entries {
		switch {
		case e.Type == EntryDescription && e.ValueType == ValueUnicode:
			m.Description = utf16le(e.Data)
		case e.Type == EntryVMK && e.ValueType == ValueVMK:
			p, err := parseProtector(e)
			if err != nil {
				return fmt.Errorf("%w: metadata copy %d: %w", ErrCorrupt, i, err)
			}
			m.Protectors = append(m.Protectors, p)
		case e.Type == EntryFVEK && e.ValueType == ValueAESCCM:
			if m.fvek.Data != nil {
				return bad("two FVEK entries")
			}
			if len(e.Data) < 28 {
				return bad("FVEK entry of %d bytes", len(e.Data))
			}
			m.fvek = e
			m.FVEKSize = len(e.Data) - 28
		case e.Type == EntryVolumeHeader && e.ValueType == ValueOffsetAndSize:
			if len(e.Data) < 8 {
				return bad("volume header entry of %d bytes", len(e.Data))
			}
			m.HeaderOffset = int64(binary.LittleEndian.Uint64(e.Data[0:8]))
			if len(e.Data) >= 16 {
				m.HeaderSize = int64(binary.LittleEndian.Uint64(e.Data[8:16]))
			}
		}
	}
	if m.Version == 2 {
		if m.HeaderOffset < 0 || m.HeaderSize < 0 || m.HeaderOffset%int64(m.SectorSize) != 0 || m.HeaderSize%int64(m.SectorSize) != 0 {
			return bad("relocated volume header at %d, %d bytes, is not whole sectors", m.HeaderOffset, m.HeaderSize)
		}
		if m.VolumeSize <= 0 || m.VolumeSize%int64(m.SectorSize) != 0 {
			return bad("volume size %d is not a positive number of sectors", m.VolumeSize)
		}
		for j, o := range m.MetadataOffsets {
			if o <= 0 || o%int64(m.SectorSize) != 0 || o > m.VolumeSize-MetadataAreaSize {
				return bad("metadata area %d at %d lies off the sectors of the %d-byte volume", j, o, m.VolumeSize)
			}
		}
		if m.HeaderOffset+m.HeaderSize > m.VolumeSize || m.HeaderSize > m.VolumeSize/2 {
			return bad("relocated volume header [%d, +%d) outside the %d-byte volume", m.HeaderOffset, m.HeaderSize, m.VolumeSize)
		}
	}
	return nil
}

func parseProtector(e Entry) (Protector, error) {
	if len(e.Data) < 28 {
		return Protector{}, fmt.Errorf("bitlocker: VMK entry of %d bytes is too short", len(e.Data))
	}
	p := Protector{entry: e}
	copy(p.GUID[:], e.Data[0:16])
	p.Modified = filetime(binary.LittleEndian.Uint64(e.Data[16:24]))
	p.Type = ProtectionType(binary.LittleEndian.Uint16(e.Data[26:28]))
	kids, err := e.Children()
	if err != nil {
		return p, fmt.Errorf("bitlocker: VMK %v: %w", p.GUID, err)
	}
	for _, k := range kids {
		switch k.ValueType {
		case ValueStretchKey:
			if len(k.Data) < 20 {
				return p, fmt.Errorf("bitlocker: VMK %v: stretch key of %d bytes", p.GUID, len(k.Data))
			}
			p.Salt = bytes.Clone(k.Data[4:20])
		case ValueAESCCM:
			if p.KeyDataSize == 0 && len(k.Data) >= 28 {
				p.KeyDataSize = len(k.Data) - 28
			}
		case ValueUnicode:
			p.Description = utf16le(k.Data)
		}
	}
	return p, nil
}
