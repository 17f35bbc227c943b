package luks

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
)

// ErrBackupMismatch means a header backup does not belong to the device
// it is to be restored to: the device holds no LUKS header, or one of
// another version, layout (data offset, header and keyslots area size,
// key size, sector size) or UUID. RestoreHeader refuses it unless forced;
// the error is a *BackupMismatchError naming what differs.
var ErrBackupMismatch = errors.New("luks: the header backup does not match the device's header")

// BackupMismatchError says what differs between a header backup and the
// header on the device. Field is one of "header" (the device holds no
// readable LUKS header), "version", "data offset", "header area size",
// "key size", "sector size" or "UUID" (the first that differs, in that
// order: a layout difference comes before a UUID one).
type BackupMismatchError struct {
	Field          string
	Device, Backup string // the two values, as text
}

func (e *BackupMismatchError) Error() string {
	if e.Field == "header" {
		return fmt.Sprintf("luks: the device holds no LUKS header (%s) to replace with the backup", e.Device)
	}
	return fmt.Sprintf("luks: the header backup's %s (%s) differs from the device's (%s)", e.Field, e.Backup, e.Device)
}

// Is makes errors.Is(err, ErrBackupMismatch) true.
func (e *BackupMismatchError) Is(target error) bool { return target == ErrBackupMismatch }

// Layout reports whether the mismatch is one of layout (data offset,
// header area size, key size), which cryptsetup luksHeaderRestore
// refuses outright, rather than one it only asks to confirm (no header,
// another version, another UUID, another sector size).
func (e *BackupMismatchError) Layout() bool {
	switch e.Field {
	case "data offset", "header area size", "key size":
		return true
	}
	return false
}

// BackupSize is the size of the header backup of h, as cryptsetup
// luksHeaderBackup writes it: LUKS2 both header copies and the keyslots
// area (2 × HeaderSize + keyslots_size, whatever the data offset); LUKS1
// the header and the key material of all eight keyslots, enabled or
// not, rounded up to 4096 bytes.
func (h *Header) BackupSize() uint64 {
	if h.Version == 2 {
		return 2*h.HeaderSize + h.Config.KeyslotsSize
	}
	return roundUp(h.luks1MaterialEnd(), keyslotAlign)
}

// luks1MaterialEnd is the end of the last LUKS1 keyslot's key material
// (of any slot, enabled or not).
func (h *Header) luks1MaterialEnd() uint64 {
	end := uint64(luks1HeaderSize)
	for _, k := range h.Keyslots {
		end = max(end, k.Area.Offset+luks1Sectors(k.KeySize, k.AF.Stripes)*luks1SectorSize)
	}
	return end
}

// Backup writes the header backup of h, read from dev (the device that
// holds the header), to w: the bytes cryptsetup luksHeaderBackup writes,
// BackupSize of them. LUKS2: the device's first BackupSize bytes; where
// one header copy is damaged or older than the one in use, the backup
// holds the one in use in both places (cryptsetup repairs the device
// first, then copies it; Backup does not write to dev). LUKS1: the
// device's header and key material, with zeros from byte 1024 up to the
// first keyslot's material and after the last one's end (cryptsetup
// clears those so that a backup carries no stale signatures).
//
// Anyone who has the backup and a passphrase valid when it was taken can
// decrypt the volume, even after that passphrase is removed from the
// device: keep it as safe as the key.
func (h *Header) Backup(dev io.ReaderAt, w io.Writer) error {
	b, err := h.backupBytes(dev)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("luks: writing the header backup: %w", err)
	}
	return nil
}

// backupBytes returns the header backup of h read from dev.
func (h *Header) backupBytes(dev io.ReaderAt) ([]byte, error) {
	switch h.Version {
	case 1:
		b := make([]byte, h.BackupSize())
		end := h.luks1MaterialEnd()
		if _, err := dev.ReadAt(b[:end], 0); err != nil {
			return nil, fmt.Errorf("luks: reading the LUKS1 header and key material (%d bytes): %w", end, err)
		}
		first := end
		for _, k := range h.Keyslots {
			first = min(first, k.Area.Offset)
		}
		if lo := uint64(2 * luks1SectorSize); first > lo {
			clear(b[lo:first])
		}
		return b, nil
	case 2:
		b := make([]byte, h.BackupSize())
		if _, err := dev.ReadAt(b, 0); err != nil {
			return nil, fmt.Errorf("luks: reading the LUKS2 header and keyslots area (%d bytes): %w", len(b), err)
		}
		if err := h.repairCopies(b); err != nil {
			return nil, err
		}
		return b, nil
	}
	return nil, fmt.Errorf("luks: LUKS version %d", h.Version)
}

