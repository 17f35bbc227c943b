package luks

// In-place encryption of a plain device into LUKS2 with the header at its
// front: cryptsetup reencrypt --encrypt --reduce-device-size R, resilience
// "datashift". What cryptsetup 2.6.1 writes, as observed by running it on
// image files (luksDump --dump-json-metadata after --init-only; strace of
// a whole run; runs killed by strace's syscall injection at chosen
// writes; the volume key read back with luksDump --dump-volume-key):
//
// Geometry. R must be a multiple of 512 and R/2 of 4096. The shift S is
// R/2: the new header (16 KiB metadata copies, keyslots_size S-32K) fills
// [0, S) and the data segment starts at S. The data kept is D = dev-R
// bytes (the device's last R bytes are given up; D < S gets another
// layout, refused here). The final data segment is crypt at S, size
// "dynamic", iv_tweak 0, aes-xts-plain64 with 512-byte sectors unless
// told otherwise: the volume is dev-S bytes, its last S bytes are the
// wiped copy described below (random, not plaintext).
//
// Metadata. A reencrypt keyslot (key_size 1, priority 0, mode "encrypt",
// direction "backward", area type "datashift", size 4096 after keyslot
// 0's area, shift_size S); the requirement online-reencrypt-v2; backup
// segments "backup-previous" (linear, offset 0, size D), "backup-final"
// (the final crypt segment) and "backup-moved-segment" (linear at dev-S,
// size S). --init-only lists the backups in the order moved, previous,
// final; every later state in the order previous, final, moved. The
// verification digest (bound to the reencrypt keyslot, no segments) is
// PBKDF2 of reencryptDigestData, which for datashift ends with the moved
// segment after the two others (checked against cryptsetup's digest with
// the dumped volume key).
//
// Writes, in order:
//  1. the first S bytes of the device are copied to [dev-S, dev) (one
//     write, no sync before the next);
//  2. the whole header area [0, S) is written at once (made in a
//     temporary file first, keyslots area filled with random bytes) and
//     synced. Until this write lands the device has no valid header, and
//     a power loss that tears it leaves neither a header nor the first S
//     bytes in place (their copy is at dev-S, where no tool looks);
//  3. the hotzones, from the end backward, each S bytes except the last
//     regular one (the remainder of D-S) and then [0, S): volume range
//     [lo, hi) is read from device offset lo (the plaintext not yet
//     moved), or for [0, S) from the copy at dev-S, encrypted and written
//     to lo+S. Each hotzone: the header with the hotzone recorded (a
//     crypt segment flagged "in-reencryption" at lo+S, iv_tweak lo/512),
//     the data write, fdatasync, the header with the hotzone merged into
//     the part done. The segments of a state, in volume order: the moved
//     copy (linear at dev-S, size S) while [0, S) is not done; the
//     plaintext not yet moved (linear at S, volume [S, lo)); the hotzone;
//     the part done (crypt at hi+S, size D-hi; "dynamic" once hi is 0).
//     The final digest covers backup-final first, then the crypt
//     segments. --hotzone-size is ignored: a hotzone never exceeds S, so
//     its write never overwrites its own source, and recovery of a
//     recorded hotzone is to do it again;
//  4. after the last hotzone, the header with one dynamic crypt segment
//     and the backups; the moved copy [dev-S, dev) overwritten with
//     random bytes and the reencrypt keyslot's area too; the final header
//     (no reencrypt keyslot, digest or requirement).
//
// cryptsetup --resume-only recovers from any of these headers. Known
// window (both tools): a power loss during the very first header write
// leaves no valid header; the plaintext of [0, S) is whole in its copy at
// dev-S (dd it back) and the rest of the data is untouched. Here that
// window is the writes before the secondary header copy has landed: the
// keyslots area [32K, S) and the secondary copy [16K, 32K), written in
// that order after the copy of step 1 is synced, so that any header that
// reads is complete with its keyslot; then the primary copy.
//
// This package writes the same states with fewer syncs: per hotzone one
// header (the hotzone recorded, the one before it merged into the part
// done, exactly cryptsetup's "recorded" state) and one data sync. The
// hotzone is cut in chunks that every core reads, encrypts in its cache
// and writes in parallel (source and destination never overlap).

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"

	"github.com/fastxts/xts/internal/parallel"
	"github.com/fastxts/xts/internal/sector"
)

