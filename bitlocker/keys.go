package bitlocker

import (
	"crypto/aes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf16"
)

type secretKind int

const (
	secretNone secretKind = iota
	secretPassword
	secretRecovery
	secretStartupKey
	secretVolumeKey
	secretClearKey
)

// Secret is what unlocks a volume: make one with Password,
// RecoveryPassword, StartupKey, VolumeKey or ClearKey. The zero Secret
// unlocks nothing.
type Secret struct {
	kind secretKind
	data []byte
	err  error // a recovery password that does not parse
}

// Password is a user password (a "passphrase" protector), as typed.
func Password(p string) Secret {
	u := utf16.Encode([]rune(p))
	b := make([]byte, 2*len(u))
	for i, c := range u {
		binary.LittleEndian.PutUint16(b[2*i:], c)
	}
	return Secret{kind: secretPassword, data: b}
}

// RecoveryPassword is the 48-digit recovery password: 8 groups of 6
// digits, with or without dashes (spaces are ignored too). A malformed one
// makes Open fail with an error that says why.
func RecoveryPassword(s string) Secret {
	k, err := ParseRecoveryPassword(s)
	if err != nil {
		return Secret{kind: secretRecovery, err: err}
	}
	return Secret{kind: secretRecovery, data: k[:]}
}

// StartupKey is the content of a startup key file ({GUID}.BEK).
func StartupKey(bek []byte) Secret {
	return Secret{kind: secretStartupKey, data: append([]byte(nil), bek...)}
}

// VolumeKey is the volume key itself (as FVEK returns it, Method.KeySize
// bytes); no protector is used.
func VolumeKey(fvek []byte) Secret {
	return Secret{kind: secretVolumeKey, data: append([]byte(nil), fvek...)}
}

// ClearKey opens a volume whose protection is suspended: its VMK is stored
// under a key kept unencrypted in the metadata.
func ClearKey() Secret { return Secret{kind: secretClearKey} }

// ParseRecoveryPassword turns a recovery password into its 16-byte key:
// each 6-digit group is a multiple of 11 below 720896, and the quotient is a
// 16-bit little-endian word of the key.
func ParseRecoveryPassword(s string) ([16]byte, error) {
	var k [16]byte
	s = strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' {
			return -1
		}
		return r
	}, s)
	var groups []string
	if strings.Contains(s, "-") {
		groups = strings.Split(s, "-")
	} else if len(s) == 48 {
		for i := 0; i < 48; i += 6 {
			groups = append(groups, s[i:i+6])
		}
	}
	if len(groups) != 8 {
		return k, errors.New("bitlocker: a recovery password has 8 groups of 6 digits")
	}
	for i, g := range groups {
		if len(g) != 6 {
			return k, fmt.Errorf("bitlocker: recovery password group %d has %d characters, want 6 digits", i+1, len(g))
		}
		v := 0
		for _, c := range g {
			if c < '0' || c > '9' {
				return k, fmt.Errorf("bitlocker: recovery password group %d holds %q, not only digits", i+1, g)
			}
			v = v*10 + int(c-'0')
		}
		if v%11 != 0 {
			return k, fmt.Errorf("bitlocker: recovery password group %d (%s) is not a multiple of 11", i+1, g)
		}
		if v >= 720896 {
			return k, fmt.Errorf("bitlocker: recovery password group %d (%s) is not below 720896", i+1, g)
		}
		binary.LittleEndian.PutUint16(k[2*i:], uint16(v/11))
	}
	return k, nil
}

// stretchIterations is the number of SHA-256 calls of the key stretch.
const stretchIterations = 0x100000

// stretch derives the key that unlocks a password or recovery password
// protector: a 88-byte record (last hash, initial hash, salt, 64-bit
// counter) hashed 2^20 times, each hash replacing the last and the counter
// counting up.
func stretch(initial [32]byte, salt []byte) [32]byte {
	var rec [88]byte
	copy(rec[32:64], initial[:])
	copy(rec[64:80], salt)
	var last [32]byte
	for i := uint64(0); i < stretchIterations; i++ {
		binary.LittleEndian.PutUint64(rec[80:], i)
		last = sha256.Sum256(rec[:])
		copy(rec[0:32], last[:])
	}
	clear(rec[:])
	return last
}

