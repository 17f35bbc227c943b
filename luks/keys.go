package luks

import (
	"errors"
	"fmt"
	"slices"
)

// Removing keyslots (cryptsetup's luksKillSlot, luksRemoveKey,
// luksChangeKey and luksErase). Every removal is two phases: first the
// header without the keyslot is committed (as every header change is;
// see the package documentation), then the keyslot's area is overwritten
// with random bytes, as cryptsetup wipes it. A power loss in either phase
// leaves every other keyslot as it was: the first phase writes only the
// header, the second only an area no keyslot of the new header uses.
// When dev has a Sync method (an *os.File), every write is flushed to
// disk before the next, so the writes land in that order.

// ErrInactiveKeyslot means the keyslot named is not in use (cryptsetup's
// "Keyslot N is not active.").
var ErrInactiveKeyslot = errors.New("luks: keyslot is not active")

// inactiveError is ErrInactiveKeyslot naming the keyslot.
type inactiveError int

func (e inactiveError) Error() string        { return fmt.Sprintf("luks: keyslot %d is not active", int(e)) }
func (e inactiveError) Is(target error) bool { return target == ErrInactiveKeyslot }

// KillSlot removes keyslot id and wipes its area (cryptsetup
// luksKillSlot). It asks for no passphrase: a caller that must be
// authorised checks one first, as cryptsetup does. A bound keyslot, an
// unbound one (cryptsetup luksAddKey --unbound; its digest goes with it,
// as cryptsetup drops a digest left with no keyslot and no segment) and
// the last keyslot are all removed alike; tokens keep their other
// keyslots. Refused: an id out of range, a keyslot not in use
// (ErrInactiveKeyslot), a LUKS1 slot whose state is neither enabled nor
// disabled (cryptsetup calls it invalid), a LUKS2 keyslot of a type other
// than luks2. On success h is the header as written. If the header was
// committed but the wipe failed, h is updated and the error says so.
func (h *Header) KillSlot(dev ReadWriterAt, id int) error {
	if err := h.checkKeyslotVerb(); err != nil {
		return err
	}
	if err := h.checkRemovable(id); err != nil {
		return err
	}
	return h.dropKeyslots(dev, []int{id}, nil)
}

// RemoveKey removes the keyslot that passphrase opens (cryptsetup
// luksRemoveKey) and returns its id: the first, in the order Unlock tries
// them, of the keyslots bound to the data segment (an unbound keyslot's
// passphrase gives ErrNoKey, as in cryptsetup). Then as KillSlot.
func (h *Header) RemoveKey(dev ReadWriterAt, passphrase []byte) (int, error) {
	if err := h.checkKeyslotVerb(); err != nil {
		return -1, err
	}
	if err := h.CheckSupported(); err != nil {
		return -1, err
	}
	slots, err := h.slotOrder(AnyKeyslot)
	if err != nil {
		return -1, err
	}
	slots = slices.DeleteFunc(slots, func(k *Keyslot) bool { return !h.Bound(k.ID) })
	key, id, err := h.tryKeyslots(dev, passphrase, slots)
	clear(key)
	if err != nil {
		return -1, err
	}
	if err := h.checkRemovable(id); err != nil {
		return -1, err
	}
	return id, h.dropKeyslots(dev, []int{id}, nil)
}

// ChangeKey replaces the passphrase of a keyslot (cryptsetup
// luksChangeKey): oldPass opens keyslot slot (AnyKeyslot: whichever it
// opens, bound or unbound), a keyslot for newPass holding the same key
// (KDF as o says) is committed, and only then is the old one removed and
// wiped. It returns the new keyslot's id. At every point of a power loss
// the old or the new passphrase opens the image.
//
// LUKS2: the keyslot keeps its id (its digest, tokens and binding) and
// gets a new area beside the old one, with priority normal, or its own
// priority when slot names it, as cryptsetup 2.6 does. LUKS1: the new
// keyslot is the lowest free one, as with cryptsetup without
// --key-slot; with a slot given, cryptsetup
// rewrites that slot in place, and this package puts the key in the
// lowest free slot too. When there is no free LUKS1 slot, or no room in
// the LUKS2 keyslots area, it refuses: cryptsetup would overwrite the old
// keyslot in place, and a power loss then loses the passphrase.
func (h *Header) ChangeKey(dev ReadWriterAt, oldPass, newPass []byte, slot int, o KDFOptions) (int, error) {
	if err := h.checkKeyslotVerb(); err != nil {
		return -1, err
	}
	o, err := o.withDefaults(h.Version)
	if err != nil {
		return -1, err
	}
	if slot != AnyKeyslot {
		if err := h.checkRemovable(slot); err != nil {
			return -1, err
		}
	}
	named := slot != AnyKeyslot
	if !named {
		slot = AnyKeyslotOrUnbound // luksChangeKey changes unbound keyslots too
	}
	key, id, err := h.Unlock(dev, oldPass, slot)
	if err != nil {
		return -1, err
	}
	defer clear(key)
	if err := h.checkRemovable(id); err != nil {
		return -1, err
	}
	if h.Version == 1 {
		return h.changeKeyLUKS1(dev, key, newPass, id, o)
	}
	old, _ := h.Keyslot(id)
	oldArea := h.wipeSpan(old)
	nk, mat, err := h.sealLUKS2Keyslot(id, key, newPass, old.Area.Encryption, old.Area.KeySize, o)
	if err != nil {
		return -1, fmt.Errorf("luks: no room for the new keyslot beside keyslot %d (cryptsetup would overwrite it in place, which a power loss can make lose the passphrase; remove a keyslot first): %w", id, err)
	}
	defer clear(mat.data)
	nh := h.clone()
	if named {
		nk.Priority = old.Priority
	}
	k, _ := nh.Keyslot(id)
	*k = nk
	written, err := commit(ordered(dev), h, nh, []keyslotWrite{mat})
	if err != nil {
		return -1, err
	}
	*h = *written
	if err := wipeSpans(dev, []span{oldArea}); err != nil {
		return -1, err
	}
	return id, nil
}

