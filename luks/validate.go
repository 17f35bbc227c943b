package luks

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// maxKeyslotsSize is the largest LUKS2 keyslots area cryptsetup accepts.
const maxKeyslotsSize = 128 << 20

// validateLUKS2 checks a parsed LUKS2 header as cryptsetup does before it
// uses one: the config against the header size, every reference between
// objects, the segments' order and overlaps, and every keyslot area inside
// the keyslots area, apart from the others and before the data.
func (h *Header) validateLUKS2() error {
	c := &h.Config
	if c.JSONSize != h.HeaderSize-binHeaderSize {
		return fmt.Errorf("%w: config json_size %d, the header holds %d", ErrCorrupt, c.JSONSize, h.HeaderSize-binHeaderSize)
	}
	if c.KeyslotsSize%keyslotAlign != 0 || c.KeyslotsSize > maxKeyslotsSize {
		return fmt.Errorf("%w: config keyslots_size %d (a multiple of 4096, at most %d)", ErrCorrupt, c.KeyslotsSize, maxKeyslotsSize)
	}
	if err := h.validateSegments(); err != nil {
		return err
	}
	areasEnd := 2*h.HeaderSize + c.KeyslotsSize
	if off := h.minDataOffset(); off != 0 && off < areasEnd {
		return fmt.Errorf("%w: config keyslots_size %d runs past the data offset %d (the keyslots area starts at %d)", ErrCorrupt, c.KeyslotsSize, off, 2*h.HeaderSize)
	}
	if err := h.validateAreas(); err != nil {
		return err
	}
	for _, d := range h.Digests {
		for _, k := range d.Keyslots {
			if _, ok := h.Keyslot(k); !ok {
				return fmt.Errorf("%w: digest %d names keyslot %d, which does not exist", ErrCorrupt, d.ID, k)
			}
		}
		for _, s := range d.Segments {
			if !slices.ContainsFunc(h.Segments, func(g Segment) bool { return g.ID == s }) {
				return fmt.Errorf("%w: digest %d names segment %d, which does not exist", ErrCorrupt, d.ID, s)
			}
		}
	}
	for _, t := range h.Tokens {
		for _, k := range t.Keyslots {
			if _, ok := h.Keyslot(k); !ok {
				return fmt.Errorf("%w: token %d names keyslot %d, which does not exist", ErrCorrupt, t.ID, k)
			}
		}
	}
	reencrypt := 0
	for _, k := range h.Keyslots {
		switch k.Type {
		case "luks2":
			if n := h.digestCount(k.ID); n != 1 {
				return fmt.Errorf("%w: keyslot %d is bound to %d digests, not one", ErrCorrupt, k.ID, n)
			}
		case "reencrypt":
			reencrypt++
		}
	}
	onlineReencrypt := slices.ContainsFunc(c.Requirements, func(r string) bool { return strings.HasPrefix(r, "online-reencrypt") })
	switch {
	case reencrypt > 1:
		return fmt.Errorf("%w: %d reencrypt keyslots", ErrCorrupt, reencrypt)
	case reencrypt == 1 && !onlineReencrypt:
		return fmt.Errorf("%w: a reencrypt keyslot without the online-reencrypt requirement", ErrCorrupt)
	case reencrypt == 0 && onlineReencrypt:
		return fmt.Errorf("%w: the online-reencrypt requirement without a reencrypt keyslot", ErrCorrupt)
	}
	return nil
}

func (h *Header) digestCount(keyslot int) int {
	n := 0
	for _, d := range h.Digests {
		if slices.Contains(d.Keyslots, keyslot) {
			n++
		}
	}
	return n
}

func isBackup(s *Segment) bool {
	return slices.ContainsFunc(s.Flags, func(f string) bool { return strings.HasPrefix(f, "backup-") })
}

// validateSegments checks the segments: ids 0 to n-1 without a gap, the
// regular ones before the backups (reencryption), the regular ones apart
// from each other with only the last of dynamic size, and each crypt
// segment covered by a digest.
func (h *Header) validateSegments() error {
	if len(h.Segments) == 0 {
		return fmt.Errorf("%w: header has no segments", ErrCorrupt)
	}
	regular := len(h.Segments)
	for i := range h.Segments {
		s := &h.Segments[i]
		if s.ID != i {
			return fmt.Errorf("%w: segment ids have a gap at %d", ErrCorrupt, i)
		}
		if isBackup(s) {
			regular = min(regular, i)
		} else if regular < i {
			return fmt.Errorf("%w: regular segment %d follows backup segment %d", ErrCorrupt, i, regular)
		}
		if s.Type == "crypt" && !slices.ContainsFunc(h.Digests, func(d Digest) bool { return slices.Contains(d.Segments, s.ID) }) {
			return fmt.Errorf("%w: crypt segment %d has no digest", ErrCorrupt, s.ID)
		}
	}
	if regular == 0 {
		return fmt.Errorf("%w: segment 0 is a backup: no regular segment", ErrCorrupt)
	}
	for i := 0; i < regular; i++ {
		a := &h.Segments[i]
		if a.Dynamic && i != regular-1 {
			return fmt.Errorf("%w: segment %d has a dynamic size but is not the last", ErrCorrupt, i)
		}
		for j := 0; j < regular; j++ {
			b := &h.Segments[j]
			if i == j {
				continue
			}
			if !b.Dynamic && b.Offset+b.Size < b.Offset {
				return fmt.Errorf("%w: segment %d offset plus size overflows", ErrCorrupt, j)
			}
			if a.Offset >= b.Offset && (b.Dynamic || a.Offset < b.Offset+b.Size) {
				return fmt.Errorf("%w: segments %d and %d overlap", ErrCorrupt, i, j)
			}
		}
	}
	return nil
}

