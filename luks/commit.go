package luks

import (
	"bytes"
	"fmt"
	"io"
)

// keyslotWrite is keyslot material that commit writes before the header
// that uses it.
type keyslotWrite struct {
	off  uint64
	data []byte
}

// commit writes the header nh, built from old (nil when Create makes a
// new image), to w, and returns the header as written: what ReadHeader
// reads from w afterwards. Every verb that changes a header builds the
// new one in memory and commits it; the rule for callers is the same for
// all of them (see the package documentation).
//
// Before anything is written:
//   - nh is encoded and its encoding parsed and validated exactly as
//     ReadHeader does, so no header this package would refuse to read
//     reaches the disk;
//   - the keyslot material must lie inside keyslot areas of nh and
//     outside every area old uses, so no old keyslot is overwritten;
//   - the header on w must still be old: the same LUKS1 phdr bytes, or
//     the same LUKS2 UUID, sequence id and JSON metadata. If another tool
//     changed it since it was read, commit refuses.
//
// Then it writes the keyslot material, then (LUKS2) the secondary header
// copy and then the primary, each with sequence id old's plus one (the
// primary first when old was read from the secondary copy, the primary
// being damaged or older: the copy in force is written over last). A
// crash before the last write leaves old in force (LUKS1: its phdr; LUKS2:
// the copy old was read from, or the other copy with the higher sequence
// id that holds every old keyslot), so every old passphrase still opens
// the image.
func commit(w io.WriterAt, old, nh *Header, material []keyslotWrite) (*Header, error) {
	if old != nil && nh.Version == 2 {
		nh.Seqid = old.Seqid + 1
	}
	copies, offsets, written, err := encodeHeader(nh)
	if err != nil {
		return nil, err
	}
	if err := checkMaterial(old, written, material); err != nil {
		return nil, err
	}
	if old != nil {
		if err := checkUnchanged(w, old); err != nil {
			return nil, err
		}
	}
	for _, m := range material {
		if _, err := w.WriteAt(m.data, int64(m.off)); err != nil {
			return nil, fmt.Errorf("luks: writing keyslot material at %d: %w", m.off, err)
		}
	}
	order := []int{0, 1} // LUKS2: the secondary copy, then the primary
	if len(copies) == 1 {
		order = []int{0}
	} else if old != nil && !old.primaryOK {
		// The header in force was read from the secondary copy (the
		// primary damaged or older): a torn write over it would leave
		// no valid copy, so the primary goes first.
		order = []int{1, 0}
	}
	for _, i := range order {
		if _, err := w.WriteAt(copies[i], int64(offsets[i])); err != nil {
			return nil, fmt.Errorf("luks: writing the header at %d: %w", offsets[i], err)
		}
	}
	return written, nil
}

// encodeHeader encodes nh (with its own sequence id) and checks the
// encoding as ReadHeader checks a header: it returns the bytes to write,
// in order (LUKS2: the secondary copy, then the primary; LUKS1: the
// phdr), their offsets, and the header as ReadHeader will read it.
func encodeHeader(nh *Header) (copies [][]byte, offsets []uint64, written *Header, err error) {
	switch nh.Version {
	case 1:
		p, err := nh.luks1Phdr()
		if err != nil {
			return nil, nil, nil, err
		}
		b := p.encode()
		if written, err = decodeLUKS1(b).header(); err != nil {
			return nil, nil, nil, fmt.Errorf("luks: the new header is not valid: %w", err)
		}
		written.onDisk = b
		return [][]byte{b}, []uint64{0}, written, nil
	case 2:
		js, err := nh.encodeJSON()
		if err != nil {
			return nil, nil, nil, err
		}
		sec, err := encodeLUKS2Copy(nh, js, nh.HeaderSize)
		if err != nil {
			return nil, nil, nil, err
		}
		prim, err := encodeLUKS2Copy(nh, js, 0)
		if err != nil {
			return nil, nil, nil, err
		}
		c := &copy2{bin: prim[:binHeaderSize], area: prim, seqid: nh.Seqid}
		if written, err = parseCopy(c); err != nil {
			return nil, nil, nil, fmt.Errorf("luks: the new header is not valid: %w", err)
		}
		written.PrimaryValid, written.SecondaryValid, written.primaryOK = true, true, true
		written.wrote = [2][]byte{prim, sec}
		return [][]byte{sec, prim}, []uint64{nh.HeaderSize, 0}, written, nil
	}
	return nil, nil, nil, fmt.Errorf("luks: LUKS version %d", nh.Version)
}