// changeKeyLUKS1 commits a new slot for newPass holding key, then removes
// slot old: two header writes, each changing one slot, so that a torn
// write of the 592-byte header touches no other slot's bytes.
func (h *Header) changeKeyLUKS1(dev ReadWriterAt, key, newPass []byte, old int, o KDFOptions) (int, error) {
	if h.onDisk == nil {
		return -1, fmt.Errorf("luks: the LUKS1 header was not read from a device (use ReadHeader)")
	}
	free := slices.ContainsFunc(decodeLUKS1(h.onDisk).slots[:], func(s luks1Slot) bool { return s.state == l1SlotInactive })
	if !free {
		return -1, fmt.Errorf("luks: no free LUKS1 keyslot for the new passphrase (cryptsetup would overwrite keyslot %d in place, which a power loss can make lose the passphrase; remove a keyslot first)", old)
	}
	nh, mat, id, err := h.withKeyslotLUKS1(key, newPass, AnyKeyslot, o)
	if err != nil {
		return -1, err
	}
	defer clear(mat.data)
	written, err := commit(ordered(dev), h, nh, []keyslotWrite{mat})
	if err != nil {
		return -1, err
	}
	*h = *written
	if err := h.dropKeyslots(dev, []int{old}, nil); err != nil {
		return -1, err
	}
	return id, nil
}

// Erase removes every keyslot that opens the volume and wipes their areas
// (cryptsetup luksErase), in one header write. As cryptsetup 2.6 does, it
// keeps what does not open the volume: unbound LUKS2 keyslots (with their
// digests), the digest of the data segment, tokens (with no keyslots),
// and a LUKS1 slot whose state is neither enabled nor disabled keeps its
// state; unlike cryptsetup, the key material of such a slot is wiped too,
// so that no edit of its state can make it open again. An image with
// nothing to remove is left as it is.
func (h *Header) Erase(dev ReadWriterAt) error {
	if err := h.checkKeyslotVerb(); err != nil {
		return err
	}
	var (
		ids   []int
		extra []span
	)
	var states []luks1Slot
	if h.Version == 1 {
		if h.onDisk == nil {
			return fmt.Errorf("luks: the LUKS1 header was not read from a device (use ReadHeader)")
		}
		states = decodeLUKS1(h.onDisk).slots[:]
	}
	for i := range h.Keyslots {
		k := &h.Keyslots[i]
		switch {
		case h.Version == 2 && h.Bound(k.ID), h.Version == 1 && k.Active:
			ids = append(ids, k.ID)
		case h.Version == 1 && k.ID < len(states) && states[k.ID].state != l1SlotInactive:
			extra = append(extra, h.wipeSpan(k))
		}
	}
	if len(ids) == 0 {
		return wipeSpans(dev, extra)
	}
	return h.dropKeyslots(dev, ids, extra)
}

// checkKeyslotVerb refuses headers whose keyslots this package does not
// change: a mandatory requirement (a reencryption in progress) is set.
func (h *Header) checkKeyslotVerb() error {
	if len(h.Config.Requirements) > 0 {
		return fmt.Errorf("%w: mandatory requirement flag %q (a reencryption in progress?): keyslots are not changed", ErrUnsupported, h.Config.Requirements[0])
	}
	if h.Version != 1 && h.Version != 2 {
		return fmt.Errorf("luks: LUKS version %d", h.Version)
	}
	return nil
}

