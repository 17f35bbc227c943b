package luks

// The LUKS2 reencryption metadata, as cryptsetup 2.6.1 writes it (learned
// by running cryptsetup reencrypt --init-only and killing it mid-run; see
// the tests), parsed, built and checked here. The engine
// (reencrypt_engine.go) and the datashift mode (reencrypt_datashift*.go)
// use only what this comment lists.
//
// On disk, a reencryption in progress is:
//   - config.requirements.mandatory holds "online-reencrypt-v2"
//     (reencryptRequirement);
//   - one keyslot of type "reencrypt": key_size 1, priority 0, mode
//     "reencrypt" | "encrypt" | "decrypt", direction "forward" |
//     "backward", and an area whose type is the resilience: "checksum"
//     (with hash and sector_size, the bytes each checksum covers; the
//     checksums of the hotzone's old raw blocks are stored one after the
//     other from the area's start), "journal" (the old raw hotzone is
//     copied to the area's start), "none", or "datashift" (shift_size);
//   - the regular segments, in offset order: for direction forward, the
//     part done (final parameters), the hotzone (flag
//     "in-reencryption", final parameters) when one is being written,
//     and the part still to do (previous parameters); for backward, the
//     part to do, the hotzone, then the part done. The last one is
//     "dynamic" when the backups are. A segment's iv_tweak is the
//     backup's plus its distance from the data start in 512-byte units.
//     "linear" segments (type, offset, size only) are plaintext;
//   - after them two backup segments: "backup-previous" (the data
//     segment before) and "backup-final" (after), each as a whole
//     (offset of the data start, usually "dynamic");
//   - the digest of the old key covers the previous-parameter crypt
//     segments, backup-previous, and the hotzone when that is crypt
//     (rotation; a decryption's hotzone is linear, in no digest); the
//     new key's covers the final-parameter ones, the hotzone and
//     backup-final (a linear side has no digest);
//   - at the end cryptsetup first wipes the keyslots of the old key and
//     drops them from the header, then commits the final header: a run
//     killed in between leaves all the data done and no old key;
//   - an encryption with a detached header first writes a plain LUKS2
//     header (a keyslot, a crypt segment) over the data still all
//     plaintext, then records the reencryption in it;
//   - a third digest (pbkdf2, bound to the reencrypt keyslot, no
//     segments) is the verification digest: PBKDF2 of the bytes
//     reencryptDigestData returns, under its salt and iterations. It
//     proves the reencryption metadata was written by someone who knew
//     the keys.
//
// The internal API:
//
//	parseReencrypt(h) (*reencState, error)      structure only (ErrReencryptMetadata)
//	st.progress(devSize) (reencProgress, error) where the hotzone and done part are
//	st.verify(oldKey, newKey) error              the verification digest
//	reencryptDigestData(st, oldKey, newKey)      the bytes it digests
//	st.withProgress(h, p) *Header                the header for progress p
//	st.finalHeader(h) (*Header, []Area)          the header when done; areas to wipe
//	newReencryptKeyslot / addReencryptMetadata   for InitReencrypt
//	rangeSegment(base, off, size, dynamic)       a segment for part of the data
import (
	"bytes"
	"crypto/subtle"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
)

const (
	reencryptRequirement = "online-reencrypt-v2"
	flagInReencryption   = "in-reencryption"
	flagBackupPrevious   = "backup-previous"
	flagBackupFinal      = "backup-final"
	// reencryptDigestIterations: cryptsetup 2.6.1 writes 1000 with a
	// forced pbkdf2 cost; more is not needed, as the digest input holds
	// the volume keys.
	reencryptDigestIterations = 1000
	checksumBlock             = 4096 // cryptsetup's checksum sector_size
)

// reencState is the parsed reencryption metadata of a header.
type reencState struct {
	keyslot     *Keyslot // the reencrypt keyslot (points into h)
	digest      *Digest  // its verification digest
	mode        string
	direction   string
	resilience  string
	prev, final Segment // the backup segments (copies)
	prevDigest  *Digest // nil for a linear previous segment
	finalDigest *Digest // nil for a linear final segment
	regular     []Segment
	others      []Segment // backup segments other than the two (datashift's)
}