// repairCopies makes the LUKS2 header copy that h was not read from, in
// b (the device's first bytes), the same as the one it was read from
// (magic, offset and checksum its own), unless it already is.
func (h *Header) repairCopies(b []byte) error {
	size := h.HeaderSize
	good, other := uint64(0), size
	if !h.primaryOK {
		good, other = size, 0
	}
	r := bytes.NewReader(b)
	g, err := readCopy(r, good, map[bool]string{true: magic1, false: magic2}[good == 0])
	if err != nil {
		return fmt.Errorf("luks: the header copy in use at %d no longer reads: %v", good, err)
	}
	if o, err := readCopy(r, other, map[bool]string{true: magic1, false: magic2}[other == 0]); err == nil &&
		o.seqid == g.seqid && bytes.Equal(o.area[binHeaderSize:], g.area[binHeaderSize:]) {
		return nil
	}
	c := b[other : other+size]
	copy(c, g.area)
	if other == 0 {
		copy(c, magic1)
	} else {
		copy(c, magic2)
	}
	binary.BigEndian.PutUint64(c[offHdrOffset:], other)
	clear(c[offCsum : offCsum+csumLen])
	copy(c[offCsum:], checksumOf(checksumHash(h.Checksum), c))
	return nil
}

// readBackup reads and checks a header backup: its header, and that it
// holds all BackupSize bytes of it.
func readBackup(backup io.ReaderAt) (*Header, []byte, error) {
	bh, err := ReadHeader(backup)
	if err != nil {
		return nil, nil, fmt.Errorf("luks: the header backup holds no valid LUKS header: %w", err)
	}
	b := make([]byte, bh.BackupSize())
	if n, err := backup.ReadAt(b, 0); n < len(b) {
		return nil, nil, fmt.Errorf("luks: the header backup holds %d bytes, its header needs %d: %v", n, len(b), err)
	}
	return bh, b, nil
}

// CompareBackup reads the header backup and the header on dev and
// reports the first difference between them as a *BackupMismatchError
// (nil if none): what RestoreHeader refuses unless forced. It returns
// both headers (dh is nil when dev holds no readable LUKS header).
func CompareBackup(dev, backup io.ReaderAt) (dh, bh *Header, err error) {
	bh, _, err = readBackup(backup)
	if err != nil {
		return nil, nil, err
	}
	dh, derr := ReadHeader(dev)
	if derr != nil {
		return nil, bh, &BackupMismatchError{Field: "header", Device: derr.Error()}
	}
	return dh, bh, compareHeaders(dh, bh)
}

func compareHeaders(dh, bh *Header) error {
	mis := func(field string, d, b any) error {
		return &BackupMismatchError{Field: field, Device: fmt.Sprint(d), Backup: fmt.Sprint(b)}
	}
	if dh.Version != bh.Version {
		return mis("version", fmt.Sprintf("LUKS%d", dh.Version), fmt.Sprintf("LUKS%d", bh.Version))
	}
	ds, bs := dh.Segments[0], bh.Segments[0]
	if ds.Offset != bs.Offset {
		return mis("data offset", ds.Offset, bs.Offset)
	}
	if dh.Version == 2 && dh.BackupSize() != bh.BackupSize() {
		return mis("header area size", dh.BackupSize(), bh.BackupSize())
	}
	if dh.Version == 1 && dh.Keyslots[0].KeySize != bh.Keyslots[0].KeySize {
		return mis("key size", dh.Keyslots[0].KeySize*8, bh.Keyslots[0].KeySize*8)
	}
	if ds.SectorSize != bs.SectorSize {
		return mis("sector size", ds.SectorSize, bs.SectorSize)
	}
	if dh.UUID != bh.UUID {
		return mis("UUID", dh.UUID, bh.UUID)
	}
	return nil
}

