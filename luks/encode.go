package luks

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// The one LUKS2 encoder: Create and every verb that changes a header
// encode the Header they built here. Members of the JSON as read that the
// Header does not model (tokens' own fields, a segment's integrity,
// unknown members, keyslots of types other than luks2) are kept; the
// members it models are written from it.

// Members each kind of object owns: written from the Header, replacing
// what the JSON as read held (a member the model leaves out is removed).
var (
	keyslotMembers = []string{"type", "key_size", "priority", "mode", "direction", "af", "area", "kdf"}
	segmentMembers = []string{"type", "offset", "size", "iv_tweak", "encryption", "sector_size", "flags"}
	digestMembers  = []string{"type", "keyslots", "segments", "hash", "iterations", "salt", "digest"}
	tokenMembers   = []string{"type", "keyslots"}
	configMembers  = []string{"json_size", "keyslots_size", "flags", "requirements"}
)

// overlay returns the object orig (nil for none) with the members in
// owned replaced by those of v's JSON encoding.
func overlay(orig json.RawMessage, v any, owned []string) (json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if orig != nil {
		if err := json.Unmarshal(orig, &m); err != nil {
			return nil, fmt.Errorf("%w: LUKS2 JSON object: %v", ErrCorrupt, err)
		}
	}
	for _, k := range owned {
		delete(m, k)
	}
	enc, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var add map[string]json.RawMessage
	if err := json.Unmarshal(enc, &add); err != nil {
		return nil, err
	}
	for k, v := range add {
		m[k] = v
	}
	return json.Marshal(m)
}

// encodeSection encodes a section's objects by id over the section as
// read; objects the Header no longer has are dropped.
func encodeSection[T any](orig json.RawMessage, objs []T, id func(*T) int, model func(*T) (any, []string)) (json.RawMessage, error) {
	old := map[string]json.RawMessage{}
	if orig != nil {
		if err := json.Unmarshal(orig, &old); err != nil {
			return nil, fmt.Errorf("%w: LUKS2 JSON section: %v", ErrCorrupt, err)
		}
	}
	out := make(map[string]json.RawMessage, len(objs))
	for i := range objs {
		k := strconv.Itoa(id(&objs[i]))
		v, owned := model(&objs[i])
		raw, err := overlay(old[k], v, owned)
		if err != nil {
			return nil, err
		}
		out[k] = raw
	}
	return json.Marshal(out)
}

// encodeJSON returns the LUKS2 JSON metadata of h, over h.JSON (the
// metadata as read; nil for a new header).
func (h *Header) encodeJSON() ([]byte, error) {
	top := map[string]json.RawMessage{}
	if h.JSON != nil {
		if err := json.Unmarshal(h.JSON, &top); err != nil {
			return nil, fmt.Errorf("%w: LUKS2 JSON metadata: %v", ErrCorrupt, err)
		}
	}
	var err error
	if top["keyslots"], err = encodeSection(top["keyslots"], h.Keyslots, func(k *Keyslot) int { return k.ID },
		func(k *Keyslot) (any, []string) {
			if k.Type != "luks2" && k.Type != "reencrypt" {
				// Other types (unknown) are kept as read.
				return struct{}{}, nil
			}
			return k.toJSON(), keyslotMembers
		}); err != nil {
		return nil, err
	}
	if top["segments"], err = encodeSection(top["segments"], h.Segments, func(s *Segment) int { return s.ID },
		func(s *Segment) (any, []string) { return s.toJSON(), segmentMembers }); err != nil {
		return nil, err
	}
	if top["digests"], err = encodeSection(top["digests"], h.Digests, func(d *Digest) int { return d.ID },
		func(d *Digest) (any, []string) { return d.toJSON(), digestMembers }); err != nil {
		return nil, err
	}
	if top["tokens"], err = encodeSection(top["tokens"], h.Tokens, func(t *Token) int { return t.ID },
		func(t *Token) (any, []string) {
			return jsonToken{Type: t.Type, Keyslots: idStrings(t.Keyslots)}, tokenMembers
		}); err != nil {
		return nil, err
	}
	c := jsonConfig{JSONSize: u64(h.Config.JSONSize), KeyslotsSize: u64(h.Config.KeyslotsSize), Flags: h.Config.Flags}
	if len(h.Config.Requirements) > 0 {
		c.Requirements = &struct {
			Mandatory []string `json:"mandatory,omitempty"`
		}{h.Config.Requirements}
	}
	if top["config"], err = overlay(top["config"], c, configMembers); err != nil {
		return nil, err
	}
	return json.Marshal(top)
}

func idStrings(l []int) ids {
	out := ids{}
	for _, v := range l {
		out = append(out, strconv.Itoa(v))
	}
	return out
}