const flagBackupMoved = "backup-moved-segment"

// shiftLayout is the geometry of an in-place encryption.
type shiftLayout struct {
	dev, shift, data uint64 // device bytes, S, D = dev-2S
	final            Segment
}

func (l *shiftLayout) movedAt() uint64 { return l.dev - l.shift }

// hotLo is the start of the hotzone that ends at done (> 0).
func (l *shiftLayout) hotLo(done uint64) uint64 {
	if done <= l.shift {
		return 0
	}
	return max(l.shift, done-l.shift)
}

func (l *shiftLayout) backups() (prev, final, moved Segment) {
	prev = Segment{Type: "linear", Offset: 0, Size: l.data, Flags: []string{flagBackupPrevious}}
	final = l.final
	final.Flags = []string{flagBackupFinal}
	moved = Segment{Type: "linear", Offset: l.movedAt(), Size: l.shift, Flags: []string{flagBackupMoved}}
	return
}

// segments returns the segments of the state where volume [done, D) is
// encrypted in place (done+S) and, if hot, the hotzone ending at done is
// recorded; and the segments the final digest covers. initial: the
// backups in --init-only's order.
func (l *shiftLayout) segments(done uint64, hot, initial bool) ([]Segment, []int) {
	var segs []Segment
	add := func(s Segment) int {
		s.ID = len(segs)
		segs = append(segs, s)
		return s.ID
	}
	var crypt []int
	lo, plain := done, done
	if hot {
		lo = l.hotLo(done)
		plain = lo
	}
	if plain > 0 {
		add(Segment{Type: "linear", Offset: l.movedAt(), Size: l.shift})
	}
	if plain > l.shift {
		add(Segment{Type: "linear", Offset: l.shift, Size: plain - l.shift})
	}
	if hot {
		s := rangeSegment(&l.final, lo, done-lo, false)
		s.Flags = []string{flagInReencryption}
		crypt = append(crypt, add(s))
	}
	switch {
	case done == 0 && !hot:
		crypt = append(crypt, add(rangeSegment(&l.final, 0, 0, true)))
	case done < l.data:
		crypt = append(crypt, add(rangeSegment(&l.final, done, l.data-done, false)))
	}
	prev, final, moved := l.backups()
	order := []Segment{prev, final, moved}
	if initial {
		order = []Segment{moved, prev, final}
	}
	fid := -1
	for _, b := range order {
		id := add(b)
		if hasFlag(&b, flagBackupFinal) {
			fid = id
		}
	}
	return segs, append([]int{fid}, crypt...)
}

// withState returns h with the segments of the state and the final
// digest covering its crypt segments.
func (l *shiftLayout) withState(h *Header, finalDigest int, done uint64, hot, initial bool) *Header {
	nh := h.clone()
	var fin []int
	nh.Segments, fin = l.segments(done, hot, initial)
	for i := range nh.Digests {
		if nh.Digests[i].ID == finalDigest {
			nh.Digests[i].Segments = fin
		}
	}
	return nh
}

func sameSegment(a, b *Segment) bool {
	if a.ID != b.ID || a.Type != b.Type || a.Offset != b.Offset || a.Dynamic != b.Dynamic || a.Size != b.Size || !slices.Equal(a.Flags, b.Flags) {
		return false
	}
	return a.Type != "crypt" || a.IVTweak == b.IVTweak && a.Encryption == b.Encryption && a.SectorSize == b.SectorSize && a.Integrity == b.Integrity
}