// passwordKey is the stretch of SHA-256(SHA-256(UTF-16LE password)).
func passwordKey(utf16le, salt []byte) [32]byte {
	h := sha256.Sum256(utf16le)
	h = sha256.Sum256(h[:])
	k := stretch(h, salt)
	clear(h[:])
	return k
}

// recoveryKey is the stretch of SHA-256 of the 16-byte recovery key.
func recoveryKey(key, salt []byte) [32]byte {
	h := sha256.Sum256(key)
	k := stretch(h, salt)
	clear(h[:])
	return k
}

// decryptKeyEntry decrypts an AES-CCM entry with a 256-bit key and returns
// the key it holds: the decrypted data is a key entry (8-byte header,
// 4-byte method, key). The method is returned too.
func decryptKeyEntry(e Entry, key []byte) ([]byte, Method, error) {
	c, err := parseCCM(e)
	if err != nil {
		return nil, 0, err
	}
	plain, err := unwrapCCM(c, key)
	if err != nil {
		return nil, 0, err
	}
	defer clear(plain)
	ents, err := parseEntries(plain)
	if err != nil || len(ents) != 1 || ents[0].ValueType != ValueKey || len(ents[0].Data) < 4 {
		return nil, 0, fmt.Errorf("%w: the decrypted key is not a key entry", ErrCorrupt)
	}
	d := ents[0].Data
	return append([]byte(nil), d[4:]...), Method(binary.LittleEndian.Uint16(d[0:2])), nil
}

// unwrapCCM authenticates and decrypts an AES-CCM entry (tag first on disk).
func unwrapCCM(c ccmKey, key []byte) ([]byte, error) {
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("bitlocker: AES-CCM key: %w", err)
	}
	sealed := make([]byte, 0, len(c.data)+16)
	sealed = append(sealed, c.data...)
	sealed = append(sealed, c.tag...)
	return ccmOpen(b, c.nonce[:], nil, sealed, 16)
}

// BEK is a parsed startup key file.
type BEK struct {
	GUID    GUID      // the key identifier: the startup key protector's GUID
	Created time.Time // the file header's time
	Key     []byte    // the 32-byte external key
}

// ParseBEK parses a startup key file: a metadata header (as in the FVE
// metadata) and a startup key entry holding an external key.
func ParseBEK(b []byte) (*BEK, error) {
	if len(b) < metaHeaderSize {
		return nil, fmt.Errorf("bitlocker: startup key file of %d bytes is too short", len(b))
	}
	size := int(binary.LittleEndian.Uint32(b[0:4]))
	if v := binary.LittleEndian.Uint32(b[4:8]); v != 1 {
		return nil, fmt.Errorf("bitlocker: startup key file version %d, want 1", v)
	}
	if hs := binary.LittleEndian.Uint32(b[8:12]); hs != metaHeaderSize {
		return nil, fmt.Errorf("bitlocker: startup key file header size %d, want 48", hs)
	}
	if size < metaHeaderSize || size > len(b) {
		return nil, fmt.Errorf("bitlocker: startup key file size field %d out of range (file of %d bytes)", size, len(b))
	}
	k := &BEK{Created: filetime(binary.LittleEndian.Uint64(b[40:48]))}
	copy(k.GUID[:], b[16:32])
	ents, err := parseEntries(b[metaHeaderSize:size])
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if e.Type != EntryStartupKey || e.ValueType != ValueExternalKey {
			continue
		}
		if len(e.Data) < 24 {
			return nil, fmt.Errorf("bitlocker: external key entry of %d bytes", len(e.Data))
		}
		var id GUID
		copy(id[:], e.Data[0:16])
		if id != k.GUID {
			return nil, fmt.Errorf("bitlocker: startup key file: external key %v in a file for %v", id, k.GUID)
		}
		kids, err := e.Children()
		if err != nil {
			return nil, err
		}
		for _, c := range kids {
			if c.ValueType == ValueKey && len(c.Data) == 4+32 {
				k.Key = append([]byte(nil), c.Data[4:]...)
				return k, nil
			}
		}
	}
	return nil, errors.New("bitlocker: startup key file holds no 256-bit external key")
}
