package luks

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// u64 is a LUKS2 JSON unsigned 64-bit number: a string of decimal digits.
type u64 uint64

func (n *u64) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("64-bit number %s is not a string", b)
	}
	v, err := parseDecimal(s)
	if err != nil {
		return err
	}
	*n = u64(v)
	return nil
}

func (n u64) MarshalJSON() ([]byte, error) {
	return json.Marshal(strconv.FormatUint(uint64(n), 10))
}

// parseDecimal parses a LUKS2 64-bit number: decimal digits only (no sign,
// no spaces), at most 2^64-1.
func parseDecimal(s string) (uint64, error) {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("64-bit number %q is not decimal digits", s)
		}
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("64-bit number %q: %v", s, err)
	}
	return v, nil
}

// b64 is base64 (standard, padded) binary data.
type b64 []byte

func (d *b64) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return fmt.Errorf("base64 %q: %v", s, err)
	}
	*d = v
	return nil
}

func (d b64) MarshalJSON() ([]byte, error) {
	return json.Marshal(base64.StdEncoding.EncodeToString(d))
}

// priority is a keyslot priority. cryptsetup reads it leniently (a
// number, or a string holding one; anything else counts as 0), and so
// does this package.
type priority int

func (p *priority) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch x := v.(type) {
	case float64:
		*p = priority(x)
	case string:
		n, _ := strconv.Atoi(x)
		*p = priority(n)
	default:
		*p = 0
	}
	return nil
}

// ids is a list of object ids, stored as strings.
type ids []string

type jsonAF struct {
	Type    string `json:"type"`
	Stripes int    `json:"stripes"`
	Hash    string `json:"hash"`
}

type jsonArea struct {
	Type       string `json:"type"`
	Offset     u64    `json:"offset"`
	Size       u64    `json:"size"`
	Encryption string `json:"encryption,omitempty"`
	KeySize    int    `json:"key_size,omitempty"`
	Hash       string `json:"hash,omitempty"`        // checksum resilience
	SectorSize int    `json:"sector_size,omitempty"` // checksum resilience
	ShiftSize  u64    `json:"shift_size,omitempty"`  // datashift resilience
}

type jsonKDF struct {
	Type       string `json:"type"`
	Hash       string `json:"hash,omitempty"`
	Iterations int    `json:"iterations,omitempty"`
	Time       int    `json:"time,omitempty"`
	Memory     int    `json:"memory,omitempty"`
	CPUs       int    `json:"cpus,omitempty"`
	Salt       b64    `json:"salt"`
}

type jsonKeyslot struct {
	Type      string    `json:"type"`
	KeySize   int       `json:"key_size"`
	Priority  *priority `json:"priority,omitempty"`
	Mode      string    `json:"mode,omitempty"`      // reencrypt keyslots
	Direction string    `json:"direction,omitempty"` // reencrypt keyslots
	AF        *jsonAF   `json:"af,omitempty"`
	Area      jsonArea  `json:"area"`
	KDF       *jsonKDF  `json:"kdf,omitempty"`
}

type jsonSegment struct {
	Type       string          `json:"type"`
	Offset     u64             `json:"offset"`
	Size       string          `json:"size"`
	IVTweak    *u64            `json:"iv_tweak,omitempty"`
	Encryption *string         `json:"encryption,omitempty"`
	SectorSize *int            `json:"sector_size,omitempty"`
	Integrity  json.RawMessage `json:"integrity,omitempty"`
	Flags      []string        `json:"flags,omitempty"`
}

type jsonDigest struct {
	Type       string `json:"type"`
	Keyslots   ids    `json:"keyslots"`
	Segments   ids    `json:"segments"`
	Hash       string `json:"hash"`
	Iterations int    `json:"iterations"`
	Salt       b64    `json:"salt"`
	Digest     b64    `json:"digest"`
}

type jsonToken struct {
	Type     string `json:"type"`
	Keyslots ids    `json:"keyslots"`
}

