package luks

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"hash"
	"runtime"

	"github.com/fastxts/xts/internal/parallel"
	"github.com/fastxts/xts/internal/sector"
)

// The reencryption engine: hotzone after hotzone, each one
//
//  1. the resilience data written to the reencrypt keyslot's area and
//     synced: checksums of its old blocks, or a copy of it (journal), or
//     nothing (none);
//  2. the header committed with the hotzone marked in-reencryption (and
//     the hotzone before it merged into the part done), then synced;
//  3. the hotzone decrypted with the old key and encrypted with the new,
//     written and synced.
//
// The hotzone is read into one of two buffers (allocated once) in
// chunks (chunkSize) spread over every core, each chunk hashed just
// after it is read; the next hotzone is read and hashed while this one
// is recorded, transformed (in chunks over the cores) and written in one
// write. (A read-only mapping of the image, as Volume uses, costs more
// here than it saves: hashing from it faults page by page.)
//
// With checksum or none resilience the commit of step 2 is the only one
// per hotzone: the next hotzone's checksums overwrite those of one that
// is wholly written and synced, and a block of new data matches a
// checksum of another hotzone's old block only by a SHA collision, so a
// crash then still recovers it as new. A journal must not be overwritten
// while its hotzone is recorded, so journal resilience commits again after
// each hotzone ("done"), as cryptsetup does, but the last (that one goes
// straight to the final header).
//
// Recovery of a recorded hotzone (a crash, or cryptsetup killed):
// checksum: each block whose checksum matches is still old and is
// reencrypted, the others are kept; journal: the copy is written back,
// then the hotzone reencrypted; none: the hotzone is taken as old and
// reencrypted: a crash while it was being written loses the blocks
// written (none survives no crash; cryptsetup documents the same).

// reencRun is one run of the engine.
type reencRun struct {
	data, hdr  ReadWriterAt
	h          *Header
	st         *reencState
	p          reencProgress
	oldC, newC *sector.Cipher // nil for linear
	align      uint64
	maxHot     uint64
	hashFn     func() hash.Hash
	progressFn func(done, total uint64)
	// Fixed for the run, read by the goroutine that reads ahead while
	// commit replaces st.
	start uint64 // the data start on the data device
	block int    // checksum resilience's block size
}

func (r *reencRun) commit(nh *Header) error {
	w, err := commit(r.hdr, r.h, nh, nil)
	if err != nil {
		return err
	}
	r.h = w
	if r.st, err = parseReencrypt(w); err != nil {
		return err
	}
	return syncDev(r.hdr)
}

// transform turns the old raw data src of [off, off+len(src)) into the
// new in dst (the same length; they may be the same slice).
func (r *reencRun) transform(dst, src []byte, off uint64) {
	if r.oldC == nil {
		r.newC.Encrypt(dst, src, off/uint64(r.st.final.SectorSize))
		return
	}
	r.oldC.Decrypt(dst, src, off/uint64(r.st.prev.SectorSize))
	if r.newC != nil {
		r.newC.Encrypt(dst, dst, off/uint64(r.st.final.SectorSize))
	}
}

// sumBlocks writes the checksum of every block of b into out (the
// hash's size each).
func (r *reencRun) sumBlocks(hh hash.Hash, out, b []byte) {
	bs, hs := r.block, hh.Size()
	for i := 0; i*bs < len(b); i++ {
		hh.Reset()
		hh.Write(b[i*bs : min(len(b), (i+1)*bs)])
		hh.Sum(out[i*hs : i*hs])
	}
}

// checksums computes the checksum of every block of buf, in parallel.
func (r *reencRun) checksums(buf []byte) []byte {
	bs := r.st.keyslot.Area.SectorSize
	hs := r.hashFn().Size()
	n := (len(buf) + bs - 1) / bs
	out := make([]byte, n*hs)
	per := max(1, chunkSize/bs)
	parallel.Run(n, per, runtime.GOMAXPROCS(0), func(a, b int) error {
		r.sumBlocks(r.hashFn(), out[a*hs:b*hs], buf[a*bs:min(len(buf), b*bs)])
		return nil
	})
	return out
}

// chunks calls fn for the consecutive chunks [off, off+n) of the
// hotzone [lo, hi) (offsets from the data start), spread over the cores.
func (r *reencRun) chunks(lo, hi uint64, fn func(off, n uint64) error) error {
	unit := r.align
	grain := max(1, uint64(chunkSize)/unit)
	return parallel.Run(int((hi-lo)/unit), int(grain), runtime.GOMAXPROCS(0), func(a, b int) error {
		return fn(lo+uint64(a)*unit, uint64(b-a)*unit)
	})
}

