package luks

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Parsing the LUKS2 JSON metadata into a Header: one parser per kind of
// object, each checking the members cryptsetup requires and their types.

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
			k.AF = AF(af)
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
	k.AF = AF(af)
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