type jsonConfig struct {
	JSONSize     u64      `json:"json_size"`
	KeyslotsSize u64      `json:"keyslots_size"`
	Flags        []string `json:"flags,omitempty"`
	Requirements *struct {
		Mandatory []string `json:"mandatory,omitempty"`
	} `json:"requirements,omitempty"`
}

// jsonMeta is the top level of the JSON metadata: four sections of
// objects keyed by decimal id, and the config object.
type jsonMeta struct {
	Keyslots map[string]json.RawMessage `json:"keyslots"`
	Tokens   map[string]json.RawMessage `json:"tokens"`
	Segments map[string]json.RawMessage `json:"segments"`
	Digests  map[string]json.RawMessage `json:"digests"`
	Config   json.RawMessage            `json:"config"`
}

// jsonText returns the JSON metadata held in a LUKS2 JSON area, checked
// as cryptsetup checks it: the area starts with '{', the JSON text is
// followed by a NUL and only zero bytes after it.
func jsonText(area []byte) ([]byte, error) {
	if len(area) == 0 || area[0] != '{' {
		return nil, fmt.Errorf("%w: LUKS2 JSON area does not start with '{'", ErrCorrupt)
	}
	end := bytes.IndexByte(area, 0)
	if end < 0 {
		return nil, fmt.Errorf("%w: LUKS2 JSON area has no terminating NUL", ErrCorrupt)
	}
	d := json.NewDecoder(bytes.NewReader(area[:end]))
	var v json.RawMessage
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: LUKS2 JSON metadata: %v", ErrCorrupt, err)
	}
	n := int(d.InputOffset())
	for n < end && (area[n] == ' ' || area[n] == '\t' || area[n] == '\n' || area[n] == '\r') {
		n++ // whitespace after the object is part of the JSON text
	}
	if n != end {
		return nil, fmt.Errorf("%w: LUKS2 JSON area has bytes after the JSON object (at %d)", ErrCorrupt, n)
	}
	for i, c := range area[end:] {
		if c != 0 {
			return nil, fmt.Errorf("%w: LUKS2 JSON area has a non-zero byte %#x after its NUL (at %d)", ErrCorrupt, c, end+i)
		}
	}
	return area[:end], nil
}

// object returns the members of the JSON object raw, which must be an
// object (not null); what names it in errors.
func object(what string, raw json.RawMessage) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("%w: %s is not a JSON object", ErrCorrupt, what)
	}
	return m, nil
}

// need checks that m has each named member, not null.
func need(what string, m map[string]json.RawMessage, names ...string) error {
	for _, n := range names {
		if v, ok := m[n]; !ok || string(v) == "null" {
			return fmt.Errorf("%w: %s lacks %q", ErrCorrupt, what, n)
		}
	}
	return nil
}

// decodeObject checks that raw is an object with the named members and
// decodes it into v.
func decodeObject(what string, raw json.RawMessage, v any, names ...string) (map[string]json.RawMessage, error) {
	m, err := object(what, raw)
	if err != nil {
		return nil, err
	}
	if err := need(what, m, names...); err != nil {
		return nil, err
	}
	// Member names are case-sensitive, as in cryptsetup (Go's decoder
	// would match "Type" to "type"): only the exact names are decoded.
	exact := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		if k == strings.ToLower(k) {
			exact[k] = v
		}
	}
	b, err := json.Marshal(exact)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, what, err)
	}
	return m, nil
}

// objectID parses a LUKS2 object id: a decimal number without leading
// zeros. (There are at most 32 objects of a kind, but their ids may be
// larger, as cryptsetup allows.)
func objectID(kind, s string) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 || v > maxObjectID || strconv.Itoa(v) != s {
		return 0, fmt.Errorf("%w: %s id %q is not a number from 0 to %d", ErrCorrupt, kind, s, maxObjectID)
	}
	return v, nil
}

func idList(kind string, l ids) ([]int, error) {
	if len(l) > maxObjects {
		return nil, fmt.Errorf("%w: %d %s references", ErrCorrupt, len(l), kind)
	}
	out := make([]int, 0, len(l))
	for _, s := range l {
		v, err := objectID(kind, s)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