// span is a byte range [lo, hi) of the header device.
type span struct{ lo, hi uint64 }

func (s span) overlaps(t span) bool { return s.lo < t.hi && t.lo < s.hi }

// liveSpans are the ranges of the device that h needs to open: its
// header (LUKS2: both copies; LUKS1: the phdr) and every active
// keyslot's area.
func (h *Header) liveSpans() (hdr span, areas []span) {
	hdr = span{0, luks1HeaderSize}
	if h.Version == 2 {
		hdr = span{0, 2 * h.HeaderSize}
	}
	for _, k := range h.Keyslots {
		if k.Active {
			areas = append(areas, span{k.Area.Offset, k.Area.Offset + k.Area.Size})
		}
	}
	return hdr, areas
}

// RestoreHeader writes the header backup (what Header.Backup or
// cryptsetup luksHeaderBackup wrote) to dev, as cryptsetup
// luksHeaderRestore does: afterwards dev's first BackupSize bytes (LUKS1:
// up to the end of the key material) are the backup's, and only the
// backup's passphrases open it. A LUKS2 backup whose header copies
// differ (one damaged, or older) is restored with the copy ReadHeader
// reads from it in both places, as cryptsetup leaves the device: no
// damaged copy is written. Unless force, a
// backup that does not match the header on dev (CompareBackup: no header,
// another version, data offset, header area size, key size, sector size
// or UUID) is refused with a *BackupMismatchError (ErrBackupMismatch) and
// nothing is written. It returns the header as restored.
//
// Crash safety, for a backup of the same layout as the device's header
// (all that is restored without force): at every point of the writes, a
// power loss leaves a device that opens with every passphrase of the old
// header, or with every passphrase of the backup. The writes go: the
// backup's keyslot material where the old header keeps nothing; the
// rest of the backup where neither header keeps anything; then the
// header itself (LUKS2: the secondary copy, then the primary, each
// invalid until whole; LUKS1: the 592-byte phdr, its second sector first
// when that one differs, see below); last the bytes where the old header
// kept its keyslots. Where a LUKS2 backup's keyslot lies where the old
// header has a different keyslot, that keyslot is first committed, with
// the rest of the backup's header, at a free place (an intermediate
// header the backup's passphrases open), and the backup's own bytes
// follow as above; where the keyslots area has no free place for it, the
// restore is refused unless force. A LUKS1 backup whose keyslot material
// differs from an active keyslot of the old header at the same place is
// refused unless force (LUKS1 keyslots cannot move). Every refusal comes
// before the first write. LUKS1 only: when the phdr's second
// sector (the end of slot 6 and slot 7) differs, there is one state with
// the old first sector and the backup's second: it opens with the old
// passphrases of slots 0 to 5 and the backup's of slot 7.
//
// With force and a different layout or version, a device without a
// header, or a keyslot that cannot be restored through a crash safely
// (written in place), the backup is written in the same order but the
// old header's passphrases may stop opening before the backup's are in
// force.
func RestoreHeader(dev ReadWriterAt, backup io.ReaderAt, force bool) (*Header, error) {
	bh, img, err := readBackup(backup)
	if err != nil {
		return nil, err
	}
	dh, derr := ReadHeader(dev)
	if derr != nil {
		dh = nil
		if !force {
			return nil, &BackupMismatchError{Field: "header", Device: derr.Error()}
		}
	} else if err := compareHeaders(dh, bh); err != nil && !force {
		return nil, err
	}
	if bh.Version == 1 {
		// cryptsetup writes a LUKS1 backup up to the end of its key
		// material, not the padding after it.
		img = img[:bh.luks1MaterialEnd()]
	} else if err := bh.repairCopies(img); err != nil {
		// A backup with one header copy damaged (or older) restores
		// as the copy in use in both places, as cryptsetup leaves the
		// device (it repairs the copy when it reloads the header).
		return nil, err
	}
	cur := make([]byte, len(img))
	if _, err := dev.ReadAt(cur, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("luks: reading the device's header area: %w", err)
	}
	var oldAreas []span
	if dh != nil {
		_, oldAreas = dh.liveSpans()
	}
	bhdr, bAreas := bh.liveSpans()
	differs := func(s span) bool { return !bytes.Equal(img[s.lo:s.hi], cur[s.lo:s.hi]) }
	inOld := func(s span) bool {
		for _, o := range oldAreas {
			if o.overlaps(s) {
				return true
			}
		}
		return false
	}
	var (
		first    []span // backup keyslot material outside the old header's keyslots
		conflict []int  // backup keyslots (index) whose material lies in old keyslots and differs
	)
	for i, s := range bAreas {
		switch {
		case !differs(s):
		case !inOld(s):
			first = append(first, s)
		default:
			conflict = append(conflict, i)
		}
	}
	w := &restoreWriter{dev: dev, img: img}
	// Every refusal comes before the first write.
	var inter *intermediatePlan
	if len(conflict) > 0 {
		switch {
		case bh.Version == 2:
			p, err := planIntermediate(bh, img, bAreas, conflict, oldAreas)
			if err != nil && !force {
				return nil, err
			}
			inter = p // nil without room, with force: written in place
		case !force:
			return nil, fmt.Errorf("luks: the backup's keyslot material at %d lies where the device's header has another keyslot: a crash while restoring could leave neither header's passphrases working (LUKS1 keyslots cannot move); restore with force to write it anyway", bAreas[conflict[0]].lo)
		}
	}
	for _, s := range first {
		if err := w.write(s); err != nil {
			return nil, err
		}
	}
	// reserved: where the header in force between the steps keeps its keyslots.
	reserved := oldAreas
	if inter != nil {
		if _, err := commit(w.dev, dh, inter.nh, inter.mat); err != nil {
			return nil, err
		}
		reserved = inter.moved
	}
	// The rest of the backup outside its header and the reserved areas.
	rest := subtract([]span{{bhdr.hi, uint64(len(img))}}, reserved)
	if bh.Version == 1 {
		rest = subtract([]span{{luks1HeaderSize, uint64(len(img))}}, reserved)
	}
	for _, s := range rest {
		if err := w.writeIfDiffers(s, cur); err != nil {
			return nil, err
		}
	}
	// The copy in force on the device is written over last: its primary,
	// unless the device's header was read from its secondary copy (the
	// primary damaged or older) and no intermediate header repaired both.
	primaryFirst := inter == nil && dh != nil && dh.Version == 2 && !dh.primaryOK
	if err := w.header(bh, cur, primaryFirst); err != nil {
		return nil, err
	}
	for _, s := range reserved {
		s.hi = min(s.hi, uint64(len(img)))
		if s.lo < s.hi {
			if err := w.write(s); err != nil {
				return nil, err
			}
		}
	}
	nh, err := ReadHeader(dev)
	if err != nil {
		return nil, fmt.Errorf("luks: the restored header does not read back: %w", err)
	}
	return nh, nil
}