func reencErr(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrReencryptMetadata, fmt.Sprintf(format, a...))
}

func hasFlag(s *Segment, f string) bool { return slices.Contains(s.Flags, f) }

// parseReencrypt checks the structure of h's reencryption metadata (not
// the digest, which needs the keys) and returns it.
func parseReencrypt(h *Header) (*reencState, error) {
	if h.Version != 2 {
		return nil, fmt.Errorf("%w: LUKS1 has no reencryption metadata", ErrUnsupported)
	}
	if !slices.Contains(h.Config.Requirements, reencryptRequirement) {
		for _, r := range h.Config.Requirements {
			if strings.HasPrefix(r, "online-reencrypt") {
				return nil, fmt.Errorf("%w: reencryption requirement %q (this package and cryptsetup 2.6 write %q)", ErrUnsupported, r, reencryptRequirement)
			}
		}
		return nil, reencErr("no reencryption in progress (no %q requirement)", reencryptRequirement)
	}
	st := &reencState{}
	for i := range h.Keyslots {
		if h.Keyslots[i].Type == "reencrypt" {
			if st.keyslot != nil {
				return nil, reencErr("two reencrypt keyslots")
			}
			st.keyslot = &h.Keyslots[i]
		}
	}
	if st.keyslot == nil {
		return nil, reencErr("no reencrypt keyslot")
	}
	k := st.keyslot
	st.mode, st.direction, st.resilience = k.Mode, k.Direction, k.Area.Type
	switch st.mode {
	case "reencrypt", "encrypt", "decrypt":
	default:
		return nil, reencErr("reencrypt keyslot mode %q", st.mode)
	}
	switch st.direction {
	case "forward", "backward":
	default:
		return nil, reencErr("reencrypt keyslot direction %q", st.direction)
	}
	switch st.resilience {
	case "checksum":
		if _, err := hashFunc(k.Area.Hash); err != nil {
			return nil, reencErr("checksum hash %q", k.Area.Hash)
		}
		if bs := k.Area.SectorSize; bs < 512 || bs > 1<<16 || bs&(bs-1) != 0 {
			return nil, reencErr("checksum sector_size %d", bs)
		}
	case "journal", "none", "datashift":
	default:
		return nil, reencErr("resilience (reencrypt keyslot area type) %q", st.resilience)
	}
	for i := range h.Digests {
		if slices.Contains(h.Digests[i].Keyslots, k.ID) {
			if st.digest != nil {
				return nil, reencErr("two digests name the reencrypt keyslot")
			}
			st.digest = &h.Digests[i]
		}
	}
	if st.digest == nil {
		return nil, reencErr("the reencrypt keyslot has no verification digest (cryptsetup repair adds one)")
	}
	if len(st.digest.Segments) != 0 || len(st.digest.Keyslots) != 1 || st.digest.Type != "pbkdf2" {
		return nil, reencErr("the verification digest names segments or other keyslots, or is not pbkdf2")
	}
	var nPrev, nFinal int
	for _, s := range h.Segments {
		switch {
		case hasFlag(&s, flagBackupPrevious):
			st.prev, nPrev = s, nPrev+1
		case hasFlag(&s, flagBackupFinal):
			st.final, nFinal = s, nFinal+1
		case isBackup(&s):
			st.others = append(st.others, s)
		default:
			st.regular = append(st.regular, s)
		}
	}
	if nPrev != 1 || nFinal != 1 {
		return nil, reencErr("%d backup-previous and %d backup-final segments (one each)", nPrev, nFinal)
	}
	for _, b := range []*Segment{&st.prev, &st.final} {
		if b.Type != "crypt" && b.Type != "linear" {
			return nil, reencErr("backup segment %d type %q", b.ID, b.Type)
		}
	}
	want := map[string][2]string{"reencrypt": {"crypt", "crypt"}, "encrypt": {"linear", "crypt"}, "decrypt": {"crypt", "linear"}}[st.mode]
	if st.prev.Type != want[0] || st.final.Type != want[1] {
		return nil, reencErr("mode %s with a %s previous and a %s final segment", st.mode, st.prev.Type, st.final.Type)
	}
	// (datashift: a fixed previous segment, a dynamic final one.)
	if st.resilience != "datashift" && (st.prev.Dynamic != st.final.Dynamic || (!st.prev.Dynamic && st.prev.Size != st.final.Size)) {
		return nil, reencErr("the backup segments differ in size")
	}
	if st.resilience != "datashift" && st.prev.Offset != st.final.Offset {
		return nil, reencErr("the backup segments start at %d and %d (only datashift moves data)", st.prev.Offset, st.final.Offset)
	}
	var err error
	if st.prevDigest, err = segmentDigest(h, &st.prev); err != nil {
		return nil, err
	}
	if st.finalDigest, err = segmentDigest(h, &st.final); err != nil {
		return nil, err
	}
	if st.prevDigest != nil && st.prevDigest == st.finalDigest {
		return nil, reencErr("one digest covers both backup segments")
	}
	if len(st.regular) == 0 {
		return nil, reencErr("no regular segment")
	}
	return st, nil
}