// maxKeyslot is the highest keyslot id of the header's version.
func (h *Header) maxKeyslot() int {
	if h.Version == 1 {
		return l1NumKeyslots - 1
	}
	return maxObjects - 1
}

// checkRemovable reports whether keyslot id is one KillSlot removes.
func (h *Header) checkRemovable(id int) error {
	if id < 0 || id > h.maxKeyslot() {
		return fmt.Errorf("luks: keyslot %d out of range (0 to %d)", id, h.maxKeyslot())
	}
	k, ok := h.Keyslot(id)
	if h.Version == 1 && h.onDisk != nil {
		if st := decodeLUKS1(h.onDisk).slots[id].state; st != l1SlotActive && st != l1SlotInactive {
			return fmt.Errorf("luks: LUKS1 keyslot %d has state %#x, neither enabled nor disabled (cryptsetup: invalid); not changed", id, st)
		}
	}
	if !ok || !k.Active {
		return inactiveError(id)
	}
	if h.Version == 2 && k.Type != "luks2" {
		return fmt.Errorf("%w: keyslot %d of type %q", ErrUnsupported, id, k.Type)
	}
	return nil
}

// wipeSpan is what removing keyslot k wipes: its LUKS2 area; its LUKS1
// key material rounded up to 4096 bytes as cryptsetup wipes it (the gap
// before the next slot's material in cryptsetup's layouts), but never
// into another slot's material or the payload.
func (h *Header) wipeSpan(k *Keyslot) span {
	if h.Version == 2 {
		return span{k.Area.Offset, k.Area.Offset + k.Area.Size}
	}
	end := k.Area.Offset + roundUp(k.Area.Size, keyslotAlign)
	for _, o := range h.Keyslots {
		if o.ID != k.ID && o.Area.Offset >= k.Area.Offset+k.Area.Size {
			end = min(end, o.Area.Offset)
		}
	}
	if p := h.PayloadOffset * luks1SectorSize; p != 0 {
		end = min(end, p)
	}
	return span{k.Area.Offset, end}
}

// dropKeyslots commits h without the keyslots ids, then wipes their
// areas and the spans in extra. On success h is the header as written.
func (h *Header) dropKeyslots(dev ReadWriterAt, ids []int, extra []span) error {
	nh := h.clone()
	wipes := slices.Clone(extra)
	for _, id := range ids {
		k, _ := h.Keyslot(id)
		wipes = append(wipes, h.wipeSpan(k))
		for i := range nh.Digests {
			nh.Digests[i].Keyslots = slices.DeleteFunc(nh.Digests[i].Keyslots, func(v int) bool { return v == id })
		}
		if h.Version == 1 {
			nk, _ := nh.Keyslot(id)
			nk.Active = false
			nk.KDF.Iterations, nk.KDF.Salt = 0, make([]byte, luks1SaltSize)
			continue
		}
		nh.Keyslots = slices.DeleteFunc(nh.Keyslots, func(k Keyslot) bool { return k.ID == id })
		for i := range nh.Tokens {
			nh.Tokens[i].Keyslots = slices.DeleteFunc(nh.Tokens[i].Keyslots, func(v int) bool { return v == id })
		}
	}
	if h.Version == 2 {
		// A digest left with no keyslot and no segment (an unbound
		// keyslot's) goes, as cryptsetup drops it.
		nh.Digests = slices.DeleteFunc(nh.Digests, func(d Digest) bool { return len(d.Keyslots) == 0 && len(d.Segments) == 0 })
	}
	written, err := commit(ordered(dev), h, nh, nil)
	if err != nil {
		return err
	}
	*h = *written
	return wipeSpans(dev, wipes)
}

// wipeSpans overwrites each span with random bytes, as cryptsetup wipes a
// removed keyslot, and flushes them when dev can.
func wipeSpans(dev ReadWriterAt, spans []span) error {
	for _, s := range spans {
		if err := wipeRandom(ordered(dev), s.lo, s.hi-s.lo); err != nil {
			return fmt.Errorf("luks: the header without the keyslot is written, but wiping its area (%d bytes at %d) failed: %w", s.hi-s.lo, s.lo, err)
		}
	}
	return nil
}

// orderedDev flushes each write to disk before the next starts.
type orderedDev struct {
	ReadWriterAt
	s syncer
}

func (d orderedDev) WriteAt(p []byte, off int64) (int, error) {
	n, err := d.ReadWriterAt.WriteAt(p, off)
	if err != nil {
		return n, err
	}
	if err := d.s.Sync(); err != nil {
		return n, fmt.Errorf("luks: flushing to disk: %w", err)
	}
	return n, nil
}

// ordered returns dev, each write flushed before the next when dev has a
// Sync method.
func ordered(dev ReadWriterAt) ReadWriterAt {
	if s, ok := dev.(syncer); ok {
		return orderedDev{dev, s}
	}
	return dev
}