// restoreWriter writes pieces of a header backup img to dev.
type restoreWriter struct {
	dev ReadWriterAt
	img []byte
}

func (w *restoreWriter) write(s span) error {
	if _, err := w.dev.WriteAt(w.img[s.lo:s.hi], int64(s.lo)); err != nil {
		return fmt.Errorf("luks: writing the header backup at %d: %w", s.lo, err)
	}
	return nil
}

// writeIfDiffers writes the parts of s (in 4096-byte blocks) where the
// device, as read into cur, differs from the backup.
func (w *restoreWriter) writeIfDiffers(s span, cur []byte) error {
	for lo := s.lo; lo < s.hi; {
		hi := min(s.hi, (lo/keyslotAlign+1)*keyslotAlign)
		if !bytes.Equal(w.img[lo:hi], cur[lo:hi]) {
			// extend over the following differing blocks: one write
			for hi < s.hi {
				n := min(s.hi, hi+keyslotAlign)
				if bytes.Equal(w.img[hi:n], cur[hi:n]) {
					break
				}
				hi = n
			}
			if err := w.write(span{lo, hi}); err != nil {
				return err
			}
		}
		lo = hi
	}
	return nil
}

// header writes the backup's header itself. LUKS2: the secondary copy,
// then the primary's first sector (its magic: from then on a torn rest
// leaves the primary invalid, the secondary in force), then its rest;
// with primaryFirst (the device's secondary copy is the one in force),
// the primary first, then the secondary.
// LUKS1: the phdr's second sector if it differs, then its first.
func (w *restoreWriter) header(bh *Header, cur []byte, primaryFirst bool) error {
	var steps []span
	switch n := bh.HeaderSize; {
	case bh.Version == 2 && primaryFirst:
		steps = []span{{0, luks1SectorSize}, {luks1SectorSize, n}, {n, 2 * n}}
	case bh.Version == 2:
		steps = []span{{n, 2 * n}, {0, luks1SectorSize}, {luks1SectorSize, n}}
	default:
		steps = []span{{luks1SectorSize, luks1HeaderSize}, {0, luks1SectorSize}}
	}
	for _, s := range steps {
		if bh.Version == 1 && bytes.Equal(w.img[s.lo:s.hi], cur[s.lo:s.hi]) {
			continue
		}
		if err := w.write(s); err != nil {
			return err
		}
	}
	return nil
}

