package luks

import (
	"bytes"
	"fmt"
	"strings"
)

// ConvertError is Convert's refusal of a LUKS2 header that LUKS1 cannot
// describe; Reason says why in cryptsetup's words ("keyslot 0 is not
// LUKS1 compatible"). errors.Is(err, ErrUnsupported) holds.
type ConvertError struct{ Reason string }

func (e *ConvertError) Error() string {
	return "luks: cannot convert to LUKS1 format - " + e.Reason
}

// Is makes errors.Is(err, ErrUnsupported) true.
func (e *ConvertError) Is(target error) bool { return target == ErrUnsupported }

// Convert changes the header to LUKS version 1 or 2 in place, as
// cryptsetup convert --type luks1|luks2 does; the volume key, the
// passphrases, the UUID and the data stay. On success h is the header as
// written.
//
// LUKS1 to LUKS2: the LUKS2 header copies take the first 32 KiB, where
// LUKS1 keyslot 0's key material begins. cryptsetup moves all key
// material up by 28 KiB in place, which a crash in the middle can leave
// half moved; Convert instead first moves slot 0's material (any enabled
// slot's that lies in the first 32 KiB), in one LUKS1 header write each,
// after copying it there: to the place of a disabled slot whose phdr
// entry shares its 512-byte sector (slots 1 to 5 for slot 0; they swap
// places), else to free room before the data (after the last slot's in
// cryptsetup's layouts). Then it writes the LUKS2 secondary copy, then
// the primary's first sector (its magic: the primary stays invalid, the
// secondary in force, until the rest lands), then the rest. Every other
// keyslot's material stays where it is. So at every point a power loss
// leaves a LUKS1 or a LUKS2 header that every passphrase opens. Where
// there is no room to move it, or the LUKS2 header cannot describe the
// result, Convert refuses before it writes anything. The LUKS2 result has 16 KiB header
// copies, the keyslots area up to the data (or, detached, to the end of
// the last LUKS1 key material), sequence id 2 as cryptsetup's.
//
// LUKS2 to LUKS1: refused with a *ConvertError where cryptsetup refuses:
// a reencryption or other requirement, more than one segment, a sector
// size other than 512, integrity, tokens, keyslots above 7, keyslots
// that are not pbkdf2 with the segment's cipher and the digest's hash
// (argon2 ones, say), a digest that is not the one of every keyslot.
// The label, subsystem and keyslot priorities are dropped, as cryptsetup
// drops them. The key material stays where it is (LUKS1 slots point to
// it; cryptsetup moves it down instead); disabled LUKS1 slots are placed
// in free room of the keyslots area. Both LUKS2 copies are first made
// current, then the LUKS1 header's second sector is written (which only
// invalidates the LUKS2 primary copy: the secondary is in force), then
// its first, then the rest of the LUKS2 copies is zeroed.
func (h *Header) Convert(dev ReadWriterAt, version int) error {
	if version != 1 && version != 2 {
		return fmt.Errorf("luks: LUKS version %d (1 or 2)", version)
	}
	if version == h.Version {
		return fmt.Errorf("luks: the header is already LUKS%d", version)
	}
	var err error
	if version == 2 {
		err = h.toLUKS2(dev)
	} else {
		err = h.toLUKS1(dev)
	}
	if err != nil {
		return err
	}
	nh, err := ReadHeader(dev)
	if err != nil {
		return fmt.Errorf("luks: the converted header does not read back: %w", err)
	}
	*h = *nh
	return nil
}