// prepare reads the old raw data of the hotzone [lo, hi) into buf and,
// for checksum resilience, the checksums of its blocks into sums: in
// chunks spread over the cores, each hashed just after it is read.
func (r *reencRun) prepare(lo, hi uint64, buf, sums []byte) error {
	var bs, hs uint64
	if sums != nil {
		bs, hs = uint64(r.block), uint64(r.hashFn().Size())
	}
	return r.chunks(lo, hi, func(off, n uint64) error {
		b := buf[off-lo : off-lo+n]
		if err := r.readData(b, off); err != nil {
			return err
		}
		if bs != 0 {
			i := (off - lo) / bs
			r.sumBlocks(r.hashFn(), sums[i*hs:(i+(n+bs-1)/bs)*hs], b)
		}
		return nil
	})
}

// rewrite turns the old raw data of the hotzone [lo, hi) in buf into
// the new (in chunks spread over the cores), writes it and syncs it.
func (r *reencRun) rewrite(lo, hi uint64, buf []byte) error {
	err := r.chunks(lo, hi, func(off, n uint64) error {
		b := buf[off-lo : off-lo+n]
		r.transform(b, b, off)
		return nil
	})
	if err != nil {
		return err
	}
	// One write: parallel writes to one file gain nothing (they
	// serialise on the file's lock), and each one more is one more
	// state a crash can leave.
	return r.writeData(buf, lo)
}

func (r *reencRun) readData(buf []byte, off uint64) error {
	if _, err := r.data.ReadAt(buf, int64(r.start+off)); err != nil {
		return fmt.Errorf("luks: reading the data at %d: %w", r.start+off, err)
	}
	return nil
}

func (r *reencRun) writeData(buf []byte, off uint64) error {
	if _, err := r.data.WriteAt(buf, int64(r.start+off)); err != nil {
		return fmt.Errorf("luks: writing the data at %d: %w", r.start+off, err)
	}
	return syncDev(r.data)
}

func (r *reencRun) writeArea(b []byte) error {
	if _, err := r.hdr.WriteAt(b, int64(r.st.keyslot.Area.Offset)); err != nil {
		return fmt.Errorf("luks: writing the reencryption area: %w", err)
	}
	return syncDev(r.hdr)
}

// recover brings a recorded hotzone to its new state on disk (the header
// still records it).
func (r *reencRun) recover() error {
	lo, hi := r.p.Lo, r.p.Hi
	buf := make([]byte, hi-lo)
	defer clear(buf)
	switch r.st.resilience {
	case "checksum":
		if err := r.readData(buf, lo); err != nil {
			return err
		}
		stored := make([]byte, len(r.checksums(buf)))
		if _, err := r.hdr.ReadAt(stored, int64(r.st.keyslot.Area.Offset)); err != nil {
			return fmt.Errorf("luks: reading the checksums: %w", err)
		}
		now := r.checksums(buf)
		bs, hs := r.st.keyslot.Area.SectorSize, r.hashFn().Size()
		// Runs of old blocks are reencrypted; blocks already new are kept.
		for i := 0; i*bs < len(buf); {
			if subtle.ConstantTimeCompare(now[i*hs:(i+1)*hs], stored[i*hs:(i+1)*hs]) != 1 {
				i++
				continue
			}
			j := i
			for j*bs < len(buf) && subtle.ConstantTimeCompare(now[j*hs:(j+1)*hs], stored[j*hs:(j+1)*hs]) == 1 {
				j++
			}
			a, b := i*bs, min(len(buf), j*bs)
			r.transform(buf[a:b], buf[a:b], lo+uint64(a))
			i = j
		}
	case "journal":
		if _, err := r.hdr.ReadAt(buf, int64(r.st.keyslot.Area.Offset)); err != nil {
			return fmt.Errorf("luks: reading the journal: %w", err)
		}
		if err := r.writeData(buf, lo); err != nil {
			return err
		}
		r.transform(buf, buf, lo)
	case "none":
		if err := r.readData(buf, lo); err != nil {
			return err
		}
		r.transform(buf, buf, lo)
	default:
		return fmt.Errorf("%w: %s resilience", ErrUnsupported, r.st.resilience)
	}
	return r.writeData(buf, lo)
}

// next returns the next hotzone after the progress, or ok false.
func (r *reencRun) next() (lo, hi uint64, ok bool) { return r.nextAfter(r.p.Lo, r.p.Hi) }

// nextAfter returns the hotzone after the one [lo, hi) (the part done
// ending there), or ok false.
func (r *reencRun) nextAfter(lo, hi uint64) (uint64, uint64, bool) {
	if r.st.direction == "forward" {
		if hi >= r.p.Length {
			return 0, 0, false
		}
		return hi, min(r.p.Length, hi+r.maxHot), true
	}
	if lo == 0 {
		return 0, 0, false
	}
	return lo - min(lo, r.maxHot), lo, true
}