// checkMaterial checks that each write lies inside an active keyslot
// area of nh and outside every area of old.
func checkMaterial(old, nh *Header, material []keyslotWrite) error {
	for _, m := range material {
		lo, hi := m.off, m.off+uint64(len(m.data))
		inside := false
		for _, k := range nh.Keyslots {
			if k.Active && lo >= k.Area.Offset && hi <= k.Area.Offset+k.Area.Size {
				inside = true
			}
		}
		if !inside {
			return fmt.Errorf("luks: keyslot material [%d, %d) lies outside the new header's keyslot areas", lo, hi)
		}
		if old == nil {
			continue
		}
		for _, k := range old.Keyslots {
			if k.Active && lo < k.Area.Offset+k.Area.Size && k.Area.Offset < hi {
				return fmt.Errorf("luks: keyslot material [%d, %d) would overwrite keyslot %d", lo, hi, k.ID)
			}
		}
	}
	return nil
}

// checkUnchanged reports an error unless the header on w is still old.
func checkUnchanged(w io.WriterAt, old *Header) error {
	r, ok := w.(io.ReaderAt)
	if !ok {
		return fmt.Errorf("luks: cannot read the header back from the device to check it is unchanged")
	}
	if old.Version == 1 {
		b := make([]byte, luks1HeaderSize)
		if _, err := r.ReadAt(b, 0); err != nil {
			return fmt.Errorf("luks: reading the LUKS1 header back: %w", err)
		}
		if old.onDisk == nil || !bytes.Equal(b, old.onDisk) {
			return fmt.Errorf("luks: the LUKS1 header on the device changed since it was read (by another tool?); read it again")
		}
		return nil
	}
	if sameBytes(r, old.wrote[0], 0) && sameBytes(r, old.wrote[1], old.HeaderSize) {
		// Both copies as the last commit wrote them: ReadHeader would read
		// old. This saves parsing both (a third of an in-place
		// encryption's 64 commits per GiB).
		return nil
	}
	cur, err := ReadHeader(r)
	if err != nil {
		return fmt.Errorf("luks: the header on the device changed since it was read: %w", err)
	}
	if cur.Version != 2 || cur.UUID != old.UUID || cur.Seqid != old.Seqid || !bytes.Equal(cur.JSON, old.JSON) {
		return fmt.Errorf("luks: the header on the device changed since it was read (UUID %s, sequence id %d; was %s, %d) (by another tool?); read it again",
			cur.UUID, cur.Seqid, old.UUID, old.Seqid)
	}
	return nil
}

// sameBytes reports whether r holds want at off (false for a nil want or
// a read error: the caller then checks the long way).
func sameBytes(r io.ReaderAt, want []byte, off uint64) bool {
	if want == nil {
		return false
	}
	b := make([]byte, len(want))
	if _, err := r.ReadAt(b, int64(off)); err != nil {
		return false
	}
	return bytes.Equal(b, want)
}

// syncer is a device that can flush its writes (an *os.File).
type syncer interface{ Sync() error }

// syncDev makes the writes to d so far durable before the next ones,
// where d can (the crash-safe orders of the verbs and the reencryption
// engines assume each step lands before the next begins).
func syncDev(d any) error {
	if s, ok := d.(syncer); ok {
		if err := s.Sync(); err != nil {
			return fmt.Errorf("luks: flushing the device: %w", err)
		}
	}
	return nil
}