// toLUKS2 converts the LUKS1 header h on dev to LUKS2. Everything is
// planned and the LUKS2 header encoded and checked before the first
// write, so a conversion that cannot be done writes nothing.
func (h *Header) toLUKS2(dev ReadWriterAt) error {
	moves, final, err := h.planMoves()
	if err != nil {
		return err
	}
	nh, err := final.luks2Equivalent()
	if err != nil {
		return err
	}
	copies, offsets, _, err := encodeHeader(nh)
	if err != nil {
		return fmt.Errorf("luks: cannot convert to LUKS2 format: the LUKS2 header cannot describe this LUKS1 layout (nothing written): %w", err)
	}
	cur := h
	for _, mv := range moves {
		old, _ := cur.Keyslot(mv.id)
		m := make([]byte, old.Area.Size)
		if _, err := dev.ReadAt(m, int64(old.Area.Offset)); err != nil {
			clear(m)
			return fmt.Errorf("luks: reading keyslot %d's key material: %w", mv.id, err)
		}
		nk, _ := mv.next.Keyslot(mv.id)
		w, err := commit(dev, cur, mv.next, []keyslotWrite{{nk.Area.Offset, m}})
		clear(m)
		if err != nil {
			return err
		}
		if err := syncDev(dev); err != nil {
			return err
		}
		cur = w
	}
	// A detached header's file must hold the whole LUKS2 keyslots area
	// (cryptsetup refuses a shorter one): moved key material can end
	// up to 4095 bytes short of it.
	if end := 2*nh.HeaderSize + nh.Config.KeyslotsSize; h.Segments[0].Offset == 0 {
		if size, err := DeviceSize(dev); err == nil && uint64(size) < end {
			if _, err := dev.WriteAt(make([]byte, end-uint64(size)), size); err != nil {
				return fmt.Errorf("luks: extending the detached header to %d bytes: %w", end, err)
			}
		}
	}
	if err := checkUnchanged(dev, cur); err != nil {
		return err
	}
	sec, prim := copies[0], copies[1]
	return writeSteps(dev, "LUKS2", []keyslotWrite{{offsets[0], sec}, {0, prim[:luks1SectorSize]}, {luks1SectorSize, prim[luks1SectorSize:]}})
}

// keyslotMove is one LUKS1 header write of toLUKS2: keyslot id's key
// material copied to where next (the whole LUKS1 header after the write)
// puts it.
type keyslotMove struct {
	id   int
	next *Header
}

// planMoves plans moving the key material of every enabled LUKS1 slot
// that lies where the LUKS2 header copies go (the first 32 KiB: slot 0's
// in cryptsetup's layouts) out of the way, one slot per LUKS1 header
// write, each write changing one 512-byte sector of the phdr (so a torn
// write leaves the old or the new phdr): swapped with the place of a
// disabled slot whose entry lies in the same sector, else moved to free
// room after 32 KiB, 4096-aligned, that the LUKS2 keyslots area covers
// (before the data; a detached header's may grow). It returns the moves
// and the LUKS1 header after them.
func (h *Header) planMoves() ([]keyslotMove, *Header, error) {
	const areas = 2 * luks2MetadataSize
	if h.onDisk == nil {
		return nil, nil, fmt.Errorf("luks: the LUKS1 header was not read from a device (use ReadHeader)")
	}
	states := decodeLUKS1(h.onDisk).slots
	// sector of the phdr that holds slot i's key material offset
	sector := func(i int) int { return (l1Keyslots + i*l1KeyslotSize + l1SlotMaterial) / luks1SectorSize }
	limit := h.Segments[0].Offset / keyslotAlign * keyslotAlign
	if h.Segments[0].Offset == 0 {
		limit = areas + maxKeyslotsSize
	}
	var moves []keyslotMove
	cur := h
	for i := range h.Keyslots {
		k := h.Keyslots[i]
		if !k.Active || k.Area.Offset >= areas {
			continue
		}
		next := cur.clone()
		a := &next.Keyslots[k.ID]
		j := -1
		for c := range next.Keyslots {
			s := &next.Keyslots[c]
			if !s.Active && s.Area.Offset >= areas && states[c].state == l1SlotInactive && sector(c) == sector(k.ID) &&
				s.Area.Offset+roundUp(s.Area.Size, keyslotAlign) <= limit {
				j = c
				break
			}
		}
		if j >= 0 {
			b := &next.Keyslots[j]
			a.Area.Offset, b.Area.Offset = b.Area.Offset, a.Area.Offset
		} else {
			var taken []span
			for _, o := range cur.Keyslots {
				taken = append(taken, span{o.Area.Offset, o.Area.Offset + roundUp(o.Area.Size, keyslotAlign)})
			}
			off, ok := freeSpan(taken, areas, limit, roundUp(k.Area.Size, keyslotAlign))
			if !ok {
				return nil, nil, fmt.Errorf("luks: keyslot %d's key material lies in the first %d bytes, where the LUKS2 header goes, and there is no free room before the data to move it to (no disabled slot to swap places with, no gap): remove a keyslot (luksKillSlot) first", k.ID, areas)
			}
			a.Area.Offset = off
		}
		moves = append(moves, keyslotMove{k.ID, next})
		cur = next
	}
	return moves, cur, nil
}

// writeSteps writes the steps in order, each flushed before the next.
func writeSteps(dev ReadWriterAt, what string, steps []keyslotWrite) error {
	for _, s := range steps {
		if _, err := dev.WriteAt(s.data, int64(s.off)); err != nil {
			return fmt.Errorf("luks: writing the %s header at %d: %w", what, s.off, err)
		}
		if err := syncDev(dev); err != nil {
			return err
		}
	}
	return nil
}

