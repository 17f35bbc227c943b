package bitlocker

import (
	"encoding/binary"
	"fmt"
	"time"
)

// GUID is a Microsoft GUID as stored on disk: the first three fields
// little-endian, the last eight bytes in order.
type GUID [16]byte

// String formats g as cryptsetup and Windows do, in lower case:
// 8f595209-f5b9-49a0-85d4-cb8f80258c27.
func (g GUID) String() string {
	return fmt.Sprintf("%08x-%04x-%04x-%x-%x",
		binary.LittleEndian.Uint32(g[0:4]), binary.LittleEndian.Uint16(g[4:6]),
		binary.LittleEndian.Uint16(g[6:8]), g[8:10], g[10:16])
}

// ParseGUID parses the textual form that String writes (either case, with
// or without braces).
func ParseGUID(s string) (GUID, error) {
	var g GUID
	if len(s) == 38 && s[0] == '{' && s[37] == '}' {
		s = s[1:37]
	}
	var a uint32
	var b, c uint16
	var d, e []byte
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return g, fmt.Errorf("bitlocker: %q is not a GUID", s)
	}
	if _, err := fmt.Sscanf(s, "%08x-%04x-%04x-%4x-%12x", &a, &b, &c, &d, &e); err != nil || len(d) != 2 || len(e) != 6 {
		return g, fmt.Errorf("bitlocker: %q is not a GUID", s)
	}
	binary.LittleEndian.PutUint32(g[0:4], a)
	binary.LittleEndian.PutUint16(g[4:6], b)
	binary.LittleEndian.PutUint16(g[6:8], c)
	copy(g[8:10], d)
	copy(g[10:16], e)
	return g, nil
}

// The BitLocker identifiers in the volume header: a normal volume and one
// encrypted on write (used space only, or a conversion in progress).
var (
	guidNormal = mustGUID("4967d63b-2e29-4ad8-8399-f6a339e3d001")
	guidEOW    = mustGUID("92a84d3b-dd80-4d0e-9e4e-b1e3284eaed8")
)

func mustGUID(s string) GUID {
	g, err := ParseGUID(s)
	if err != nil {
		panic(err)
	}
	return g
}

// filetime converts a Windows FILETIME (100 ns since 1601-01-01 UTC).
func filetime(ft uint64) time.Time {
	if ft == 0 {
		return time.Time{}
	}
	const epochDiff = 116444736000000000 // 1601 to 1970 in 100 ns units
	if ft < epochDiff {
		sec := (epochDiff - ft) / 10000000
		return time.Unix(-int64(sec), 0).UTC()
	}
	d := ft - epochDiff
	return time.Unix(int64(d/10000000), int64(d%10000000)*100).UTC()
}