// settle returns the progress with the recorded hotzone counted as done.
func (r *reencRun) settle() reencProgress {
	p := r.p
	if r.st.direction == "forward" {
		p.Lo = p.Hi
	} else {
		p.Hi = p.Lo
	}
	p.Hot = false
	return p
}

func (r *reencRun) report() {
	if r.progressFn != nil {
		p := r.settle()
		r.progressFn(p.Done(r.st.direction == "forward"), p.Length)
	}
}

type prepared struct {
	lo, hi    uint64
	buf, sums []byte
	err       error
}

// run does the hotzones to the end, or until ctx is cancelled. The next
// hotzone is read and hashed while this one is written.
func (r *reencRun) run(ctx context.Context) error {
	if r.p.Hot {
		if err := r.recover(); err != nil {
			return err
		}
		if r.st.resilience == "journal" {
			if err := r.commit(r.st.withProgress(r.h, r.settle())); err != nil {
				return err
			}
			r.p = r.settle()
		}
		r.report()
	}
	var bufs, sums [2][]byte
	for i := range bufs {
		bufs[i] = make([]byte, min(r.maxHot, r.p.Length))
		defer clear(bufs[i])
		if r.st.resilience == "checksum" {
			bs := uint64(r.st.keyslot.Area.SectorSize)
			sums[i] = make([]byte, (r.maxHot+bs-1)/bs*uint64(r.hashFn().Size()))
		}
	}
	start := func(i int, lo, hi uint64) chan prepared {
		c := make(chan prepared, 1)
		go func() {
			b, s := bufs[i][:hi-lo], sums[i]
			c <- prepared{lo, hi, b, s, r.prepare(lo, hi, b, s)}
		}()
		return c
	}
	var pending chan prepared
	if lo, hi, ok := r.next(); ok {
		pending = start(0, lo, hi)
	}
	drain := func() {
		if pending != nil {
			<-pending
		}
	}
	for turn := 1; pending != nil; turn++ {
		cur := <-pending
		pending = nil
		if err := ctx.Err(); err != nil {
			if r.p.Hot {
				if err2 := r.commit(r.st.withProgress(r.h, r.settle())); err2 != nil {
					return err2
				}
			}
			return fmt.Errorf("luks: reencryption stopped (resume it with ResumeReencrypt): %w", err)
		}
		if cur.err != nil {
			return fmt.Errorf("luks: reading the hotzone [%d, %d): %w", cur.lo, cur.hi, cur.err)
		}
		// The next hotzone is read and hashed meanwhile.
		nlo, nhi, more := r.nextAfter(cur.lo, cur.hi)
		if more {
			pending = start(turn%2, nlo, nhi)
		}
		// Resilience data (the hotzone before is written and synced),
		// then the header recording this hotzone.
		switch r.st.resilience {
		case "checksum":
			bs := uint64(r.st.keyslot.Area.SectorSize)
			if err := r.writeArea(cur.sums[:(cur.hi-cur.lo+bs-1)/bs*uint64(r.hashFn().Size())]); err != nil {
				drain()
				return err
			}
		case "journal":
			if err := r.writeArea(cur.buf); err != nil {
				drain()
				return err
			}
		}
		p := r.settle()
		p.Lo, p.Hi, p.Hot = cur.lo, cur.hi, true
		if err := r.commit(r.st.withProgress(r.h, p)); err != nil {
			drain()
			return err
		}
		r.p = p
		if err := r.rewrite(cur.lo, cur.hi, cur.buf); err != nil {
			drain()
			return fmt.Errorf("luks: reencrypting the hotzone [%d, %d): %w", cur.lo, cur.hi, err)
		}
		// Journal: the hotzone recorded done before the next journal is
		// written; the last one goes straight to the final header (an
		// all-done state recorded as a reencryption is what cryptsetup
		// 2.6.1's --resume-only would process again).
		if r.st.resilience == "journal" && more {
			if err := r.commit(r.st.withProgress(r.h, r.settle())); err != nil {
				drain()
				return err
			}
			r.p = r.settle()
		}
		r.report()
	}
	return r.finish()
}

// finish commits the final header and wipes the freed keyslot areas.
func (r *reencRun) finish() error {
	nh, wipe := r.st.finalHeader(r.h)
	wipe = append(wipe, r.st.keyslot.Area)
	w, err := commit(r.hdr, r.h, nh, nil)
	if err != nil {
		return err
	}
	r.h = w
	if err := syncDev(r.hdr); err != nil {
		return err
	}
	for _, a := range wipe {
		if err := writeZeros(r.hdr, int64(a.Offset), int64(a.Size)); err != nil {
			return fmt.Errorf("luks: wiping a freed keyslot area: %w", err)
		}
	}
	return syncDev(r.hdr)
}