// luks2Equivalent returns the LUKS2 header that describes the LUKS1
// header h with its key material where it lies.
func (h *Header) luks2Equivalent() (*Header, error) {
	const areas = 2 * luks2MetadataSize
	seg := h.Segments[0]
	end := seg.Offset / keyslotAlign * keyslotAlign
	if seg.Offset == 0 {
		end = roundUp(h.luks1MaterialEnd(), keyslotAlign)
	}
	nh := &Header{Version: 2, UUID: h.UUID, Seqid: 2, HeaderSize: luks2MetadataSize, Checksum: "sha256",
		Segments: []Segment{{ID: 0, Type: "crypt", Offset: seg.Offset, Dynamic: true, Encryption: seg.Encryption, SectorSize: luks1SectorSize}},
		Config:   Config{JSONSize: luks2MetadataSize - binHeaderSize}}
	if end < areas {
		return nil, fmt.Errorf("luks: the LUKS1 data offset %d leaves no room for the %d-byte LUKS2 header copies", seg.Offset, areas)
	}
	nh.Config.KeyslotsSize = end - areas
	d := h.Digests[0]
	d.Keyslots = nil
	for _, k := range h.Keyslots {
		if !k.Active {
			continue
		}
		if k.Area.Offset < areas {
			return nil, fmt.Errorf("luks: keyslot %d's key material at %d lies where the LUKS2 header goes", k.ID, k.Area.Offset)
		}
		k.Type = "luks2"
		k.Area.Size = roundUp(k.Area.Size, keyslotAlign)
		nh.Keyslots = append(nh.Keyslots, k)
		d.Keyslots = append(d.Keyslots, k.ID)
	}
	nh.Digests = []Digest{d}
	return nh, nil
}

// toLUKS1 converts the LUKS2 header h on dev to LUKS1.
func (h *Header) toLUKS1(dev ReadWriterAt) error {
	nh, err := h.luks1Equivalent()
	if err != nil {
		return err
	}
	copies, _, _, err := encodeHeader(nh)
	if err != nil {
		return err
	}
	phdr := copies[0]
	// Both LUKS2 copies must hold h: the next write invalidates the
	// primary, and the secondary must then be in force.
	cur := h
	if !h.copiesCurrent(dev) {
		w, err := commit(dev, h, h.clone(), nil)
		if err != nil {
			return err
		}
		if err := syncDev(dev); err != nil {
			return err
		}
		cur = w
	}
	if err := checkUnchanged(dev, cur); err != nil {
		return err
	}
	return writeSteps(dev, "LUKS1", []keyslotWrite{
		{luks1SectorSize, phdr[luks1SectorSize:]},
		{0, phdr[:luks1SectorSize]},
		{luks1HeaderSize, make([]byte, 2*h.HeaderSize-luks1HeaderSize)},
	})
}

// copiesCurrent reports whether both LUKS2 header copies on dev are
// valid and hold h.
func (h *Header) copiesCurrent(dev ReadWriterAt) bool {
	p, err1 := readCopy(dev, 0, magic1)
	s, err2 := readCopy(dev, h.HeaderSize, magic2)
	return err1 == nil && err2 == nil && p.seqid == h.Seqid && s.seqid == h.Seqid &&
		bytes.Equal(p.area[binHeaderSize:], s.area[binHeaderSize:]) && bytes.Equal(p.area[binHeaderSize:binHeaderSize+len(h.JSON)], h.JSON)
}

