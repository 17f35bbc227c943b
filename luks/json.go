package luks

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
)

// u64 is a LUKS2 JSON unsigned 64-bit number: a string of decimal digits.
type u64 uint64

func (n *u64) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("64-bit number %s is not a string", b)
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return fmt.Errorf("64-bit number %q: %v", s, err)
	}
	*n = u64(v)
	return nil
}

func (n u64) MarshalJSON() ([]byte, error) {
	return json.Marshal(strconv.FormatUint(uint64(n), 10))
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

// ids is a list of object ids, stored as strings.
type ids []string

type jsonKeyslot struct {
	Type      string `json:"type"`
	KeySize   int    `json:"key_size"`
	Priority  *int   `json:"priority,omitempty"`
	Mode      string `json:"mode,omitempty"`      // reencrypt keyslots
	Direction string `json:"direction,omitempty"` // reencrypt keyslots
	AF        struct {
		Type    string `json:"type"`
		Stripes int    `json:"stripes"`
		Hash    string `json:"hash"`
	} `json:"af"`
	Area struct {
		Type       string `json:"type"`
		Offset     u64    `json:"offset"`
		Size       u64    `json:"size"`
		Encryption string `json:"encryption,omitempty"`
		KeySize    int    `json:"key_size,omitempty"`
		Hash       string `json:"hash,omitempty"`        // checksum resilience
		SectorSize int    `json:"sector_size,omitempty"` // checksum resilience
		ShiftSize  u64    `json:"shift_size,omitempty"`  // datashift resilience
	} `json:"area"`
	KDF struct {
		Type       string `json:"type"`
		Hash       string `json:"hash,omitempty"`
		Iterations int    `json:"iterations,omitempty"`
		Time       int    `json:"time,omitempty"`
		Memory     int    `json:"memory,omitempty"`
		CPUs       int    `json:"cpus,omitempty"`
		Salt       b64    `json:"salt"`
	} `json:"kdf"`
}

type jsonSegment struct {
	Type       string          `json:"type"`
	Offset     u64             `json:"offset"`
	Size       string          `json:"size"`
	IVTweak    u64             `json:"iv_tweak"`
	Encryption string          `json:"encryption"`
	SectorSize int             `json:"sector_size"`
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

type jsonMeta struct {
	Keyslots map[string]json.RawMessage `json:"keyslots"`
	Tokens   map[string]json.RawMessage `json:"tokens"`
	Segments map[string]json.RawMessage `json:"segments"`
	Digests  map[string]json.RawMessage `json:"digests"`
	Config   *jsonConfig                `json:"config"`
}

// objectID parses a LUKS2 object id ("0" to "31").
func objectID(kind, s string) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 || v >= maxObjects || strconv.Itoa(v) != s {
		return 0, fmt.Errorf("%w: %s id %q is not a number from 0 to %d", ErrCorrupt, kind, s, maxObjects-1)
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

// parseJSON fills h from the LUKS2 JSON metadata, checking its structure
// (features are checked where they are used, so that a header with an
// unsupported cipher can still be dumped).
func parseJSON(h *Header, js []byte) error {
	var m jsonMeta
	if err := json.Unmarshal(js, &m); err != nil {
		return fmt.Errorf("%w: LUKS2 JSON metadata: %v", ErrCorrupt, err)
	}
	if m.Keyslots == nil || m.Segments == nil || m.Digests == nil || m.Config == nil {
		return fmt.Errorf("%w: LUKS2 JSON metadata lacks keyslots, segments, digests or config", ErrCorrupt)
	}
	for _, n := range []int{len(m.Keyslots), len(m.Tokens), len(m.Segments), len(m.Digests)} {
		if n > maxObjects {
			return fmt.Errorf("%w: LUKS2 JSON metadata has %d objects of one kind (at most %d)", ErrCorrupt, n, maxObjects)
		}
	}
	c := m.Config
	h.Config = Config{JSONSize: uint64(c.JSONSize), KeyslotsSize: uint64(c.KeyslotsSize), Flags: c.Flags}
	if c.Requirements != nil {
		h.Config.Requirements = c.Requirements.Mandatory
	}
	areaStart := 2 * h.HeaderSize
	areaEnd := areaStart + h.Config.KeyslotsSize
	if areaEnd < areaStart {
		return fmt.Errorf("%w: keyslots_size %d overflows", ErrCorrupt, h.Config.KeyslotsSize)
	}

	for sid, raw := range m.Keyslots {
		id, err := objectID("keyslot", sid)
		if err != nil {
			return err
		}
		var j jsonKeyslot
		if err := json.Unmarshal(raw, &j); err != nil {
			return fmt.Errorf("%w: keyslot %d: %v", ErrCorrupt, id, err)
		}
		k := Keyslot{ID: id, Active: true, Type: j.Type, KeySize: j.KeySize, Priority: PriorityNormal,
			Mode: j.Mode, Direction: j.Direction,
			AF: AF{Type: j.AF.Type, Stripes: j.AF.Stripes, Hash: j.AF.Hash},
			Area: Area{Type: j.Area.Type, Offset: uint64(j.Area.Offset), Size: uint64(j.Area.Size), Encryption: j.Area.Encryption, KeySize: j.Area.KeySize,
				Hash: j.Area.Hash, SectorSize: j.Area.SectorSize, ShiftSize: uint64(j.Area.ShiftSize)},
			KDF: KDF{Type: j.KDF.Type, Hash: j.KDF.Hash, Iterations: j.KDF.Iterations, Time: j.KDF.Time,
				Memory: j.KDF.Memory, CPUs: j.KDF.CPUs, Salt: j.KDF.Salt}}
		if j.Priority != nil {
			k.Priority = *j.Priority
		}
		if k.Type == "luks2" {
			if err := checkKeyslot(&k, areaStart, areaEnd); err != nil {
				return err
			}
		}
		h.Keyslots = append(h.Keyslots, k)
	}
	sortByID(h.Keyslots, func(k *Keyslot) int { return k.ID })

	for sid, raw := range m.Segments {
		id, err := objectID("segment", sid)
		if err != nil {
			return err
		}
		var j jsonSegment
		if err := json.Unmarshal(raw, &j); err != nil {
			return fmt.Errorf("%w: segment %d: %v", ErrCorrupt, id, err)
		}
		s := Segment{ID: id, Type: j.Type, Offset: uint64(j.Offset), IVTweak: uint64(j.IVTweak),
			Encryption: j.Encryption, SectorSize: j.SectorSize, Flags: j.Flags}
		if j.Size == "dynamic" {
			s.Dynamic = true
		} else if v, err := strconv.ParseUint(j.Size, 10, 64); err == nil {
			s.Size = v
		} else {
			return fmt.Errorf("%w: segment %d size %q", ErrCorrupt, id, j.Size)
		}
		if len(j.Integrity) > 0 && string(j.Integrity) != "null" {
			var in struct {
				Type string `json:"type"`
			}
			_ = json.Unmarshal(j.Integrity, &in)
			s.Integrity = in.Type
			if s.Integrity == "" {
				s.Integrity = "unknown"
			}
		}
		if s.Type == "crypt" {
			if ss := s.SectorSize; ss < 512 || ss > 4096 || ss&(ss-1) != 0 {
				return fmt.Errorf("%w: segment %d sector size %d (512 to 4096, a power of two)", ErrCorrupt, id, ss)
			}
			if s.Offset%uint64(s.SectorSize) != 0 || s.Size%uint64(s.SectorSize) != 0 {
				return fmt.Errorf("%w: segment %d offset %d or size %d is not a multiple of its sector size %d", ErrCorrupt, id, s.Offset, s.Size, s.SectorSize)
			}
			if s.Offset+s.Size < s.Offset {
				return fmt.Errorf("%w: segment %d offset plus size overflows", ErrCorrupt, id)
			}
		}
		h.Segments = append(h.Segments, s)
	}
	sortByID(h.Segments, func(s *Segment) int { return s.ID })

	for sid, raw := range m.Digests {
		id, err := objectID("digest", sid)
		if err != nil {
			return err
		}
		var j jsonDigest
		if err := json.Unmarshal(raw, &j); err != nil {
			return fmt.Errorf("%w: digest %d: %v", ErrCorrupt, id, err)
		}
		d := Digest{ID: id, Type: j.Type, Hash: j.Hash, Iterations: j.Iterations, Salt: j.Salt, Value: j.Digest}
		if d.Keyslots, err = idList("keyslot", j.Keyslots); err != nil {
			return err
		}
		if d.Segments, err = idList("segment", j.Segments); err != nil {
			return err
		}
		h.Digests = append(h.Digests, d)
	}
	sortByID(h.Digests, func(d *Digest) int { return d.ID })

	for sid, raw := range m.Tokens {
		id, err := objectID("token", sid)
		if err != nil {
			return err
		}
		var j jsonToken
		if err := json.Unmarshal(raw, &j); err != nil {
			return fmt.Errorf("%w: token %d: %v", ErrCorrupt, id, err)
		}
		t := Token{ID: id, Type: j.Type}
		if t.Keyslots, err = idList("keyslot", j.Keyslots); err != nil {
			return err
		}
		h.Tokens = append(h.Tokens, t)
	}
	sortByID(h.Tokens, func(t *Token) int { return t.ID })
	return nil
}

// checkKeyslot checks the sizes of a luks2 keyslot against the limits and
// the keyslots area [areaStart, areaEnd).
func checkKeyslot(k *Keyslot, areaStart, areaEnd uint64) error {
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
	if k.Area.Offset < areaStart || k.Area.Offset+k.Area.Size > areaEnd || k.Area.Offset+k.Area.Size < k.Area.Offset {
		return fmt.Errorf("%w: keyslot %d area [%d, +%d) lies outside the keyslots area [%d, %d)", ErrCorrupt, k.ID, k.Area.Offset, k.Area.Size, areaStart, areaEnd)
	}
	return nil
}

func roundUp(n, m uint64) uint64 { return (n + m - 1) / m * m }