// intermediatePlan is the backup's LUKS2 header with its conflicting
// keyslots (those whose material lies in the device header's keyslots)
// moved to free areas, their material to write there first, and those
// areas: committed before the backup's own bytes are written.
type intermediatePlan struct {
	nh    *Header
	mat   []keyslotWrite
	moved []span
}

// planIntermediate plans the intermediate header of a LUKS2 restore, or
// says why there is none (no free room).
func planIntermediate(bh *Header, img []byte, bAreas []span, conflict []int, oldAreas []span) (*intermediatePlan, error) {
	p := &intermediatePlan{nh: bh.clone()}
	taken := append(append([]span(nil), oldAreas...), bAreas...)
	active := 0
	idx := map[int]int{} // index among active keyslots -> index in nh.Keyslots
	for i := range p.nh.Keyslots {
		if p.nh.Keyslots[i].Active {
			idx[active] = i
			active++
		}
	}
	for _, c := range conflict {
		k := &p.nh.Keyslots[idx[c]]
		s := bAreas[c]
		off, ok := freeSpan(taken, 2*p.nh.HeaderSize, 2*p.nh.HeaderSize+p.nh.Config.KeyslotsSize, s.hi-s.lo)
		if !ok {
			return nil, fmt.Errorf("luks: the backup's keyslot %d lies where the device's header has another keyslot, and there is no free room to restore it through a crash safely (nothing written; restore with force to write it in place anyway)", k.ID)
		}
		k.Area.Offset = off
		ns := span{off, off + s.hi - s.lo}
		taken = append(taken, ns)
		p.moved = append(p.moved, ns)
		p.mat = append(p.mat, keyslotWrite{off, img[s.lo:s.hi]})
	}
	return p, nil
}

// freeSpan returns the lowest offset, aligned to 4096, of size bytes in
// [lo, hi) that overlaps none of taken.
func freeSpan(taken []span, lo, hi, size uint64) (uint64, bool) {
	t := append([]span(nil), taken...)
	sort.Slice(t, func(i, j int) bool { return t[i].lo < t[j].lo })
	at := roundUp(lo, keyslotAlign)
	for _, u := range t {
		if u.lo >= at+size {
			break
		}
		if u.hi > at {
			at = roundUp(u.hi, keyslotAlign)
		}
	}
	return at, at+size <= hi
}

// subtract returns the parts of spans outside every span of minus.
func subtract(spans, minus []span) []span {
	out := spans
	for _, m := range minus {
		var next []span
		for _, s := range out {
			if !s.overlaps(m) {
				next = append(next, s)
				continue
			}
			if s.lo < m.lo {
				next = append(next, span{s.lo, m.lo})
			}
			if m.hi < s.hi {
				next = append(next, span{m.hi, s.hi})
			}
		}
		out = next
	}
	return out
}