// segmentDigest returns the digest of a crypt segment (exactly one), or
// nil for a linear one.
func segmentDigest(h *Header, s *Segment) (*Digest, error) {
	var d *Digest
	for i := range h.Digests {
		if slices.Contains(h.Digests[i].Segments, s.ID) {
			if d != nil {
				return nil, reencErr("two digests cover segment %d", s.ID)
			}
			d = &h.Digests[i]
		}
	}
	if s.Type == "crypt" && d == nil {
		return nil, reencErr("no digest covers segment %d", s.ID)
	}
	if s.Type != "crypt" && d != nil {
		return nil, reencErr("a digest covers the %s segment %d", s.Type, s.ID)
	}
	return d, nil
}

// reencProgress is where a reencryption stands, in bytes from the data
// start: the hotzone being written is [Lo, Hi) (Lo == Hi: none); the
// part done is [0, Lo) going forward, [Hi, Length) going backward.
type reencProgress struct {
	Lo, Hi, Length uint64
	Hot            bool // a hotzone segment (in-reencryption) is recorded
}

// Done is the bytes processed, not counting the hotzone.
func (p reencProgress) Done(forward bool) uint64 {
	if forward {
		return p.Lo
	}
	return p.Length - p.Hi
}

// dataStart is where the data area begins on the data device.
func (st *reencState) dataStart() uint64 { return st.final.Offset }

// length is the bytes of the data area on a data device of devSize
// bytes (0: unknown, for a dynamic size).
func (st *reencState) length(devSize uint64) (uint64, error) {
	if !st.final.Dynamic {
		return st.final.Size, nil
	}
	if devSize == 0 {
		return 0, nil
	}
	if devSize <= st.dataStart() {
		return 0, reencErr("the data device (%d bytes) ends before the data start %d", devSize, st.dataStart())
	}
	return devSize - st.dataStart(), nil
}

// matches reports whether s is the part of backup b starting at off
// (bytes from the data start).
func matches(s, b *Segment, off uint64) bool {
	if s.Type != b.Type {
		return false
	}
	if s.Type == "linear" {
		return true
	}
	return s.Encryption == b.Encryption && s.SectorSize == b.SectorSize && s.IVTweak == b.IVTweak+off/512 && off%uint64(b.SectorSize) == 0
}

