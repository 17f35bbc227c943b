package luks

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
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

// parseSection decodes one section of the JSON metadata (objects keyed by
// id) with parse, in ascending id order.
func parseSection[T any](kind string, sec map[string]json.RawMessage, parse func(id int, raw json.RawMessage) (T, error)) ([]T, error) {
	if len(sec) > maxObjects {
		return nil, fmt.Errorf("%w: LUKS2 JSON metadata has %d %ss (at most %d)", ErrCorrupt, len(sec), kind, maxObjects)
	}
	byID := make(map[int]json.RawMessage, len(sec))
	for s, raw := range sec {
		id, err := objectID(kind, s)
		if err != nil {
			return nil, err
		}
		byID[id] = raw
	}
	idsSorted := make([]int, 0, len(byID))
	for id := range byID {
		idsSorted = append(idsSorted, id)
	}
	slices.Sort(idsSorted)
	out := make([]T, 0, len(idsSorted))
	for _, id := range idsSorted {
		v, err := parse(id, byID[id])
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// parseJSON fills h from the LUKS2 JSON metadata: the structure of each
// object (members present and of their type) here, the references and
// the layout in validateLUKS2. Features are checked where they are used,
// so that a header with an unsupported cipher can still be dumped.
func parseJSON(h *Header, js []byte) error {
	var m jsonMeta
	if _, err := decodeObject("LUKS2 JSON metadata", js, &m); err != nil {
		return err
	}
	if m.Keyslots == nil || m.Tokens == nil || m.Segments == nil || m.Digests == nil || m.Config == nil {
		return fmt.Errorf("%w: LUKS2 JSON metadata lacks keyslots, tokens, segments, digests or config", ErrCorrupt)
	}
	if err := parseConfig(h, m.Config); err != nil {
		return err
	}
	var err error
	if h.Keyslots, err = parseSection("keyslot", m.Keyslots, parseKeyslot); err != nil {
		return err
	}
	if h.Segments, err = parseSection("segment", m.Segments, parseSegment); err != nil {
		return err
	}
	if h.Digests, err = parseSection("digest", m.Digests, parseDigest); err != nil {
		return err
	}
	if h.Tokens, err = parseSection("token", m.Tokens, parseToken); err != nil {
		return err
	}
	return h.validateLUKS2()
}

func parseConfig(h *Header, raw json.RawMessage) error {
	var c jsonConfig
	m, err := decodeObject("config", raw, &c, "json_size", "keyslots_size")
	if err != nil {
		return err
	}
	if err := stringArray("config flags", m, "flags"); err != nil {
		return err
	}
	h.Config = Config{JSONSize: uint64(c.JSONSize), KeyslotsSize: uint64(c.KeyslotsSize), Flags: c.Flags}
	if req, ok := m["requirements"]; ok {
		var r struct {
			Mandatory []string `json:"mandatory"`
		}
		rm, err := decodeObject("config requirements", req, &r)
		if err != nil {
			return err
		}
		if err := stringArray("config requirements", rm, "mandatory"); err != nil {
			return err
		}
		h.Config.Requirements = r.Mandatory
	}
	return nil
}

// stringArray checks that member name of m, when present, is an array
// (of strings: decoding into []string checks those).
func stringArray(what string, m map[string]json.RawMessage, name string) error {
	if v, ok := m[name]; ok && (len(v) == 0 || v[0] != '[') {
		return fmt.Errorf("%w: %s: %q is not an array", ErrCorrupt, what, name)
	}
	return nil
}

func parseKeyslot(id int, raw json.RawMessage) (Keyslot, error) {
	what := fmt.Sprintf("keyslot %d", id)
	var j struct {
		Type      string          `json:"type"`
		KeySize   int             `json:"key_size"`
		Priority  *priority       `json:"priority"`
		Mode      string          `json:"mode"`
		Direction string          `json:"direction"`
		AF        json.RawMessage `json:"af"`
		Area      json.RawMessage `json:"area"`
		KDF       json.RawMessage `json:"kdf"`
	}
	m, err := decodeObject(what, raw, &j, "type", "key_size", "area")
	if err != nil {
		return Keyslot{}, err
	}
	if j.KeySize < 0 || uint64(j.KeySize) > 1<<32-1 {
		return Keyslot{}, fmt.Errorf("%w: %s key size %d", ErrCorrupt, what, j.KeySize)
	}
	var a jsonArea
	area, err := decodeObject(what+" area", j.Area, &a, "type", "offset", "size")
	if err != nil {
		return Keyslot{}, err
	}
	k := Keyslot{ID: id, Active: true, Type: j.Type, KeySize: j.KeySize, Priority: PriorityNormal,
		Mode: j.Mode, Direction: j.Direction,
		Area: Area{Type: a.Type, Offset: uint64(a.Offset), Size: uint64(a.Size), Encryption: a.Encryption, KeySize: a.KeySize,
			Hash: a.Hash, SectorSize: a.SectorSize, ShiftSize: uint64(a.ShiftSize)}}
	if j.Priority != nil {
		k.Priority = int(*j.Priority)
	}
	var af jsonAF
	var kdf jsonKDF
	if k.Type != "luks2" {
		// reencrypt and unknown types: only the area is checked; their
		// af and kdf, if any, are shown as they are.
		if _, err := decodeObject(what+" af", j.AF, &af); err == nil {
			k.AF = AF{Type: af.Type, Stripes: af.Stripes, Hash: af.Hash}
		}
		if _, err := decodeObject(what+" kdf", j.KDF, &kdf); err == nil {
			k.KDF = KDF{Type: kdf.Type, Hash: kdf.Hash, Iterations: kdf.Iterations, Time: kdf.Time, Memory: kdf.Memory, CPUs: kdf.CPUs, Salt: kdf.Salt}
		}
		return k, nil
	}
	// A luks2 keyslot: kdf, af and a raw area, each complete.
	if err := need(what, m, "af", "kdf"); err != nil {
		return k, err
	}
	km, err := decodeObject(what+" kdf", j.KDF, &kdf, "type")
	if err != nil {
		return k, err
	}
	k.KDF = KDF{Type: kdf.Type, Hash: kdf.Hash, Iterations: kdf.Iterations, Time: kdf.Time, Memory: kdf.Memory, CPUs: kdf.CPUs, Salt: kdf.Salt}
	// Members a KDF does not use are allowed: cryptsetup drops them.
	switch k.KDF.Type {
	case "pbkdf2":
		err = need(what+" kdf", km, "hash", "iterations", "salt")
	case "argon2i", "argon2id":
		err = need(what+" kdf", km, "time", "memory", "cpus", "salt")
	}
	if err != nil {
		return k, err
	}
	if _, err := decodeObject(what+" af", j.AF, &af, "type", "hash", "stripes"); err != nil {
		return k, err
	}
	k.AF = AF{Type: af.Type, Stripes: af.Stripes, Hash: af.Hash}
	if k.AF.Type != "luks1" {
		return k, fmt.Errorf("%w: %s anti-forensic type %q (LUKS2 defines luks1)", ErrCorrupt, what, k.AF.Type)
	}
	if k.Area.Type != "raw" {
		return k, fmt.Errorf("%w: %s area type %q (a luks2 keyslot's is raw)", ErrCorrupt, what, k.Area.Type)
	}
	if err := need(what+" area", area, "encryption", "key_size"); err != nil {
		return k, err
	}
	return k, nil
}

func parseSegment(id int, raw json.RawMessage) (Segment, error) {
	what := fmt.Sprintf("segment %d", id)
	var j jsonSegment
	m, err := decodeObject(what, raw, &j, "type", "offset", "size")
	if err != nil {
		return Segment{}, err
	}
	if err := stringArray(what, m, "flags"); err != nil {
		return Segment{}, err
	}
	s := Segment{ID: id, Type: j.Type, Offset: uint64(j.Offset), Flags: j.Flags}
	if j.Size == "dynamic" {
		s.Dynamic = true
	} else if v, err := parseDecimal(j.Size); err == nil && v > 0 {
		s.Size = v
	} else {
		return s, fmt.Errorf("%w: %s size %q (\"dynamic\" or a non-zero decimal number)", ErrCorrupt, what, j.Size)
	}
	if s.Offset%512 != 0 || s.Size%512 != 0 {
		return s, fmt.Errorf("%w: %s offset %d or size %d is not a multiple of 512", ErrCorrupt, what, s.Offset, s.Size)
	}
	if s.Type != "crypt" {
		return s, nil
	}
	if err := need(what, m, "iv_tweak", "encryption", "sector_size"); err != nil {
		return s, err
	}
	s.IVTweak, s.Encryption, s.SectorSize = uint64(*j.IVTweak), *j.Encryption, *j.SectorSize
	if s.Encryption == "" {
		return s, fmt.Errorf("%w: %s has an empty encryption", ErrCorrupt, what)
	}
	if ss := s.SectorSize; ss <= 0 || ss%512 != 0 || uint64(ss) > 1<<32-1 {
		return s, fmt.Errorf("%w: %s sector size %d (a multiple of 512)", ErrCorrupt, what, ss)
	}
	if s.Size%uint64(s.SectorSize) != 0 {
		return s, fmt.Errorf("%w: %s size %d is not a multiple of its sector size %d", ErrCorrupt, what, s.Size, s.SectorSize)
	}
	if raw, ok := m["integrity"]; ok {
		var in struct {
			Type string `json:"type"`
		}
		if _, err := decodeObject(what+" integrity", raw, &in, "type", "journal_encryption", "journal_integrity"); err != nil {
			return s, err
		}
		var strs map[string]any
		_ = json.Unmarshal(raw, &strs)
		for _, n := range []string{"journal_encryption", "journal_integrity"} {
			if _, ok := strs[n].(string); !ok {
				return s, fmt.Errorf("%w: %s integrity %q is not a string", ErrCorrupt, what, n)
			}
		}
		s.Integrity = in.Type
		if s.Integrity == "" {
			s.Integrity = "unknown"
		}
	}
	return s, nil
}

func parseDigest(id int, raw json.RawMessage) (Digest, error) {
	what := fmt.Sprintf("digest %d", id)
	var j jsonDigest
	if _, err := decodeObject(what, raw, &j, "type", "keyslots", "segments"); err != nil {
		return Digest{}, err
	}
	d := Digest{ID: id, Type: j.Type, Hash: j.Hash, Iterations: j.Iterations, Salt: j.Salt, Value: j.Digest}
	var err error
	if d.Keyslots, err = idList("keyslot", j.Keyslots); err != nil {
		return d, err
	}
	d.Segments, err = idList("segment", j.Segments)
	return d, err
}

func parseToken(id int, raw json.RawMessage) (Token, error) {
	what := fmt.Sprintf("token %d", id)
	var j jsonToken
	if _, err := decodeObject(what, raw, &j, "type", "keyslots"); err != nil {
		return Token{}, err
	}
	t := Token{ID: id, Type: j.Type}
	var err error
	t.Keyslots, err = idList("keyslot", j.Keyslots)
	return t, err
}

// checkKeyslotSizes checks the sizes of a keyslot against the package's
// limits before its unlock allocates anything: key sizes, stripes, and an
// area that holds its split key. (cryptsetup reads such a header, so
// ReadHeader does too; opening the keyslot fails.)
func checkKeyslotSizes(k *Keyslot) error {
	if k.KeySize < 1 || k.KeySize > MaxKeySize {
		return fmt.Errorf("%w: keyslot %d key size %d bytes (1 to %d)", ErrCorrupt, k.ID, k.KeySize, MaxKeySize)
	}
	if k.Area.KeySize < 1 || k.Area.KeySize > MaxKeySize {
		return fmt.Errorf("%w: keyslot %d area key size %d bytes (1 to %d)", ErrCorrupt, k.ID, k.Area.KeySize, MaxKeySize)
	}
	if k.AF.Stripes < 1 || k.AF.Stripes > MaxStripes {
		return fmt.Errorf("%w: keyslot %d has %d anti-forensic stripes (1 to %d)", ErrCorrupt, k.ID, k.AF.Stripes, MaxStripes)
	}
	need := roundUp(uint64(k.KeySize)*uint64(k.AF.Stripes), 512)
	if k.Area.Size < need {
		return fmt.Errorf("%w: keyslot %d area of %d bytes, its split key needs %d", ErrCorrupt, k.ID, k.Area.Size, need)
	}
	return nil
}

func roundUp(n, m uint64) uint64 { return (n + m - 1) / m * m }
