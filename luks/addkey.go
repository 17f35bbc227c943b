package luks

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
)

// ReadWriterAt is a device that is read and written at offsets, such as
// an *os.File.
type ReadWriterAt interface {
	io.ReaderAt
	io.WriterAt
}

// AddKey adds a keyslot for newPassphrase that holds volumeKey (checked
// against the digest first; get it with Unlock) and returns its id. slot
// is the id to use, or AnyKeyslot for the lowest free one. dev is the
// device that holds the header; the keyslot material is written before
// the header, and h is updated to the header as written.
func (h *Header) AddKey(dev ReadWriterAt, volumeKey, newPassphrase []byte, slot int, o KDFOptions) (int, error) {
	if err := h.CheckVolumeKey(volumeKey); err != nil {
		return -1, err
	}
	o, err := o.withDefaults(h.Version)
	if err != nil {
		return -1, err
	}
	if h.Version == 1 {
		return h.addKeyLUKS1(dev, volumeKey, newPassphrase, slot, o)
	}
	return h.addKeyLUKS2(dev, volumeKey, newPassphrase, slot, o)
}

func (h *Header) freeSlot(slot, limit int) (int, error) {
	if slot == AnyKeyslot {
		for id := 0; id < limit; id++ {
			if k, ok := h.Keyslot(id); !ok || !k.Active {
				return id, nil
			}
		}
		return -1, fmt.Errorf("luks: all %d keyslots are in use", limit)
	}
	if slot < 0 || slot >= limit {
		return -1, fmt.Errorf("luks: keyslot %d (0 to %d)", slot, limit-1)
	}
	if k, ok := h.Keyslot(slot); ok && k.Active {
		return -1, fmt.Errorf("luks: keyslot %d is in use", slot)
	}
	return slot, nil
}

func (h *Header) addKeyLUKS2(dev ReadWriterAt, key, pass []byte, slot int, o KDFOptions) (int, error) {
	id, err := h.freeSlot(slot, maxObjects)
	if err != nil {
		return -1, err
	}
	seg := h.Segments[0]
	areaCipher := seg.Encryption
	areaSize := roundUp(uint64(len(key))*afStripes, keyslotAlign)
	off, err := h.freeArea(areaSize)
	if err != nil {
		return -1, err
	}
	kdf, err := newKDF(o, len(key))
	if err != nil {
		return -1, err
	}
	ks := Keyslot{ID: id, Active: true, Type: "luks2", KeySize: len(key), Priority: PriorityNormal,
		AF:   AF{Type: "luks1", Stripes: afStripes, Hash: o.Hash},
		Area: Area{Type: "raw", Offset: off, Size: areaSize, Encryption: areaCipher, KeySize: len(key)},
		KDF:  kdf}
	area, err := sealKeyslot(key, pass, &ks.KDF, afStripes, ks.AF.Hash, areaCipher, len(key), areaSize)
	if err != nil {
		return -1, err
	}
	defer clear(area)

	// Edit the JSON as read, so that what this package does not model
	// (tokens, flags, unknown fields) is kept.
	var top map[string]json.RawMessage
	if err := json.Unmarshal(h.JSON, &top); err != nil {
		return -1, fmt.Errorf("%w: LUKS2 JSON metadata: %v", ErrCorrupt, err)
	}
	var slots map[string]json.RawMessage
	if err := json.Unmarshal(top["keyslots"], &slots); err != nil {
		return -1, fmt.Errorf("%w: LUKS2 keyslots: %v", ErrCorrupt, err)
	}
	if slots[strconv.Itoa(id)], err = json.Marshal(ks.toJSON()); err != nil {
		return -1, err
	}
	var digests map[string]map[string]json.RawMessage
	if err := json.Unmarshal(top["digests"], &digests); err != nil {
		return -1, fmt.Errorf("%w: LUKS2 digests: %v", ErrCorrupt, err)
	}
	found := false
	for _, d := range h.Digests {
		for _, s := range d.Segments {
			if s != seg.ID || found {
				continue
			}
			found = true
			list := d.toJSON().Keyslots
			list = append(list, strconv.Itoa(id))
			sort.Slice(list, func(i, j int) bool { a, _ := strconv.Atoi(list[i]); b, _ := strconv.Atoi(list[j]); return a < b })
			if digests[strconv.Itoa(d.ID)]["keyslots"], err = json.Marshal(list); err != nil {
				return -1, err
			}
		}
	}
	if !found {
		return -1, fmt.Errorf("%w: no digest covers the data segment", ErrCorrupt)
	}
	if top["keyslots"], err = json.Marshal(slots); err != nil {
		return -1, err
	}
	if top["digests"], err = json.Marshal(digests); err != nil {
		return -1, err
	}
	js, err := json.Marshal(top)
	if err != nil {
		return -1, err
	}
	if _, err := dev.WriteAt(area, int64(off)); err != nil {
		return -1, fmt.Errorf("luks: writing keyslot %d: %w", id, err)
	}
	nh := *h
	nh.Seqid++
	if err := writeLUKS2Copies(dev, &nh, js); err != nil {
		return -1, err
	}
	fresh, err := ReadHeader(dev)
	if err != nil {
		return -1, err
	}
	*h = *fresh
	return id, nil
}

