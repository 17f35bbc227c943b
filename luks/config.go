package luks

import (
	"fmt"
	"strings"
)

// SetUUID gives the header a new UUID, as cryptsetup luksUUID --uuid
// does: uuid in the 8-4-4-4-12 hex form (stored in lower case), or ""
// for a new random one. LUKS1 and LUKS2. The change is committed as
// every header change is (see the package documentation); on success h
// is the header as written.
func (h *Header) SetUUID(dev ReadWriterAt, uuid string) error {
	if uuid == "" {
		u, err := newUUID()
		if err != nil {
			return err
		}
		uuid = u
	} else if err := checkUUID(uuid); err != nil {
		return err
	}
	nh := h.clone()
	nh.UUID = strings.ToLower(uuid)
	return h.commitSimple(dev, nh)
}

// CheckUUID reports whether u is a UUID SetUUID takes: 8-4-4-4-12 hex
// digits, either case (nil), or an error saying what is wrong.
func CheckUUID(u string) error { return checkUUID(u) }

// SetLabel sets the LUKS2 label and subsystem, both at once, as
// cryptsetup config --label L --subsystem S does (an empty string
// clears one; cryptsetup clears the one not given). Each is at most 47
// bytes. LUKS1 headers have neither: refused with ErrUnsupported.
func (h *Header) SetLabel(dev ReadWriterAt, label, subsystem string) error {
	if h.Version != 2 {
		return fmt.Errorf("%w: a label and subsystem on a LUKS1 header (LUKS2 only)", ErrUnsupported)
	}
	if len(label) > 47 || len(subsystem) > 47 {
		return fmt.Errorf("luks: label of %d bytes or subsystem of %d: at most 47 each", len(label), len(subsystem))
	}
	nh := h.clone()
	nh.Label, nh.Subsystem = label, subsystem
	return h.commitSimple(dev, nh)
}

// SetPriority sets the priority of LUKS2 keyslot slot (PriorityIgnore,
// PriorityNormal or PriorityPrefer), as cryptsetup config --priority
// ignore|normal|prefer --key-slot N does. Unlock with AnyKeyslot tries
// the preferred keyslots first and skips the ignored ones. LUKS1 has no
// priorities: refused with ErrUnsupported.
func (h *Header) SetPriority(dev ReadWriterAt, slot, priority int) error {
	if h.Version != 2 {
		return fmt.Errorf("%w: keyslot priorities on a LUKS1 header (LUKS2 only)", ErrUnsupported)
	}
	if priority < PriorityIgnore || priority > PriorityPrefer {
		return fmt.Errorf("luks: keyslot priority %d (0 ignore, 1 normal, 2 prefer)", priority)
	}
	nh := h.clone()
	k, ok := nh.Keyslot(slot)
	if !ok {
		return fmt.Errorf("luks: keyslot %d is not active", slot)
	}
	if k.Type != "luks2" {
		return fmt.Errorf("%w: a priority for keyslot %d of type %q", ErrUnsupported, slot, k.Type)
	}
	k.Priority = priority
	return h.commitSimple(dev, nh)
}

// commitSimple commits nh, a change of h's header alone (no keyslot
// material), and makes h the header as written.
func (h *Header) commitSimple(dev ReadWriterAt, nh *Header) error {
	written, err := commit(dev, h, nh, nil)
	if err != nil {
		return err
	}
	*h = *written
	return nil
}
