package fvault2

import (
	"encoding/hex"
	"fmt"
)

// UUID is a Core Storage identifier, stored big-endian (RFC 4122 byte
// order) in headers and written as text in the XML metadata.
type UUID [16]byte

// String formats u as lower-case 8-4-4-4-12 hex digits, as cryptsetup
// prints it.
func (u UUID) String() string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:36], u[10:16])
	return string(b[:])
}

// ParseUUID parses the 8-4-4-4-12 hex form, in either case.
func ParseUUID(s string) (UUID, error) {
	var u UUID
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, fmt.Errorf("fvault2: %q is not a UUID", s)
	}
	j := 0
	for i := 0; i < 36; {
		if s[i] == '-' {
			i++
			continue
		}
		if _, err := hex.Decode(u[j:j+1], []byte(s[i:i+2])); err != nil {
			return UUID{}, fmt.Errorf("fvault2: %q is not a UUID", s)
		}
		i += 2
		j++
	}
	return u, nil
}