// shiftState finds the datashift state h records for a data device of
// devSize bytes: the layout, the part done and whether a hotzone is
// recorded. Anything but a state cryptsetup or this package writes is
// ErrReencryptMetadata.
func shiftState(h *Header, st *reencState, devSize uint64) (*shiftLayout, uint64, bool, error) {
	if st.mode != "encrypt" || st.direction != "backward" || st.resilience != "datashift" {
		return nil, 0, false, reencErr("datashift with mode %s and direction %s (cryptsetup writes encrypt, backward)", st.mode, st.direction)
	}
	if len(st.others) != 1 || !hasFlag(&st.others[0], flagBackupMoved) {
		return nil, 0, false, reencErr("datashift without exactly one %s segment", flagBackupMoved)
	}
	moved := st.others[0]
	S := st.keyslot.Area.ShiftSize
	switch {
	case S == 0 || S%keyslotAlign != 0:
		return nil, 0, false, reencErr("datashift shift_size %d (a non-zero multiple of 4096)", S)
	case st.final.Type != "crypt" || !st.final.Dynamic || st.final.Offset != S || st.final.IVTweak != 0:
		return nil, 0, false, reencErr("the final segment is not crypt at the shift %d, dynamic, iv_tweak 0", S)
	case st.prev.Type != "linear" || st.prev.Dynamic || st.prev.Offset != 0:
		return nil, 0, false, reencErr("the previous segment is not linear at 0 of a fixed size")
	case moved.Type != "linear" || moved.Dynamic || moved.Size != S || moved.Offset > ^uint64(0)-S:
		return nil, 0, false, reencErr("the moved segment is not linear of the shift's size")
	}
	l := &shiftLayout{dev: moved.Offset + S, shift: S, data: st.prev.Size, final: st.final}
	l.final.Flags = nil
	if l.dev != devSize {
		return nil, 0, false, reencErr("the in-place encryption was started on a %d-byte device, this one has %d bytes", l.dev, devSize)
	}
	ss := uint64(st.final.SectorSize)
	if l.dev < 3*S || l.data != l.dev-2*S || l.data%ss != 0 || S%ss != 0 {
		return nil, 0, false, reencErr("datashift sizes: device %d, shift %d, data %d (sectors of %d)", l.dev, S, l.data, ss)
	}
	// The candidate state, from the hotzone or the first crypt segment;
	// then the whole header must be exactly that state.
	done, hot := l.data, false
	for i := range st.regular {
		s := &st.regular[i]
		if s.Type != "crypt" {
			continue
		}
		if s.Offset < S {
			return nil, 0, false, reencErr("crypt segment %d at %d, before the shift", s.ID, s.Offset)
		}
		done = s.Offset - S
		if hasFlag(s, flagInReencryption) {
			hot = true
			done += s.Size
		}
		break
	}
	if done > l.data {
		return nil, 0, false, reencErr("datashift progress %d past the data's end %d", done, l.data)
	}
	if st.finalDigest == nil {
		return nil, 0, false, reencErr("no digest covers the final segment")
	}
	for _, initial := range []bool{false, true} {
		want, fin := l.segments(done, hot, initial)
		if len(want) == len(h.Segments) && slices.EqualFunc(want, h.Segments, func(a, b Segment) bool { return sameSegment(&a, &b) }) &&
			sameIDs(fin, st.finalDigest.Segments) && boundary(l, done) {
			return l, done, hot, nil
		}
	}
	return nil, 0, false, reencErr("the segments are not a state of an in-place encryption (datashift)")
}

// boundary reports whether done is where a hotzone starts or ends.
func boundary(l *shiftLayout, done uint64) bool {
	return done == 0 || done == l.shift && l.data >= l.shift || done > l.shift && done <= l.data && (l.data-done)%l.shift == 0
}

func sameIDs(a, b []int) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// shiftDefaultSectorSize is cryptsetup reencrypt --encrypt's sector size.
const shiftDefaultSectorSize = 512