// progress works out the progress from the regular segments (devSize:
// the data device's size; 0 if not known, then Length is 0 for dynamic
// segments and only Done is meaningful).
func (st *reencState) progress(devSize uint64) (reencProgress, error) {
	L, err := st.length(devSize)
	if err != nil {
		return reencProgress{}, err
	}
	start := st.dataStart()
	// kinds: 'P' previous, 'H' hotzone, 'F' final, in offset order.
	var kinds []byte
	at := start
	for i := range st.regular {
		s := &st.regular[i]
		if s.Offset != at {
			return reencProgress{}, reencErr("segment %d starts at %d, the one before ends at %d", s.ID, s.Offset, at)
		}
		off := s.Offset - start
		inFinal := st.finalDigest != nil && slices.Contains(st.finalDigest.Segments, s.ID)
		inPrev := st.prevDigest != nil && slices.Contains(st.prevDigest.Segments, s.ID)
		switch {
		case hasFlag(s, flagInReencryption):
			// The hotzone has the final parameters and is in the final
			// digest; cryptsetup puts it in the old key's digest too
			// when both are crypt (rotation), not when it is linear
			// (decrypt; this package's first version did).
			inPrevOK := inPrev == (st.prevDigest != nil) || (s.Type == "linear" && st.prevDigest != nil)
			if !matches(s, &st.final, off) || inFinal != (st.finalDigest != nil) || !inPrevOK {
				return reencProgress{}, reencErr("hotzone segment %d does not match the final segment and both digests", s.ID)
			}
			kinds = append(kinds, 'H')
		case matches(s, &st.final, off) && inFinal == (st.finalDigest != nil) && !inPrev:
			kinds = append(kinds, 'F')
		case matches(s, &st.prev, off) && inPrev == (st.prevDigest != nil) && !inFinal:
			kinds = append(kinds, 'P')
		default:
			return reencProgress{}, reencErr("segment %d is neither the previous nor the final segment", s.ID)
		}
		if len(s.Flags) > 0 && kinds[len(kinds)-1] != 'H' {
			return reencProgress{}, reencErr("segment %d has flags %q", s.ID, s.Flags)
		}
		if s.Dynamic {
			if i != len(st.regular)-1 || !st.final.Dynamic {
				return reencProgress{}, reencErr("segment %d is dynamic", s.ID)
			}
			at = start + L
			if L != 0 && s.Offset >= at {
				return reencProgress{}, reencErr("segment %d starts past the end of the data", s.ID)
			}
		} else {
			if s.Size == 0 || at+s.Size < at {
				return reencProgress{}, reencErr("segment %d size %d", s.ID, s.Size)
			}
			at += s.Size
		}
	}
	if L != 0 && at != start+L {
		return reencProgress{}, reencErr("the segments end at %d, the data at %d", at, start+L)
	}
	pat := string(kinds)
	order := "FHP"
	if st.direction == "backward" {
		order = "PHF"
	}
	// At most one of each, in order.
	pos := 0
	for _, c := range []byte(pat) {
		i := strings.IndexByte(order[pos:], c)
		if i < 0 {
			return reencProgress{}, reencErr("segments %q are not in the order %q for direction %s", pat, order, st.direction)
		}
		pos += i + 1
	}
	p := reencProgress{Length: L}
	first := byte('F') // the part before the hotzone
	if st.direction == "backward" {
		first = 'P'
	}
	off := uint64(0)
	for i, c := range []byte(pat) {
		s := &st.regular[i]
		end := off + s.Size
		if s.Dynamic {
			end = L
		}
		switch c {
		case first:
			p.Lo, p.Hi = end, end
		case 'H':
			p.Lo, p.Hi, p.Hot = off, end, true
		}
		off = end
	}
	if p.Hot {
		if err := st.checkHotzone(p.Hi - p.Lo); err != nil {
			return reencProgress{}, err
		}
	}
	return p, nil
}

// checkHotzone checks that a hotzone of n bytes fits the resilience area.
func (st *reencState) checkHotzone(n uint64) error {
	a := &st.keyslot.Area
	switch st.resilience {
	case "checksum":
		h, _ := hashFunc(a.Hash)
		blocks := (n + uint64(a.SectorSize) - 1) / uint64(a.SectorSize)
		if blocks*uint64(h().Size()) > a.Size {
			return reencErr("the checksums of a %d-byte hotzone do not fit the %d-byte area", n, a.Size)
		}
	case "journal":
		if n > a.Size {
			return reencErr("a %d-byte hotzone does not fit the %d-byte journal", n, a.Size)
		}
	}
	return nil
}

