package bitlocker

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"

	"github.com/fastxts/xts/internal/volume"
)

// Options tune Open. The zero value (or nil) opens for reading and writing
// when the device is an io.WriterAt.
type Options struct {
	// ReadOnly refuses WriteAt even on a writable device.
	ReadOnly bool
	// Metadata, if set, is used instead of reading it again (from an
	// earlier ReadMetadata of the same device).
	Metadata *Metadata
}

// ErrProtectedArea is returned (wrapped) by WriteAt for writes that touch a
// BitLocker metadata area or the encrypted copy of the boot sectors: they
// read as zeros and cannot be written through the volume.
var ErrProtectedArea = errors.New("bitlocker: write to a metadata area")

// Volume is an unlocked BitLocker volume: its decrypted contents, with the
// boot sectors read from (and written to) their relocated, encrypted copy
// and the metadata areas reading as zeros, as Windows shows them. ReadAt
// may be called concurrently; WriteAt is serialised against everything.
type Volume struct {
	mu        sync.RWMutex
	meta      *Metadata
	protector *Protector
	fvek      []byte
	main      *volume.Volume // the whole volume, sector k decrypted as sector k
	hdr       *volume.Volume // the relocated boot sectors, decrypted where they lie
	zeros     [][2]int64     // sorted [start, end) areas that read as zeros
	closed    bool
}

// Open unlocks the BitLocker volume on dev with s. It returns ErrWrongSecret
// (wrapped) when no protector accepts s, and ErrUnsupported (wrapped, with
// the reason) for volumes it cannot open whatever the secret.
func Open(dev io.ReaderAt, s Secret, o *Options) (*Volume, error) {
	if o == nil {
		o = &Options{}
	}
	m := o.Metadata
	if m == nil {
		var err error
		if m, err = ReadMetadata(dev); err != nil {
			return nil, err
		}
	}
	if err := m.Openable(); err != nil {
		return nil, err
	}
	if size, err := volume.DeviceSize(dev); err == nil && size < m.VolumeSize {
		return nil, fmt.Errorf("bitlocker: device of %d bytes is shorter than the %d-byte volume", size, m.VolumeSize)
	}
	key, p, err := m.unlock(s)
	if err != nil {
		return nil, err
	}
	v, err := newVolume(dev, m, key, o.ReadOnly)
	if err != nil {
		clear(key)
		return nil, err
	}
	v.protector = p
	return v, nil
}

func newVolume(dev io.ReaderAt, m *Metadata, key []byte, ro bool) (*Volume, error) {
	c, err := newSectorCipher(m.Method, key, m.SectorSize)
	if err != nil {
		return nil, err
	}
	v := &Volume{meta: m, fvek: key}
	for _, o := range m.MetadataOffsets {
		v.zeros = append(v.zeros, [2]int64{o, o + m.MetadataSize})
	}
	if m.HeaderSize > 0 {
		v.zeros = append(v.zeros, [2]int64{m.HeaderOffset, m.HeaderOffset + m.HeaderSize})
	}
	sort.Slice(v.zeros, func(i, j int) bool { return v.zeros[i][0] < v.zeros[j][0] })
	for i := 1; i < len(v.zeros); i++ {
		if v.zeros[i][0] < v.zeros[i-1][1] {
			return nil, fmt.Errorf("%w: metadata areas overlap at %d", ErrCorrupt, v.zeros[i][0])
		}
	}
	if m.HeaderSize > 0 && v.zeros[0][0] < m.HeaderSize {
		return nil, fmt.Errorf("%w: a metadata area at %d overlaps the %d boot-sector bytes", ErrCorrupt, v.zeros[0][0], m.HeaderSize)
	}
	v.main, err = volume.New(volume.Config{
		Data: dev, Size: m.VolumeSize, SectorSize: m.SectorSize, Cipher: c,
		ReadOnly: ro, Name: "bitlocker", Guard: v.guard,
	})
	if err != nil {
		return nil, err
	}
	if m.HeaderSize > 0 {
		v.hdr, err = volume.New(volume.Config{
			Data: dev, Offset: m.HeaderOffset, Size: m.HeaderSize, SectorSize: m.SectorSize,
			Cipher:   shiftedSectors{c, uint64(m.HeaderOffset / int64(m.SectorSize))},
			ReadOnly: ro, Name: "bitlocker",
		})
		if err != nil {
			v.main.Close()
			return nil, err
		}
	}
	return v, nil
}

// shiftedSectors decrypts the relocated boot sectors with the sector
// numbers of the place where they lie.
type shiftedSectors struct {
	c    *sectorCipher
	base uint64
}