// initDatashift writes the header of an in-place encryption of dev (the
// first state; nothing encrypted yet) and returns it.
func initDatashift(dev, hdr ReadWriterAt, passphrase []byte, o ReencryptOptions) (*Header, error) {
	if dev != hdr {
		return nil, fmt.Errorf("%w: in-place encryption (ReduceDeviceSize) with a detached header", ErrUnsupported)
	}
	if o.Mode == "" {
		o.Mode = "encrypt"
	}
	if o.Resilience != "" && o.Resilience != "datashift" {
		return nil, fmt.Errorf("luks: in-place encryption (ReduceDeviceSize) moves the data: resilience datashift, not %q", o.Resilience)
	}
	if o.Mode != "encrypt" {
		return nil, fmt.Errorf("luks: ReduceDeviceSize is for Mode \"encrypt\", not %q", o.Mode)
	}
	size, err := DeviceSize(dev)
	if err != nil {
		return nil, err
	}
	devSize, R := uint64(size), o.ReduceDeviceSize
	S := R / 2
	ss := o.SectorSize
	if ss == 0 {
		ss = shiftDefaultSectorSize
	}
	switch {
	case R%512 != 0:
		return nil, fmt.Errorf("luks: reduce size %d is not a multiple of 512 bytes", R)
	case S%keyslotAlign != 0:
		return nil, fmt.Errorf("luks: data offset %d (half the reduce size) is not a multiple of 4096 bytes", S)
	case devSize%512 != 0:
		return nil, fmt.Errorf("luks: the device size %d is not a multiple of 512 bytes", devSize)
	case devSize < 3*S:
		return nil, fmt.Errorf("luks: a %d-byte device is too small to give up %d bytes and keep more data than half of it", devSize, R)
	case ss < 512 || ss > 4096 || ss&(ss-1) != 0 || (devSize-R)%uint64(ss) != 0 || S%uint64(ss) != 0:
		return nil, fmt.Errorf("luks: sector size %d for %d bytes of data", ss, devSize-R)
	case 2*luks2MetadataSize >= S:
		return nil, fmt.Errorf("luks: reduce size %d leaves no room for the header", R)
	}
	if _, err := ReadHeader(dev); err == nil {
		return nil, fmt.Errorf("luks: the device already holds a LUKS header")
	}
	// The header, built in memory: Create's, resized to the shift.
	co := CreateOptions{}
	if o.Create != nil {
		co = *o.Create
	}
	co.Version, co.Cipher, co.SectorSize, co.KDF, co.VolumeKey, co.Detached = 2, o.Cipher, ss, o.KDF, o.VolumeKey, false
	if o.KeySize != 0 {
		co.KeyBits = 8 * o.KeySize
	}
	mem := make(memDev, max(S, luks2HeaderArea))
	h, key, err := Create(mem, passphrase, &co)
	if err != nil {
		return nil, err
	}
	defer clear(key)
	defer clear(mem)
	seg := h.Segments[0]
	l := &shiftLayout{dev: devSize, shift: S, data: devSize - R,
		final: Segment{Type: "crypt", Offset: S, Dynamic: true, Encryption: seg.Encryption, SectorSize: seg.SectorSize}}
	nh := h.clone()
	nh.Config.KeyslotsSize = S - 2*nh.HeaderSize
	fd := h.Digests[0].ID
	nh = l.withState(nh, fd, l.data, false, true)
	k, err := newReencryptKeyslot(nh, freeKeyslotID(nh), "encrypt", "backward", "datashift", "", keyslotsEnd(nh))
	if err != nil {
		return nil, err
	}
	k.Area.Size, k.Area.ShiftSize = keyslotAlign, S
	if k.Area.Offset+k.Area.Size > S {
		return nil, fmt.Errorf("luks: reduce size %d leaves no room for the keyslots", R)
	}
	if err := addReencryptMetadata(nh, k, nil, key); err != nil {
		return nil, err
	}
	if _, err := commit(mem, h, nh, nil); err != nil {
		return nil, err
	}
	// 1. The first S bytes to the end, synced.
	first := make([]byte, S)
	defer clear(first)
	if _, err := dev.ReadAt(first, 0); err != nil {
		return nil, fmt.Errorf("luks: reading the start of the device: %w", err)
	}
	if _, err := dev.WriteAt(first, int64(l.movedAt())); err != nil {
		return nil, fmt.Errorf("luks: copying the start of the device to its end: %w", err)
	}
	if err := syncDev(dev); err != nil {
		return nil, err
	}
	// 2. The keyslots area, the secondary copy, then the primary.
	hs := nh.HeaderSize
	for _, p := range [][2]uint64{{2 * hs, S}, {hs, 2 * hs}, {0, hs}} {
		if _, err := dev.WriteAt(mem[p[0]:p[1]], int64(p[0])); err != nil {
			return nil, fmt.Errorf("luks: writing the header: %w", err)
		}
		if err := syncDev(dev); err != nil {
			return nil, err
		}
	}
	return ReadHeader(dev)
}

// memDev is a device in memory of a fixed size.
type memDev []byte

func (m memDev) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > int64(len(m)) || int64(len(p)) > int64(len(m))-off {
		return 0, errors.New("luks: read outside the in-memory header")
	}
	return copy(p, m[off:]), nil
}

func (m memDev) WriteAt(p []byte, off int64) (int, error) {
	if off < 0 || off > int64(len(m)) || int64(len(p)) > int64(len(m))-off {
		return 0, errors.New("luks: write outside the in-memory header")
	}
	return copy(m[off:], p), nil
}

// shiftChunk is the unit one core reads, encrypts in its cache and
// writes.
var shiftChunk = 1 << 20