// reencryptDigestData returns what the verification digest digests:
// "v2", the old key (when the previous segment is crypt), the new key
// (when the final segment is crypt), the keyslot's mode, direction and
// area type, the area's offset and size (64-bit big-endian), for
// checksum resilience the hash name and the checksum block size
// (32-bit), for datashift the shift (64-bit), then backup-previous,
// backup-final and (datashift) backup-moved-segment each as: type, offset (64-bit), size ("dynamic" or
// 64-bit), and for crypt iv_tweak (64-bit), encryption and sector size
// (32-bit). Strings go without length or terminator, as cryptsetup 2.6.1
// puts them.
func reencryptDigestData(st *reencState, oldKey, newKey []byte) []byte {
	var b bytes.Buffer
	b.WriteString("v2")
	if st.prev.Type == "crypt" {
		b.Write(oldKey)
	}
	if st.final.Type == "crypt" {
		b.Write(newKey)
	}
	a := &st.keyslot.Area
	b.WriteString(st.mode)
	b.WriteString(st.direction)
	b.WriteString(a.Type)
	b.Write(binary.BigEndian.AppendUint64(nil, a.Offset))
	b.Write(binary.BigEndian.AppendUint64(nil, a.Size))
	switch a.Type {
	case "checksum":
		b.WriteString(a.Hash)
		b.Write(binary.BigEndian.AppendUint32(nil, uint32(a.SectorSize)))
	case "datashift":
		b.Write(binary.BigEndian.AppendUint64(nil, a.ShiftSize))
	}
	for _, s := range append([]*Segment{&st.prev, &st.final}, others(st)...) {
		b.WriteString(s.Type)
		b.Write(binary.BigEndian.AppendUint64(nil, s.Offset))
		if s.Dynamic {
			b.WriteString("dynamic")
		} else {
			b.Write(binary.BigEndian.AppendUint64(nil, s.Size))
		}
		if s.Type == "crypt" {
			b.Write(binary.BigEndian.AppendUint64(nil, s.IVTweak))
			b.WriteString(s.Encryption)
			b.Write(binary.BigEndian.AppendUint32(nil, uint32(s.SectorSize)))
		}
	}
	return b.Bytes()
}

// others returns st's other backup segments (datashift's moved
// segment), which the verification digest covers after the two.
func others(st *reencState) []*Segment {
	var out []*Segment
	for i := range st.others {
		out = append(out, &st.others[i])
	}
	return out
}

// digestValue computes the verification digest of st under d's
// parameters.
func (st *reencState) digestValue(d *Digest, oldKey, newKey []byte) ([]byte, error) {
	data := reencryptDigestData(st, oldKey, newKey)
	defer clear(data)
	return pbkdf2Key(d.Hash, data, d.Salt, d.Iterations, len(d.Value))
}

// verify checks the verification digest against the keys.
func (st *reencState) verify(oldKey, newKey []byte) error {
	d := st.digest
	if d.Iterations < 1 || d.Iterations > MaxIterations || len(d.Value) == 0 || len(d.Value) > 64 {
		return reencErr("verification digest parameters")
	}
	got, err := st.digestValue(d, oldKey, newKey)
	if err != nil {
		return reencErr("verification digest: %v", err)
	}
	if subtle.ConstantTimeCompare(got, d.Value) != 1 {
		return reencErr("the verification digest does not match (the metadata was changed, or not by a holder of the keys)")
	}
	return nil
}

// rangeSegment returns the part [off, off+size) of backup segment base
// (off in bytes from the data start) as a regular segment; dynamic: to
// the end of the device.
func rangeSegment(base *Segment, off, size uint64, dynamic bool) Segment {
	s := Segment{Type: base.Type, Offset: base.Offset + off, Size: size, Dynamic: dynamic}
	if dynamic {
		s.Size = 0
	}
	if base.Type == "crypt" {
		s.Encryption, s.SectorSize, s.IVTweak = base.Encryption, base.SectorSize, base.IVTweak+off/512
	}
	return s
}

