package luks

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"strings"
)

// AnyKeyslot asks Unlock to try every usable keyslot that holds the key
// of the data segment. Unbound keyslots (cryptsetup luksAddKey --unbound:
// they hold a key of no segment in use) are left out, as cryptsetup
// leaves them out when it opens a device: the key one of them holds
// would decrypt the volume to garbage.
const AnyKeyslot = -1

// AnyKeyslotOrUnbound asks Unlock to try every active keyslot, unbound
// ones too, as cryptsetup luksChangeKey does.
const AnyKeyslotOrUnbound = -2

// CheckSupported returns an error naming the first feature of h that this
// package refuses to open: a mandatory requirement flag (such as a
// reencryption in progress), several segments, integrity protection, or a
// data cipher it does not implement.
func (h *Header) CheckSupported() error {
	// Every mandatory requirement is one this package does not implement;
	// the first one is named.
	if len(h.Config.Requirements) > 0 {
		r := h.Config.Requirements[0]
		if strings.HasPrefix(r, "online") || r == "offline-reencrypt" {
			return fmt.Errorf("%w: a reencryption is in progress (requirement flag %q); resume it first (ResumeReencrypt, xts luks reencrypt --resume-only, cryptsetup reencrypt --resume-only)", ErrUnsupported, r)
		}
		return fmt.Errorf("%w: mandatory requirement flag %q", ErrUnsupported, r)
	}
	seg, err := h.DataSegment()
	if err != nil {
		return err
	}
	if seg.Type != "crypt" {
		return fmt.Errorf("%w: data segment type %q", ErrUnsupported, seg.Type)
	}
	if ss := seg.SectorSize; ss < 512 || ss > 4096 || ss&(ss-1) != 0 {
		return fmt.Errorf("%w: data segment sector size %d (512 to 4096, a power of two)", ErrUnsupported, ss)
	}
	if seg.Integrity != "" {
		return fmt.Errorf("%w: integrity protection (%s, dm-integrity)", ErrUnsupported, seg.Integrity)
	}
	if _, err := parseCipherSpec(seg.Encryption); err != nil {
		return fmt.Errorf("data segment: %w", err)
	}
	return nil
}

// slotOrder lists the keyslots Unlock tries: the one named, or every
// active one (AnyKeyslot: bound to the data segment) of priority prefer,
// then those of priority normal, each group in ascending id order.
func (h *Header) slotOrder(slot int) ([]*Keyslot, error) {
	if slot != AnyKeyslot && slot != AnyKeyslotOrUnbound {
		k, ok := h.Keyslot(slot)
		if !ok || !k.Active {
			return nil, fmt.Errorf("luks: keyslot %d is not active", slot)
		}
		return []*Keyslot{k}, nil
	}
	var out []*Keyslot
	for _, p := range []int{PriorityPrefer, PriorityNormal} {
		for i := range h.Keyslots {
			k := &h.Keyslots[i]
			if slot == AnyKeyslot && h.Version == 2 && !h.Bound(k.ID) {
				continue
			}
			if k.Active && k.Priority == p {
				out = append(out, k)
			}
		}
	}
	return out, nil
}

// Unlock returns the volume key that passphrase opens and the keyslot
// that held it. dev is the device that holds the header (the image, or
// the detached header file). slot is a keyslot id, or AnyKeyslot to try
// the keyslots in priority order (AnyKeyslotOrUnbound: unbound ones too).
// A passphrase that opens no keyslot gives ErrNoKey. A keyslot named by
// its id may be unbound: its key is then not the volume key (Open refuses
// such a keyslot; Header.Bound tells).
func (h *Header) Unlock(dev io.ReaderAt, passphrase []byte, slot int) (key []byte, keyslot int, err error) {
	if err := h.CheckSupported(); err != nil {
		return nil, -1, err
	}
	slots, err := h.slotOrder(slot)
	if err != nil {
		return nil, -1, err
	}
	return h.tryKeyslots(dev, passphrase, slots)
}

// tryKeyslots returns the volume key that passphrase opens in the first
// of slots that it opens, and that keyslot's id; ErrNoKey if it opens
// none, or the first error of a keyslot that could not be tried when no
// keyslot could be.
func (h *Header) tryKeyslots(dev io.ReaderAt, passphrase []byte, slots []*Keyslot) (key []byte, keyslot int, err error) {
	var firstErr error
	tried := 0
	for _, k := range slots {
		key, err := h.openKeyslot(dev, k, passphrase)
		if err == nil {
			return key, k.ID, nil
		}
		if errors.Is(err, ErrNoKey) {
			tried++
			continue
		}
		if firstErr == nil {
			firstErr = fmt.Errorf("keyslot %d: %w", k.ID, err)
		}
	}
	if tried == 0 && firstErr != nil {
		return nil, -1, firstErr
	}
	return nil, -1, ErrNoKey
}

// check reports whether key matches the digest (ErrWrongKey if not).
func (d *Digest) check(key []byte) error {
	if d.Type != "pbkdf2" {
		return fmt.Errorf("%w: digest type %q", ErrUnsupported, d.Type)
	}
	if d.Iterations < 1 || d.Iterations > MaxIterations {
		return fmt.Errorf("%w: digest iterations %d", ErrCorrupt, d.Iterations)
	}
	if len(d.Value) == 0 || len(d.Value) > 64 {
		return fmt.Errorf("%w: digest of %d bytes", ErrCorrupt, len(d.Value))
	}
	got, err := pbkdf2Key(d.Hash, key, d.Salt, d.Iterations, len(d.Value))
	if err != nil {
		return err
	}
	if subtle.ConstantTimeCompare(got, d.Value) != 1 {
		return ErrWrongKey
	}
	return nil
}

// CheckVolumeKey reports whether key is the volume key of h's data
// segment (nil), or ErrWrongKey.
func (h *Header) CheckVolumeKey(key []byte) error {
	if err := h.CheckSupported(); err != nil {
		return err
	}
	for i := range h.Digests {
		d := &h.Digests[i]
		for _, s := range d.Segments {
			if s == h.Segments[0].ID {
				return d.check(key)
			}
		}
	}
	return fmt.Errorf("%w: no digest covers the data segment", ErrCorrupt)
}