// resumeDatashift continues the in-place encryption recorded in h (read
// from dev, which holds header and data).
func resumeDatashift(ctx context.Context, dev, hdr ReadWriterAt, h *Header, st *reencState, passphrase []byte, o ReencryptOptions) error {
	if dev != hdr {
		return fmt.Errorf("%w: in-place encryption (datashift) with a detached header", ErrUnsupported)
	}
	size, err := DeviceSize(dev)
	if err != nil {
		return err
	}
	l, done, hot, err := shiftState(h, st, uint64(size))
	if err != nil {
		return err
	}
	key, _, err := unlockDigest(h, dev, st.finalDigest, passphrase, AnyKeyslot)
	if err != nil {
		return err
	}
	defer clear(key)
	if err := st.verify(nil, key); err != nil {
		return err
	}
	// Serial: shiftHotzone spreads the chunks over the cores itself.
	c, err := newSegmentCipher(l.final.Encryption, key, l.final.SectorSize, 0, sector.Serial)
	if err != nil {
		return err
	}
	defer c.Wipe()
	r := &reencRun{data: dev, hdr: dev, h: h, st: st}
	report := func(done uint64) {
		if o.Progress != nil {
			o.Progress(l.data-done, l.data)
		}
	}
	for done > 0 {
		if !hot {
			if err := r.commit(l.withState(r.h, st.finalDigest.ID, done, true, false)); err != nil {
				return err
			}
		}
		lo := l.hotLo(done)
		if err := shiftHotzone(dev, c, l, lo, done); err != nil {
			return err
		}
		done, hot = lo, false
		report(done)
		if err := ctx.Err(); err != nil && done > 0 {
			if err := r.commit(l.withState(r.h, st.finalDigest.ID, done, false, false)); err != nil {
				return err
			}
			return fmt.Errorf("luks: in-place encryption stopped (resume it with ResumeReencrypt): %w", err)
		}
	}
	if len(r.h.Segments) != 4 || !r.h.Segments[0].Dynamic {
		if err := r.commit(l.withState(r.h, st.finalDigest.ID, 0, false, false)); err != nil {
			return err
		}
	}
	// The copy of the first S bytes is plaintext: random over it, then
	// the final header.
	if err := wipeRandom(dev, l.movedAt(), l.shift); err != nil {
		return fmt.Errorf("luks: wiping the moved copy: %w", err)
	}
	if err := syncDev(dev); err != nil {
		return err
	}
	return r.finish()
}

// shiftHotzone encrypts volume [lo, hi) from its source (the moved copy
// for lo 0, else in place) to lo+S, in chunks spread over the cores, and
// syncs it.
//
// Each chunk is read into a buffer, not encrypted from a shared mapping
// of the file: on a Zen 5 VM (1 GiB in /dev/shm, cryptsetup's layout for
// --reduce-device-size 32M) the mapping's page faults made the whole
// encryption 40 % slower than the reads' one copy more (medians 334
// against 232 ms), and mapping each hotzone at once (MADV_POPULATE_READ)
// did not help (354 ms).
func shiftHotzone(dev ReadWriterAt, c *sector.Cipher, l *shiftLayout, lo, hi uint64) error {
	src := lo
	if lo == 0 {
		src = l.movedAt()
	}
	ss := uint64(l.final.SectorSize)
	chunk := max(1, shiftChunk/int(ss))
	err := parallel.Run(int((hi-lo)/ss), chunk, runtime.GOMAXPROCS(0), func(a, b int) error {
		off := uint64(a) * ss
		n := uint64(b-a) * ss
		bp := chunkPool.Get().(*[]byte)
		defer chunkPool.Put(bp)
		if uint64(cap(*bp)) < n {
			*bp = make([]byte, n)
		}
		buf := (*bp)[:n]
		if _, err := dev.ReadAt(buf, int64(src+off)); err != nil {
			clear(buf) // what plaintext it read
			return fmt.Errorf("luks: reading the data at %d: %w", src+off, err)
		}
		// buf holds ciphertext from here on: nothing to clear.
		c.Encrypt(buf, buf, (lo+off)/ss)
		if _, err := dev.WriteAt(buf, int64(lo+l.shift+off)); err != nil {
			return fmt.Errorf("luks: writing the data at %d: %w", lo+l.shift+off, err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("luks: in-place encryption of [%d, %d): %w", lo, hi, err)
	}
	return syncDev(dev)
}