// withProgress returns h with the regular segments and digests for
// progress p (p.Hot: the hotzone [Lo, Hi) marked in-reencryption).
func (st *reencState) withProgress(h *Header, p reencProgress) *Header {
	nh := h.clone()
	type part struct {
		kind   byte
		lo, hi uint64
	}
	var parts []part
	if st.direction == "forward" {
		parts = []part{{'F', 0, p.Lo}, {'H', p.Lo, p.Hi}, {'P', p.Hi, p.Length}}
	} else {
		parts = []part{{'P', 0, p.Lo}, {'H', p.Lo, p.Hi}, {'F', p.Hi, p.Length}}
	}
	if !p.Hot {
		parts = slices.DeleteFunc(parts, func(x part) bool { return x.kind == 'H' })
	}
	parts = slices.DeleteFunc(parts, func(x part) bool { return x.lo == x.hi })
	var segs []Segment
	var prevIDs, finalIDs []int
	for i, x := range parts {
		dyn := i == len(parts)-1 && st.final.Dynamic && x.kind != 'H' // cryptsetup's repair refuses a dynamic hotzone
		base := &st.prev
		if x.kind != 'P' {
			base = &st.final
		}
		s := rangeSegment(base, x.lo, x.hi-x.lo, dyn)
		s.ID = len(segs)
		switch x.kind {
		case 'H':
			s.Flags = []string{flagInReencryption}
			finalIDs = append(finalIDs, s.ID)
			if st.final.Type == "crypt" {
				prevIDs = append(prevIDs, s.ID) // as cryptsetup: not for a linear hotzone
			}
		case 'P':
			prevIDs = append(prevIDs, s.ID)
		case 'F':
			finalIDs = append(finalIDs, s.ID)
		}
		segs = append(segs, s)
	}
	for _, b := range append([]Segment{st.prev, st.final}, st.others...) {
		b.ID = len(segs)
		switch {
		case hasFlag(&b, flagBackupPrevious):
			prevIDs = append(prevIDs, b.ID)
		case hasFlag(&b, flagBackupFinal):
			finalIDs = append(finalIDs, b.ID)
		}
		segs = append(segs, b)
	}
	nh.Segments = segs
	for i := range nh.Digests {
		d := &nh.Digests[i]
		switch {
		case st.prevDigest != nil && d.ID == st.prevDigest.ID:
			d.Segments = prevIDs
		case st.finalDigest != nil && d.ID == st.finalDigest.ID:
			d.Segments = finalIDs
		case len(d.Segments) > 0:
			d.Segments = nil // a digest of an "other" backup: datashift's
		}
	}
	return nh
}

// finalHeader returns the header once the data is all done: one segment
// (the final one, its flags dropped), the final digest's keyslots only,
// no reencrypt keyslot, digest or requirement; and the keyslot areas
// freed, to wipe after it is committed.
func (st *reencState) finalHeader(h *Header) (*Header, []Area) {
	nh := h.clone()
	seg := st.final
	seg.ID, seg.Flags = 0, nil
	nh.Segments = []Segment{seg}
	var keep []int
	if st.finalDigest != nil {
		keep = st.finalDigest.Keyslots
	}
	var wipe []Area
	nh.Keyslots = slices.DeleteFunc(nh.Keyslots, func(k Keyslot) bool {
		if slices.Contains(keep, k.ID) {
			return false
		}
		wipe = append(wipe, k.Area)
		return true
	})
	nh.Digests = slices.DeleteFunc(nh.Digests, func(d Digest) bool {
		return st.finalDigest == nil || d.ID != st.finalDigest.ID
	})
	for i := range nh.Digests {
		nh.Digests[i].Segments = []int{0}
	}
	for i := range nh.Tokens {
		nh.Tokens[i].Keyslots = slices.DeleteFunc(nh.Tokens[i].Keyslots, func(id int) bool { return !slices.Contains(keep, id) })
	}
	nh.Config.Requirements = slices.DeleteFunc(slices.Clone(nh.Config.Requirements), func(r string) bool { return r == reencryptRequirement })
	return nh, wipe
}

// newReencryptKeyslot returns the reencrypt keyslot for a new
// reencryption: id, the resilience area from areaStart to the end of the
// keyslots area.
func newReencryptKeyslot(h *Header, id int, mode, direction, resilience, hash string, areaStart uint64) (Keyslot, error) {
	end := 2*h.HeaderSize + h.Config.KeyslotsSize
	areaStart = roundUp(areaStart, keyslotAlign)
	if areaStart >= end {
		return Keyslot{}, fmt.Errorf("luks: no room left in the keyslots area for the reencryption area (make the header with a larger keyslots area)")
	}
	k := Keyslot{ID: id, Active: true, Type: "reencrypt", KeySize: 1, Priority: PriorityIgnore, Mode: mode, Direction: direction,
		Area: Area{Type: resilience, Offset: areaStart, Size: end - areaStart}}
	if resilience == "checksum" {
		k.Area.Hash, k.Area.SectorSize = hash, checksumBlock
	}
	return k, nil
}