// unlockDigest returns the key of digest d that passphrase opens in one
// of its keyslots (slot: that keyslot only, unless AnyKeyslot).
func unlockDigest(h *Header, dev ReadWriterAt, d *Digest, passphrase []byte, slot int) ([]byte, int, error) {
	var firstErr error
	for _, id := range d.Keyslots {
		if slot != AnyKeyslot && id != slot {
			continue
		}
		k, ok := h.Keyslot(id)
		if !ok || k.Type != "luks2" {
			continue
		}
		key, err := h.openKeyslot(dev, k, passphrase)
		if err == nil {
			return key, id, nil
		}
		if !errors.Is(err, ErrNoKey) && firstErr == nil {
			firstErr = fmt.Errorf("keyslot %d: %w", id, err)
		}
	}
	if firstErr != nil {
		return nil, -1, firstErr
	}
	return nil, -1, ErrNoKey
}

// checkReencryptHeader reads and checks hdr's header for a resume.
func readReencrypt(hdr ReadWriterAt) (*Header, *reencState, error) {
	h, err := ReadHeader(hdr)
	if err != nil {
		return nil, nil, err
	}
	if h.Version == 1 {
		return nil, nil, fmt.Errorf("%w: LUKS1 reencryption (convert the image to LUKS2 first: cryptsetup convert --type luks2)", ErrUnsupported)
	}
	st, err := parseReencrypt(h)
	if err != nil {
		return nil, nil, err
	}
	return h, st, nil
}

func resumeReencrypt(ctx context.Context, data, hdr ReadWriterAt, passphrase []byte, o ReencryptOptions) error {
	h, st, err := readReencrypt(hdr)
	if err != nil {
		return err
	}
	if st.resilience == "datashift" {
		return resumeDatashift(ctx, data, hdr, h, st, passphrase, o)
	}
	devSize, err := DeviceSize(data)
	if err != nil {
		return err
	}
	p, err := st.progress(uint64(devSize))
	if err != nil {
		return err
	}
	var oldKey, newKey []byte
	defer func() { clear(oldKey); clear(newKey) }()
	// All done but the final header: cryptsetup wipes and drops the old
	// keyslots before it commits that, so a run killed in between leaves
	// no old key (and, for a decryption, no key at all). Nothing is left
	// to read or write but the header, so the old key is not needed then
	// (nor the verification digest, which needs it).
	allDone := !p.Hot && p.Done(st.direction == "forward") == p.Length
	if st.prevDigest != nil {
		if oldKey, _, err = unlockDigest(h, hdr, st.prevDigest, passphrase, AnyKeyslot); err != nil && !(allDone && errors.Is(err, ErrNoKey)) {
			return fmt.Errorf("luks: the old volume key: %w", err)
		}
	}
	if st.finalDigest != nil {
		if newKey, _, err = unlockDigest(h, hdr, st.finalDigest, passphrase, AnyKeyslot); err != nil {
			return fmt.Errorf("luks: the new volume key: %w", err)
		}
	}
	r := &reencRun{data: data, hdr: hdr, h: h, st: st, p: p, progressFn: o.Progress, start: st.dataStart(), block: st.keyslot.Area.SectorSize}
	if allDone && st.prevDigest != nil && oldKey == nil {
		return r.finish()
	}
	if err := st.verify(oldKey, newKey); err != nil {
		return err
	}
	for _, s := range []*Segment{&st.prev, &st.final} {
		if s.Type == "crypt" {
			r.align = max(r.align, uint64(s.SectorSize))
		}
	}
	if r.align == 0 {
		r.align = 512
	}
	if p.Length%r.align != 0 {
		return fmt.Errorf("luks: the data (%d bytes) is not a whole number of %d-byte sectors", p.Length, r.align)
	}
	if st.prevDigest != nil {
		if r.oldC, err = newSegmentCipher(st.prev.Encryption, oldKey, st.prev.SectorSize, st.prev.IVTweak); err != nil {
			return err
		}
		defer r.oldC.Wipe()
	}
	if st.finalDigest != nil {
		if r.newC, err = newSegmentCipher(st.final.Encryption, newKey, st.final.SectorSize, st.final.IVTweak); err != nil {
			return err
		}
		defer r.newC.Wipe()
	}
	hz := o.HotzoneSize
	if hz == 0 {
		hz = DefaultHotzoneSize
	}
	a := &st.keyslot.Area
	switch st.resilience {
	case "checksum":
		r.hashFn, _ = hashFunc(a.Hash)
		r.align = max(r.align, uint64(a.SectorSize))
		hz = min(hz, a.Size/uint64(r.hashFn().Size())*uint64(a.SectorSize))
	case "journal":
		hz = min(hz, a.Size)
	}
	r.maxHot = hz / r.align * r.align
	if r.maxHot == 0 {
		return fmt.Errorf("luks: the reencryption area (%d bytes) is too small for one %d-byte hotzone", a.Size, r.align)
	}
	return r.run(ctx)
}
