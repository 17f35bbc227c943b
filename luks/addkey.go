package luks

import (
	"fmt"
	"io"
	"slices"
	"sort"
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
// device that holds the header. The change is committed as every header
// change is (see the package documentation): keyslot material first,
// then the header; refused if the header on dev is no longer h. On
// success h is updated in place to the header as written; on error it is
// unchanged.
func (h *Header) AddKey(dev ReadWriterAt, volumeKey, newPassphrase []byte, slot int, o KDFOptions) (int, error) {
	if err := h.CheckVolumeKey(volumeKey); err != nil {
		return -1, err
	}
	o, err := o.withDefaults(h.Version)
	if err != nil {
		return -1, err
	}
	var (
		nh  *Header
		mat keyslotWrite
		id  int
	)
	if h.Version == 1 {
		nh, mat, id, err = h.withKeyslotLUKS1(volumeKey, newPassphrase, slot, o)
	} else {
		nh, mat, id, err = h.withKeyslotLUKS2(volumeKey, newPassphrase, slot, o)
	}
	if err != nil {
		return -1, err
	}
	defer clear(mat.data)
	written, err := commit(dev, h, nh, []keyslotWrite{mat})
	if err != nil {
		return -1, err
	}
	*h = *written
	return id, nil
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

// withKeyslotLUKS2 returns h with a new keyslot for pass, bound to the
// data segment's digest, and the keyslot's material.
func (h *Header) withKeyslotLUKS2(key, pass []byte, slot int, o KDFOptions) (*Header, keyslotWrite, int, error) {
	id, err := h.freeSlot(slot, maxObjects)
	if err != nil {
		return nil, keyslotWrite{}, -1, err
	}
	seg := h.Segments[0]
	ks, mat, err := h.sealLUKS2Keyslot(id, key, pass, seg.Encryption, len(key), o)
	if err != nil {
		return nil, keyslotWrite{}, -1, err
	}
	nh := h.clone()
	d := -1
	for i := range nh.Digests {
		if slices.Contains(nh.Digests[i].Segments, seg.ID) {
			d = i
			break
		}
	}
	if d < 0 {
		return nil, keyslotWrite{}, -1, fmt.Errorf("%w: no digest covers the data segment", ErrCorrupt)
	}
	nh.Digests[d].Keyslots = append(nh.Digests[d].Keyslots, id)
	slices.Sort(nh.Digests[d].Keyslots)
	nh.Keyslots = append(nh.Keyslots, ks)
	sortByID(nh.Keyslots, func(k *Keyslot) int { return k.ID })
	return nh, mat, id, nil
}

// sealLUKS2Keyslot returns a LUKS2 keyslot with the given id for pass,
// holding key, in the first gap of the keyslots area that fits it (apart
// from every keyslot of h), its area encrypted with enc under a key of
// areaKeySize bytes; and its material.
func (h *Header) sealLUKS2Keyslot(id int, key, pass []byte, enc string, areaKeySize int, o KDFOptions) (Keyslot, keyslotWrite, error) {
	areaSize := roundUp(uint64(len(key))*afStripes, keyslotAlign)
	off, err := h.freeArea(areaSize)
	if err != nil {
		return Keyslot{}, keyslotWrite{}, err
	}
	kdf, err := newKDF(o, len(key))
	if err != nil {
		return Keyslot{}, keyslotWrite{}, err
	}
	ks := Keyslot{ID: id, Active: true, Type: "luks2", KeySize: len(key), Priority: PriorityNormal,
		AF:   AF{Type: "luks1", Stripes: afStripes, Hash: o.Hash},
		Area: Area{Type: "raw", Offset: off, Size: areaSize, Encryption: enc, KeySize: areaKeySize},
		KDF:  kdf}
	area, err := sealKeyslot(key, pass, &ks)
	if err != nil {
		return Keyslot{}, keyslotWrite{}, err
	}
	return ks, keyslotWrite{off, area}, nil
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

// withKeyslotLUKS1 returns h with slot enabled for pass (its key material
// where the header says), and the material.
func (h *Header) withKeyslotLUKS1(key, pass []byte, slot int, o KDFOptions) (*Header, keyslotWrite, int, error) {
	if o.Type != "pbkdf2" {
		return nil, keyslotWrite{}, -1, fmt.Errorf("%w: %s keyslots in LUKS1 (LUKS1 has only pbkdf2)", ErrUnsupported, o.Type)
	}
	if h.onDisk == nil {
		return nil, keyslotWrite{}, -1, fmt.Errorf("luks: the LUKS1 header was not read from a device (use ReadHeader)")
	}
	states := decodeLUKS1(h.onDisk).slots
	if slot == AnyKeyslot { // the lowest disabled slot
		for i := range states {
			if states[i].state == l1SlotInactive {
				slot = i
				break
			}
		}
		if slot == AnyKeyslot {
			return nil, keyslotWrite{}, -1, fmt.Errorf("luks: all %d keyslots are in use", l1NumKeyslots)
		}
	}
	id, err := h.freeSlot(slot, l1NumKeyslots)
	if err != nil {
		return nil, keyslotWrite{}, -1, err
	}
	if st := states[id].state; st != l1SlotInactive {
		return nil, keyslotWrite{}, -1, fmt.Errorf("luks: LUKS1 keyslot %d has state %#x, neither enabled nor disabled: not reused", id, st)
	}
	o.Hash = h.HashSpec // LUKS1 has one hash for everything
	kdf, err := newKDF(o, len(key))
	if err != nil {
		return nil, keyslotWrite{}, -1, err
	}
	nh := h.clone()
	k := &nh.Keyslots[id]
	k.Active, k.KDF = true, kdf
	nh.Digests[0].Keyslots = append(nh.Digests[0].Keyslots, id)
	slices.Sort(nh.Digests[0].Keyslots)
	area, err := sealKeyslot(key, pass, k)
	if err != nil {
		return nil, keyslotWrite{}, -1, err
	}
	return nh, keyslotWrite{k.Area.Offset, area}, id, nil
}