// freeArea returns the offset of the first gap of size bytes, aligned to
// 4096, in the keyslots area.
func (h *Header) freeArea(size uint64) (uint64, error) {
	type span struct{ a, b uint64 }
	var used []span
	for _, k := range h.Keyslots {
		used = append(used, span{k.Area.Offset, k.Area.Offset + k.Area.Size})
	}
	sort.Slice(used, func(i, j int) bool { return used[i].a < used[j].a })
	start, end := 2*h.HeaderSize, 2*h.HeaderSize+h.Config.KeyslotsSize
	at := start
	for _, u := range used {
		if u.a >= at+size {
			break
		}
		at = max(at, roundUp(u.b, keyslotAlign))
	}
	if at+size > end {
		return 0, fmt.Errorf("luks: no room for a %d-byte keyslot in the %d-byte keyslots area", size, h.Config.KeyslotsSize)
	}
	return at, nil
}

func (h *Header) addKeyLUKS1(dev ReadWriterAt, key, pass []byte, slot int, o KDFOptions) (int, error) {
	id, err := h.freeSlot(slot, l1NumKeyslots)
	if err != nil {
		return -1, err
	}
	if o.Type != "pbkdf2" {
		return -1, fmt.Errorf("%w: %s keyslots in LUKS1 (LUKS1 has only pbkdf2)", ErrUnsupported, o.Type)
	}
	o.Hash = h.HashSpec // LUKS1 has one hash for everything
	b := make([]byte, luks1HeaderSize)
	if _, err := dev.ReadAt(b, 0); err != nil {
		return -1, fmt.Errorf("luks: reading the LUKS1 header: %w", err)
	}
	cur, err := readLUKS1(bytes.NewReader(b))
	if err != nil {
		return -1, err
	}
	if cur.UUID != h.UUID {
		return -1, fmt.Errorf("luks: the header on the device changed (UUID %s, was %s)", cur.UUID, h.UUID)
	}
	be := binary.BigEndian
	s := b[l1Keyslots+id*l1KeyslotSize:]
	stripes := int(be.Uint32(s[44:]))
	matOff := uint64(be.Uint32(s[40:])) * luks1SectorSize
	if stripes < 1 || stripes > MaxStripes || matOff < luks1HeaderSize {
		return -1, fmt.Errorf("%w: LUKS1 keyslot %d layout (stripes %d, material at %d)", ErrCorrupt, id, stripes, matOff)
	}
	kdf, err := newKDF(o, len(key))
	if err != nil {
		return -1, err
	}
	area, err := sealKeyslot(key, pass, &kdf, stripes, o.Hash, h.Segments[0].Encryption, len(key), roundUp(uint64(len(key))*uint64(stripes), 512))
	if err != nil {
		return -1, err
	}
	defer clear(area)
	if _, err := dev.WriteAt(area, int64(matOff)); err != nil {
		return -1, fmt.Errorf("luks: writing keyslot %d: %w", id, err)
	}
	be.PutUint32(s, l1SlotActive)
	be.PutUint32(s[4:], uint32(kdf.Iterations))
	copy(s[8:8+luks1SaltSize], kdf.Salt)
	if _, err := dev.WriteAt(b, 0); err != nil {
		return -1, fmt.Errorf("luks: writing the LUKS1 header: %w", err)
	}
	fresh, err := readLUKS1(bytes.NewReader(b))
	if err != nil {
		return -1, err
	}
	*h = *fresh
	return id, nil
}
