package bitlocker

import (
	"encoding/binary"
	"fmt"
	"unicode/utf16"
)

// EntryType is an FVE metadata entry's type (what the entry is for).
type EntryType uint16

// Entry types.
const (
	EntryProperty     EntryType = 0x0000 // a property nested in another entry
	EntryVMK          EntryType = 0x0002 // a volume master key protector
	EntryFVEK         EntryType = 0x0003 // the full volume encryption key
	EntryValidation   EntryType = 0x0004
	EntryStartupKey   EntryType = 0x0006 // the external key of a .BEK file
	EntryDescription  EntryType = 0x0007 // the drive label: computer, drive, date
	EntryFVEKBackup   EntryType = 0x000b
	EntryVolumeHeader EntryType = 0x000f // where the relocated boot sectors are
)

// ValueType is the type of an FVE metadata entry's value.
type ValueType uint16

// Value types.
const (
	ValueErased        ValueType = 0x0000
	ValueKey           ValueType = 0x0001 // encryption method (4 bytes), key
	ValueUnicode       ValueType = 0x0002 // UTF-16LE string
	ValueStretchKey    ValueType = 0x0003 // method, 16-byte salt, nested entries
	ValueUseKey        ValueType = 0x0004
	ValueAESCCM        ValueType = 0x0005 // FILETIME, counter (the nonce), tag, data
	ValueTPM           ValueType = 0x0006
	ValueValidation    ValueType = 0x0007
	ValueVMK           ValueType = 0x0008 // GUID, time, protection, nested entries
	ValueExternalKey   ValueType = 0x0009 // GUID, time, nested entries
	ValueUpdate        ValueType = 0x000a
	ValueError         ValueType = 0x000b
	ValueOffsetAndSize ValueType = 0x000f
)

// Entry is one FVE metadata entry: an 8-byte header (size, type, value type,
// version) and its data.
type Entry struct {
	Type      EntryType
	ValueType ValueType
	Version   uint16
	Data      []byte // the value, after the 8-byte header
}

// parseEntries splits b into entries. A size of zero ends the list (the
// padding after the last entry); a size below 8 or past the end is an error.
func parseEntries(b []byte) ([]Entry, error) {
	var out []Entry
	for len(b) >= 8 {
		size := int(binary.LittleEndian.Uint16(b[0:2]))
		if size == 0 {
			break
		}
		if size < 8 || size > len(b) {
			return nil, fmt.Errorf("bitlocker: metadata entry size %d out of range (%d bytes left)", size, len(b))
		}
		out = append(out, Entry{
			Type:      EntryType(binary.LittleEndian.Uint16(b[2:4])),
			ValueType: ValueType(binary.LittleEndian.Uint16(b[4:6])),
			Version:   binary.LittleEndian.Uint16(b[6:8]),
			Data:      b[8:size],
		})
		b = b[size:]
	}
	return out, nil
}

// Children parses the entries nested in e: those of a VMK (after 28 bytes),
// a stretch key (after 20), an external key (after 24) or a use key (after
// 4); nil for other value types.
func (e Entry) Children() ([]Entry, error) {
	skip := -1
	switch e.ValueType {
	case ValueVMK:
		skip = 28
	case ValueStretchKey:
		skip = 20
	case ValueExternalKey:
		skip = 24
	case ValueUseKey:
		skip = 4
	}
	if skip < 0 {
		return nil, nil
	}
	if len(e.Data) < skip {
		return nil, fmt.Errorf("bitlocker: %v entry of %d bytes is too short", e.ValueType, len(e.Data))
	}
	return parseEntries(e.Data[skip:])
}

// String returns the text of a Unicode entry.
func (e Entry) String() string {
	if e.ValueType != ValueUnicode {
		return fmt.Sprintf("entry type %#04x value type %#04x (%d bytes)", uint16(e.Type), uint16(e.ValueType), len(e.Data))
	}
	return utf16le(e.Data)
}

func utf16le(b []byte) string {
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		c := binary.LittleEndian.Uint16(b[i:])
		if c == 0 {
			break
		}
		u = append(u, c)
	}
	return string(utf16.Decode(u))
}

// String names a value type.
func (v ValueType) String() string {
	switch v {
	case ValueErased:
		return "erased"
	case ValueKey:
		return "key"
	case ValueUnicode:
		return "unicode string"
	case ValueStretchKey:
		return "stretch key"
	case ValueUseKey:
		return "use key"
	case ValueAESCCM:
		return "AES-CCM encrypted key"
	case ValueTPM:
		return "TPM encoded key"
	case ValueValidation:
		return "validation"
	case ValueVMK:
		return "volume master key"
	case ValueExternalKey:
		return "external key"
	case ValueUpdate:
		return "update"
	case ValueError:
		return "error"
	case ValueOffsetAndSize:
		return "offset and size"
	}
	return fmt.Sprintf("value type %#04x", uint16(v))
}

// ccmKey is an AES-CCM encrypted key entry's parts.
type ccmKey struct {
	nonce [12]byte
	tag   []byte // 16 bytes
	data  []byte // ciphertext
}

func parseCCM(e Entry) (ccmKey, error) {
	var k ccmKey
	if e.ValueType != ValueAESCCM {
		return k, fmt.Errorf("bitlocker: expected an AES-CCM entry, found %v", e.ValueType)
	}
	if len(e.Data) < 12+16 {
		return k, fmt.Errorf("bitlocker: AES-CCM entry of %d bytes is too short", len(e.Data))
	}
	copy(k.nonce[:], e.Data[:12])
	k.tag = e.Data[12:28]
	k.data = e.Data[28:]
	return k, nil
}