// addReencryptMetadata adds to nh (whose segments are already the
// regular ones, backups and digests) the reencrypt keyslot k, its
// verification digest over oldKey/newKey and the requirement.
func addReencryptMetadata(nh *Header, k Keyslot, oldKey, newKey []byte) error {
	nh.Keyslots = append(nh.Keyslots, k)
	sortByID(nh.Keyslots, func(k *Keyslot) int { return k.ID })
	salt, err := randomBytes(32)
	if err != nil {
		return err
	}
	d := Digest{ID: freeDigestID(nh), Type: "pbkdf2", Keyslots: []int{k.ID}, Segments: nil, Hash: "sha256",
		Iterations: reencryptDigestIterations, Salt: salt, Value: make([]byte, 32)}
	st, err := parseReencryptParts(nh, &k, &d)
	if err != nil {
		return err
	}
	if d.Value, err = st.digestValue(&d, oldKey, newKey); err != nil {
		return err
	}
	nh.Digests = append(nh.Digests, d)
	sortByID(nh.Digests, func(d *Digest) int { return d.ID })
	nh.Config.Requirements = append(slices.Clone(nh.Config.Requirements), reencryptRequirement)
	return nil
}

// parseReencryptParts parses nh as if k and d were in it.
func parseReencryptParts(nh *Header, k *Keyslot, d *Digest) (*reencState, error) {
	t := nh.clone()
	if _, ok := t.Keyslot(k.ID); !ok {
		t.Keyslots = append(t.Keyslots, *k)
	}
	if !slices.ContainsFunc(t.Digests, func(x Digest) bool { return x.ID == d.ID }) {
		t.Digests = append(t.Digests, *d)
	}
	t.Config.Requirements = append(slices.Clone(t.Config.Requirements), reencryptRequirement)
	return parseReencrypt(t)
}

func freeDigestID(h *Header) int {
	for id := 0; ; id++ {
		if !slices.ContainsFunc(h.Digests, func(d Digest) bool { return d.ID == id }) {
			return id
		}
	}
}

func freeKeyslotID(h *Header) int {
	for id := 0; ; id++ {
		if _, ok := h.Keyslot(id); !ok {
			return id
		}
	}
}

// keyslotsEnd is the end of the highest keyslot area.
func keyslotsEnd(h *Header) uint64 {
	end := 2 * h.HeaderSize
	for _, k := range h.Keyslots {
		end = max(end, k.Area.Offset+k.Area.Size)
	}
	return end
}

// reencryption describes the reencryption in progress, if any.
func (h *Header) reencryption() (Reencryption, bool) {
	if h.Version != 2 || !slices.ContainsFunc(h.Config.Requirements, func(r string) bool { return strings.HasPrefix(r, "online-reencrypt") }) {
		return Reencryption{}, false
	}
	r := Reencryption{Keyslot: -1}
	for _, k := range h.Keyslots {
		if k.Type == "reencrypt" {
			r.Mode, r.Direction, r.Resilience, r.Hash, r.Keyslot = k.Mode, k.Direction, k.Area.Type, k.Area.Hash, k.ID
		}
	}
	if st, err := parseReencrypt(h); err == nil {
		if p, err := st.progress(0); err == nil {
			r.Done, r.Total = p.Done(st.direction == "forward"), p.Length
			if st.direction == "backward" && p.Length == 0 {
				// Going backward the part done is at the end: its size
				// is the sum of the final segments'.
				r.Done = 0
				for _, s := range st.regular {
					if !hasFlag(&s, flagInReencryption) && matches(&s, &st.final, s.Offset-st.dataStart()) && (st.finalDigest == nil || slices.Contains(st.finalDigest.Segments, s.ID)) && !s.Dynamic {
						r.Done += s.Size
					}
				}
			}
		}
	}
	return r, true
}