// luks1Equivalent returns the LUKS1 header that describes the LUKS2
// header h, or a *ConvertError saying why there is none.
func (h *Header) luks1Equivalent() (*Header, error) {
	refuse := func(format string, a ...any) error { return &ConvertError{fmt.Sprintf(format, a...)} }
	if len(h.Config.Requirements) > 0 {
		return nil, refuse("the header has the requirement %q (a reencryption in progress?)", h.Config.Requirements[0])
	}
	if len(h.Segments) != 1 {
		return nil, refuse("the header has %d segments", len(h.Segments))
	}
	seg := h.Segments[0]
	if seg.SectorSize != luks1SectorSize {
		return nil, refuse("default segment encryption sector size is not 512 bytes")
	}
	if seg.Type != "crypt" || seg.Integrity != "" || !seg.Dynamic || seg.IVTweak != 0 || seg.Offset/luks1SectorSize > 1<<32-1 {
		return nil, refuse("the data segment (type %s, integrity %q, IV tweak %d, fixed size %v) is not LUKS1 compatible", seg.Type, seg.Integrity, seg.IVTweak, !seg.Dynamic)
	}
	if len(h.Tokens) > 0 {
		return nil, refuse("LUKS2 header contains %d token(s)", len(h.Tokens))
	}
	for _, k := range h.Keyslots {
		if k.ID >= l1NumKeyslots {
			return nil, refuse("slot %d (over maximum slots) is still active", k.ID)
		}
	}
	if len(h.Digests) != 1 || len(h.Digests[0].Segments) != 1 || len(h.Digests[0].Keyslots) != len(h.Keyslots) {
		return nil, refuse("key slot digests are not LUKS1 compatible")
	}
	d := h.Digests[0]
	if d.Type != "pbkdf2" || len(d.Value) < luks1DigestSize || len(d.Salt) != luks1SaltSize {
		return nil, refuse("key slot digests are not LUKS1 compatible")
	}
	if len(h.Keyslots) == 0 {
		return nil, refuse("the header has no keyslot")
	}
	cipher, mode, ok := strings.Cut(seg.Encryption, "-")
	if !ok || len(cipher) > 31 || len(mode) > 31 || len(d.Hash) > 31 {
		return nil, refuse("cipher %q is not LUKS1 compatible", seg.Encryption)
	}
	keySize := h.Keyslots[0].KeySize
	nh := &Header{Version: 1, UUID: h.UUID, CipherName: cipher, CipherMode: mode, HashSpec: d.Hash,
		PayloadOffset: seg.Offset / luks1SectorSize}
	nh.Segments = []Segment{{ID: 0, Type: "crypt", Offset: seg.Offset, Dynamic: true, Encryption: seg.Encryption, SectorSize: luks1SectorSize}}
	nd := Digest{ID: 0, Type: "pbkdf2", Segments: []int{0}, Hash: d.Hash, Iterations: d.Iterations,
		Salt: d.Salt, Value: d.Value[:luks1DigestSize]}
	size := luks1Sectors(keySize, afStripes) * luks1SectorSize
	var taken []span
	slots := make([]Keyslot, l1NumKeyslots)
	have := make([]bool, l1NumKeyslots)
	for _, k := range h.Keyslots {
		if k.Type != "luks2" || k.KDF.Type != "pbkdf2" || k.KDF.Hash != d.Hash || k.AF.Hash != d.Hash || k.AF.Type != "luks1" ||
			k.AF.Stripes != afStripes || k.KeySize != keySize || k.Area.Encryption != seg.Encryption || k.Area.KeySize != keySize ||
			len(k.KDF.Salt) != luks1SaltSize || k.Area.Offset%luks1SectorSize != 0 || k.Area.Size < size {
			return nil, refuse("keyslot %d is not LUKS1 compatible", k.ID)
		}
		slots[k.ID] = Keyslot{ID: k.ID, Active: true, Type: "luks1", KeySize: keySize, Priority: PriorityNormal,
			AF: AF{Type: "luks1", Stripes: afStripes, Hash: d.Hash}, KDF: k.KDF,
			Area: Area{Type: "raw", Offset: k.Area.Offset, Size: size, Encryption: seg.Encryption, KeySize: keySize}}
		have[k.ID] = true
		taken = append(taken, span{k.Area.Offset, k.Area.Offset + size})
		nd.Keyslots = append(nd.Keyslots, k.ID)
	}
	end := 2*h.HeaderSize + h.Config.KeyslotsSize
	if seg.Offset != 0 {
		end = min(end, seg.Offset)
	}
	for id := range slots {
		if have[id] {
			continue
		}
		off, ok := freeSpan(taken, keyslotAlign, end, size)
		if !ok {
			return nil, fmt.Errorf("luks: no room below byte %d for the key material of LUKS1's %d keyslots", end, l1NumKeyslots)
		}
		taken = append(taken, span{off, off + size})
		slots[id] = Keyslot{ID: id, Type: "luks1", KeySize: keySize, Priority: PriorityNormal,
			AF:   AF{Type: "luks1", Stripes: afStripes, Hash: d.Hash},
			KDF:  KDF{Type: "pbkdf2", Hash: d.Hash, Salt: make([]byte, luks1SaltSize)},
			Area: Area{Type: "raw", Offset: off, Size: size, Encryption: seg.Encryption, KeySize: keySize}}
	}
	nh.Keyslots = slots
	nh.Digests = []Digest{nd}
	return nh, nil
}