// minDataOffset is the lowest offset of a regular segment (0 for a
// detached header's data).
func (h *Header) minDataOffset() uint64 {
	var lo uint64
	first := true
	for i := range h.Segments {
		s := &h.Segments[i]
		if isBackup(s) {
			continue
		}
		if first || s.Offset < lo {
			lo, first = s.Offset, false
		}
	}
	return lo
}

// validateAreas checks that every keyslot area lies in the keyslots area,
// past both header copies, and apart from every other.
func (h *Header) validateAreas() error {
	start, end := 2*h.HeaderSize, 2*h.HeaderSize+h.Config.KeyslotsSize
	for i := range h.Keyslots {
		a := &h.Keyslots[i]
		if a.Area.Size == 0 {
			return fmt.Errorf("%w: keyslot %d area is empty", ErrCorrupt, a.ID)
		}
		if a.Area.Offset < start || a.Area.Offset+a.Area.Size < a.Area.Offset || a.Area.Offset+a.Area.Size > end {
			return fmt.Errorf("%w: keyslot %d area [%d, +%d) lies outside the keyslots area [%d, %d)", ErrCorrupt, a.ID, a.Area.Offset, a.Area.Size, start, end)
		}
		for j := range h.Keyslots[:i] {
			b := &h.Keyslots[j]
			if a.Area.Offset < b.Area.Offset+b.Area.Size && b.Area.Offset < a.Area.Offset+a.Area.Size {
				return fmt.Errorf("%w: keyslot %d and %d areas overlap", ErrCorrupt, b.ID, a.ID)
			}
		}
	}
	return nil
}

// luks1Sectors is the 512-byte sectors of one LUKS1 keyslot's material.
func luks1Sectors(keyBytes, stripes int) uint64 {
	return roundUp(uint64(keyBytes)*uint64(stripes), luks1SectorSize) / luks1SectorSize
}

// validateLUKS1 checks a LUKS1 header's keyslot layout as cryptsetup
// does, enabled slots or not: 4000 stripes each, key material past the
// header, before the payload (unless the payload offset is 0, a detached
// header) and apart from every other slot's.
func (h *Header) validateLUKS1() error {
	type span struct {
		id     int
		lo, hi uint64 // sectors
	}
	spans := make([]span, 0, len(h.Keyslots))
	for i := range h.Keyslots {
		k := &h.Keyslots[i]
		if k.AF.Stripes != afStripes {
			return fmt.Errorf("%w: LUKS1 keyslot %d has %d anti-forensic stripes (LUKS1 has %d)", ErrCorrupt, k.ID, k.AF.Stripes, afStripes)
		}
		lo := k.Area.Offset / luks1SectorSize
		if k.Area.Offset < luks1HeaderSize {
			return fmt.Errorf("%w: LUKS1 keyslot %d material at %d overlaps the header", ErrCorrupt, k.ID, k.Area.Offset)
		}
		hi := lo + luks1Sectors(k.KeySize, k.AF.Stripes)
		if p := h.PayloadOffset; p != 0 && (lo >= p || hi > p) {
			return fmt.Errorf("%w: LUKS1 keyslot %d material (sectors %d to %d) runs past the payload offset %d", ErrCorrupt, k.ID, lo, hi, p)
		}
		spans = append(spans, span{k.ID, lo, hi})
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	for i := 1; i < len(spans); i++ {
		if spans[i].lo < spans[i-1].hi {
			return fmt.Errorf("%w: LUKS1 keyslot %d and %d material overlap", ErrCorrupt, spans[i-1].id, spans[i].id)
		}
	}
	return nil
}

// headerEnd is the end of what the header occupies on its device: both
// LUKS2 copies and the keyslots area, or the LUKS1 phdr and every
// keyslot's key material.
func (h *Header) headerEnd() uint64 {
	if h.Version == 2 {
		return 2*h.HeaderSize + h.Config.KeyslotsSize
	}
	end := uint64(luks1HeaderSize)
	for _, k := range h.Keyslots {
		end = max(end, k.Area.Offset+k.Area.Size)
	}
	return end
}

// checkDataApart reports an error if the data segment, on the device
// that holds the header, begins inside the header or its keyslots: a
// header cryptsetup accepts (the data offset 0 of a detached header) but
// that a write to the volume would destroy.
func (h *Header) checkDataApart() error {
	seg, err := h.DataSegment()
	if err != nil {
		return err
	}
	if end := h.headerEnd(); seg.Offset < end {
		return fmt.Errorf("%w (data at byte %d, header and keyslots up to byte %d): refused for writing (a detached header's data goes with Options.Header; else open read-only)", ErrDataOverlapsHeader, seg.Offset, end)
	}
	return nil
}

// luks1Hashes are the hash names cryptsetup 2.6 (OpenSSL backend) takes
// for a LUKS1 header, in lower case: those with a digest of 20 bytes or
// more. It refuses the others.
var luks1Hashes = []string{
	"sha1", "sha-1", "ssl3-sha1",
	"sha224", "sha-224", "sha2-224", "sha256", "sha-256", "sha2-256",
	"sha384", "sha-384", "sha2-384", "sha512", "sha-512", "sha2-512",
	"sha512-224", "sha-512/224", "sha2-512/224", "sha512-256", "sha-512/256", "sha2-512/256",
	"sha3-224", "sha3-256", "sha3-384", "sha3-512", "shake256",
	"blake2b-512", "blake2b512", "blake2s-256", "blake2s256", "sm3",
	"ripemd160", "ripemd-160", "ripemd", "rmd160", "whirlpool",
}

func luks1HashKnown(name string) bool {
	return slices.Contains(luks1Hashes, strings.ToLower(name))
}