func (s shiftedSectors) Encrypt(dst, src []byte, k uint64) { s.c.Encrypt(dst, src, k+s.base) }
func (s shiftedSectors) Decrypt(dst, src []byte, k uint64) { s.c.Decrypt(dst, src, k+s.base) }
func (s shiftedSectors) Wipe()                             {} // the main volume wipes c

// guard refuses writes to the metadata areas (and to the boot sectors,
// which WriteAt sends to the relocated copy instead).
func (v *Volume) guard(off, n int64) error {
	if off < v.meta.HeaderSize {
		return fmt.Errorf("%w: [%d, +%d) reaches the %d relocated boot-sector bytes", ErrProtectedArea, off, n, v.meta.HeaderSize)
	}
	for _, z := range v.zeros {
		if off < z[1] && z[0] < off+n {
			return fmt.Errorf("%w: [%d, +%d) overlaps the metadata area [%d, %d)", ErrProtectedArea, off, n, z[0], z[1])
		}
	}
	return nil
}

// Metadata returns the volume's metadata.
func (v *Volume) Metadata() *Metadata { return v.meta }

// Protector returns the protector that unlocked the volume (nil when it
// was opened with VolumeKey).
func (v *Volume) Protector() *Protector { return v.protector }

// Size is the volume's size in bytes.
func (v *Volume) Size() int64 { return v.main.Size() }

// SectorSize is the encryption sector size in bytes.
func (v *Volume) SectorSize() int { return v.main.SectorSize() }

// ReadOnly reports whether WriteAt is refused.
func (v *Volume) ReadOnly() bool { return v.main.ReadOnly() }

// FVEK returns a copy of the volume key (Method.KeySize bytes: for
// Elephant the AES key then the sector key), as `cryptsetup bitlkDump
// --dump-volume-key` shows it; VolumeKey(FVEK()) opens the volume again.
func (v *Volume) FVEK() []byte { return bytes.Clone(v.fvek) }

// ReadAt reads decrypted bytes at off; io.EOF at the end, as os.File.
func (v *Volume) ReadAt(p []byte, off int64) (int, error) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if v.closed {
		return 0, volume.ErrClosed
	}
	n, err := v.main.ReadAt(p, off)
	if n == 0 {
		return n, err
	}
	end := off + int64(n)
	if hs := v.meta.HeaderSize; off < hs {
		e := min(end, hs)
		if _, herr := v.hdr.ReadAt(p[:e-off], off); herr != nil && herr != io.EOF {
			return 0, herr
		}
	}
	for _, z := range v.zeros {
		if z[0] < end && off < z[1] {
			clear(p[max(z[0], off)-off : min(z[1], end)-off])
		}
	}
	return n, err
}

// WriteAt encrypts p and writes it at off. The boot sectors go to their
// relocated copy; a write touching a metadata area (or the relocated copy
// itself) is refused with ErrProtectedArea before anything is written.
func (v *Volume) WriteAt(p []byte, off int64) (int, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return 0, volume.ErrClosed
	}
	if v.main.ReadOnly() {
		return 0, errors.New("bitlocker: volume is read-only")
	}
	if off < 0 || off > v.Size() || int64(len(p)) > v.Size()-off {
		return 0, fmt.Errorf("bitlocker: write of %d bytes at %d runs past the end of the %d-byte volume", len(p), off, v.Size())
	}
	if len(p) == 0 {
		return 0, nil
	}
	ss := int64(v.meta.SectorSize)
	lo, hi := off/ss*ss, (off+int64(len(p))+ss-1)/ss*ss
	for _, z := range v.zeros {
		if lo < z[1] && z[0] < hi {
			return 0, fmt.Errorf("%w: [%d, +%d) overlaps the metadata area [%d, %d)", ErrProtectedArea, off, len(p), z[0], z[1])
		}
	}
	done := 0
	if hs := v.meta.HeaderSize; off < hs {
		k := int(min(int64(len(p)), hs-off))
		n, err := v.hdr.WriteAt(p[:k], off)
		done += n
		if err != nil {
			return done, err
		}
	}
	if done < len(p) {
		n, err := v.main.WriteAt(p[done:], off+int64(done))
		done += n
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

// Flush syncs the device when it has a Sync method.
func (v *Volume) Flush() error {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if v.closed {
		return volume.ErrClosed
	}
	return v.main.Flush()
}

// Close wipes the keys; later I/O returns an error. The device is not
// closed.
func (v *Volume) Close() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return nil
	}
	v.closed = true
	clear(v.fvek)
	if v.hdr != nil {
		v.hdr.Close()
	}
	return v.main.Close()
}