func (k *Keyslot) toJSON() jsonKeyslot {
	j := jsonKeyslot{Type: k.Type, KeySize: k.KeySize, Mode: k.Mode, Direction: k.Direction,
		Area: jsonArea{Type: k.Area.Type, Offset: u64(k.Area.Offset), Size: u64(k.Area.Size), Encryption: k.Area.Encryption,
			KeySize: k.Area.KeySize, Hash: k.Area.Hash, SectorSize: k.Area.SectorSize, ShiftSize: u64(k.Area.ShiftSize)}}
	if k.Priority != PriorityNormal {
		p := priority(k.Priority)
		j.Priority = &p
	}
	if k.Type == "luks2" {
		j.AF = &jsonAF{Type: k.AF.Type, Stripes: k.AF.Stripes, Hash: k.AF.Hash}
		j.KDF = &jsonKDF{Type: k.KDF.Type, Hash: k.KDF.Hash, Iterations: k.KDF.Iterations, Time: k.KDF.Time,
			Memory: k.KDF.Memory, CPUs: k.KDF.CPUs, Salt: k.KDF.Salt}
	}
	return j
}

func (s *Segment) toJSON() jsonSegment {
	j := jsonSegment{Type: s.Type, Offset: u64(s.Offset), Size: "dynamic", Flags: s.Flags}
	if !s.Dynamic {
		j.Size = strconv.FormatUint(s.Size, 10)
	}
	if s.Type == "crypt" {
		iv, enc, ss := u64(s.IVTweak), s.Encryption, s.SectorSize
		j.IVTweak, j.Encryption, j.SectorSize = &iv, &enc, &ss
	}
	return j
}

func (d *Digest) toJSON() jsonDigest {
	return jsonDigest{Type: d.Type, Hash: d.Hash, Iterations: d.Iterations, Salt: d.Salt, Digest: d.Value,
		Keyslots: idStrings(d.Keyslots), Segments: idStrings(d.Segments)}
}

// encodeLUKS2Copy returns the header copy of h at off (0: primary;
// h.HeaderSize: secondary) holding the JSON metadata js: binary header
// with a fresh salt and its checksum, and the JSON area.
func encodeLUKS2Copy(h *Header, js []byte, off uint64) ([]byte, error) {
	size := h.HeaderSize
	if !validHdrSize(size) {
		return nil, fmt.Errorf("luks: LUKS2 header size %d is not one LUKS2 allows", size)
	}
	if uint64(len(js)) >= size-binHeaderSize {
		return nil, fmt.Errorf("luks: JSON metadata of %d bytes does not fit the %d-byte JSON area", len(js), size-binHeaderSize)
	}
	if len(h.Label) > 47 || len(h.Subsystem) > 47 || len(h.UUID) > 39 {
		return nil, fmt.Errorf("luks: label, subsystem or UUID too long for the LUKS2 binary header")
	}
	area := make([]byte, size)
	b := area[:binHeaderSize]
	if off == 0 {
		copy(b, magic1)
	} else {
		copy(b, magic2)
	}
	binary.BigEndian.PutUint16(b[offVersion:], 2)
	binary.BigEndian.PutUint64(b[offHdrSize:], size)
	binary.BigEndian.PutUint64(b[offSeqid:], h.Seqid)
	copy(b[offLabel:], h.Label)
	copy(b[offCsumAlg:], "sha256")
	if _, err := rand.Read(b[offSalt : offSalt+64]); err != nil {
		return nil, err
	}
	copy(b[offUUID:], h.UUID)
	copy(b[offSubsystem:], h.Subsystem)
	binary.BigEndian.PutUint64(b[offHdrOffset:], off)
	copy(area[binHeaderSize:], js)
	copy(b[offCsum:], checksumOf(checksumHash("sha256"), area))
	return area, nil
}

// clone returns a copy of h whose slices a verb may change without
// touching h's.
func (h *Header) clone() *Header {
	c := *h
	c.wrote = [2][]byte{} // what commit wrote describes h, not a changed copy
	c.Keyslots = slices.Clone(h.Keyslots)
	c.Segments = slices.Clone(h.Segments)
	c.Tokens = slices.Clone(h.Tokens)
	c.Digests = slices.Clone(h.Digests)
	for i := range c.Digests {
		c.Digests[i].Keyslots = slices.Clone(c.Digests[i].Keyslots)
		c.Digests[i].Segments = slices.Clone(c.Digests[i].Segments)
	}
	for i := range c.Tokens {
		c.Tokens[i].Keyslots = slices.Clone(c.Tokens[i].Keyslots)
	}
	return &c
}
