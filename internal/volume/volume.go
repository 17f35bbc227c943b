package volume

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"

	"github.com/fastxts/xts/internal/parallel"
)

// ErrClosed is returned by the I/O methods of a closed Volume.
var ErrClosed = errors.New("volume closed")

// Sectors is a data area's cipher. Sector k covers bytes [k*SectorSize,
// (k+1)*SectorSize) of the decrypted area; the implementation maps k to
// the format's IV or tweak. dst is src or does not overlap it, and
// len(src) is a multiple of the sector size. It must be safe for
// concurrent use.
type Sectors interface {
	Encrypt(dst, src []byte, k uint64)
	Decrypt(dst, src []byte, k uint64)
	// Wipe clears the key material; the cipher is not used after.
	Wipe()
}

// Config describes a data area for New.
type Config struct {
	// Data is the device or image. Writes go to it when it is an
	// io.WriterAt and ReadOnly is false.
	Data io.ReaderAt
	// Offset is where the data area starts on Data; Size its length in
	// bytes, a multiple of SectorSize.
	Offset, Size int64
	// SectorSize is the encryption sector size: a power of two from 512
	// to 4096.
	SectorSize int
	// Cipher encrypts the area's sectors. The Volume owns it from New on:
	// Close wipes it.
	Cipher Sectors
	// ReadOnly refuses WriteAt even when Data is writable.
	ReadOnly bool
	// Name starts the Volume's error messages ("luks", "veracrypt").
	Name string
	// Map reads bulk data through a read-only shared mapping of Data when
	// it is a file of 1 MiB or more (Linux): decryption straight from the
	// page cache, one copy fewer. It pays only when one Volume reads the
	// same data several times: each page faults once per Volume, and on a
	// Zen 5 VM a single pass over a 256 MiB LUKS image read 5 times slower
	// mapped than through ReadAt (247 vs 47 ms) while a second pass read 2
	// times faster (24 vs 51 ms). Off by default.
	Map bool
	// Guard, when set, is called before each write with the range [off,
	// off+n) of the area, in whole sectors, that the write replaces; an
	// error refuses the whole write before anything is written.
	Guard func(off, n int64) error
}

// Volume is a decrypted data area. ReadAt may be called from several
// goroutines at once; WriteAt calls are serialised among themselves and
// against ReadAt (a partial sector is read, modified and written back
// under the lock).
type Volume struct {
	mu         sync.RWMutex
	name       string
	data       io.ReaderAt
	w          io.WriterAt // nil: read-only
	off, size  int64
	sectorSize int
	c          Sectors // nil once closed
	guard      func(off, n int64) error
	mapping    []byte // the area mapped read-only (mapped.go), or nil
	seg        []byte // the area within mapping
}

// New returns the Volume of c. It checks the geometry, not the key.
func New(c Config) (*Volume, error) {
	name := c.Name
	if name == "" {
		name = "volume"
	}
	ss := c.SectorSize
	if ss < 512 || ss > 4096 || ss&(ss-1) != 0 {
		return nil, fmt.Errorf("%s: %d-byte sectors: must be a power of two from 512 to 4096", name, ss)
	}
	if c.Offset < 0 || c.Size < 0 || c.Size%int64(ss) != 0 {
		return nil, fmt.Errorf("%s: data area [%d, +%d) is not whole %d-byte sectors", name, c.Offset, c.Size, ss)
	}
	if c.Data == nil || c.Cipher == nil {
		panic("volume: New without Data or Cipher")
	}
	v := &Volume{name: name, data: c.Data, off: c.Offset, size: c.Size, sectorSize: ss, c: c.Cipher, guard: c.Guard}
	if !c.ReadOnly {
		v.w, _ = c.Data.(io.WriterAt)
	}
	if c.Map {
		v.mapping, v.seg = mapArea(c.Data, v.off, v.size)
	}
	return v, nil
}

// DeviceSize returns the size of r: Size() if it has one (bytes.Reader,
// io.SectionReader), else its end found by Seek (files and block devices),
// else Stat's size.
func DeviceSize(r io.ReaderAt) (int64, error) {
	switch d := r.(type) {
	case interface{ Size() int64 }:
		return d.Size(), nil
	case io.Seeker:
		n, err := d.Seek(0, io.SeekEnd)
		if err != nil {
			return 0, fmt.Errorf("device size: %w", err)
		}
		return n, nil
	case interface{ Stat() (os.FileInfo, error) }:
		fi, err := d.Stat()
		if err != nil {
			return 0, fmt.Errorf("device size: %w", err)
		}
		return fi.Size(), nil
	}
	return 0, errors.New("cannot tell the device's size")
}

// Size returns the size of the decrypted area in bytes.
func (v *Volume) Size() int64 { return v.size }

// SectorSize returns the encryption sector size in bytes.
func (v *Volume) SectorSize() int { return v.sectorSize }

// Offset returns where the data area starts on the device.
func (v *Volume) Offset() int64 { return v.off }

// ReadOnly reports whether WriteAt is refused.
func (v *Volume) ReadOnly() bool { return v.w == nil }

// Mapped reports whether bulk reads come from a mapping of the image.
func (v *Volume) Mapped() bool { return v.seg != nil }

// Flush makes the writes so far durable: it calls the device's Sync when
// it has one.
func (v *Volume) Flush() error {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if v.c == nil {
		return ErrClosed
	}
	if s, ok := v.data.(interface{ Sync() error }); ok && v.w != nil {
		if err := s.Sync(); err != nil {
			return fmt.Errorf("%s: flush: %w", v.name, err)
		}
	}
	return nil
}

// Close wipes the cipher and makes further I/O fail with ErrClosed. It
// does not close the device. Close may be repeated.
func (v *Volume) Close() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.c != nil {
		v.c.Wipe()
		v.c = nil
	}
	if v.mapping != nil {
		unmapArea(v.mapping)
		v.mapping, v.seg = nil, nil
	}
	return nil
}

// ChunkSize is the unit of bulk work: whole sectors read and decrypted (or
// encrypted and written) by one goroutine while they are in its cache. A
// multiple of every sector size; tests raise it above the cipher's
// parallel threshold.
var ChunkSize = 512 << 10

// bulk runs fn over [off, off+n) of the area (whole sectors) in chunks
// that the calling goroutine and up to GOMAXPROCS-1 others take in turn
// (internal/parallel.Run); fn gets the chunk's offset and length. It
// returns the first error; a panic in fn comes back to the caller.
func (v *Volume) bulk(off, n int64, fn func(off, n int64) error) error {
	ss := int64(v.sectorSize)
	return parallel.Run(int(n/ss), ChunkSize/v.sectorSize, runtime.GOMAXPROCS(0), func(lo, hi int) error {
		return fn(off+int64(lo)*ss, int64(hi-lo)*ss)
	})
}

// readSectors reads and decrypts whole sectors at area offset off into p.
//
// The ciphertext is read into p a chunk at a time and decrypted there, in
// place, while the chunk is still in the core's cache: one pass over p
// after the read, as DecryptSectors from memory makes, and no scratch
// buffer (whose first use costs page faults, which are dear in some VMs)
// taking half the cache.
func (v *Volume) readSectors(p []byte, off int64) error {
	if v.seg != nil {
		return v.readMapped(p, off)
	}
	for len(p) > 0 {
		n := min(len(p), ChunkSize)
		buf := p[:n]
		if _, err := v.data.ReadAt(buf, v.off+off); err != nil {
			clear(buf)
			return fmt.Errorf("%s: reading %d bytes at %d: %w", v.name, n, v.off+off, err)
		}
		v.c.Decrypt(buf, buf, uint64(off)/uint64(v.sectorSize))
		p, off = p[n:], off+int64(n)
	}
	return nil
}

// ReadAt reads len(p) bytes of decrypted data from offset off of the
// area. At the end of the area it returns fewer bytes and io.EOF.
func (v *Volume) ReadAt(p []byte, off int64) (int, error) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if v.c == nil {
		return 0, ErrClosed
	}
	if off < 0 {
		return 0, fmt.Errorf("%s: negative offset %d", v.name, off)
	}
	if off >= v.size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	want := len(p)
	n := int(min(int64(len(p)), v.size-off))
	if n == 0 {
		return 0, nil
	}
	p = p[:n]
	ss := int64(v.sectorSize)
	done := 0
	// Head: a partial first sector.
	if r := off % ss; r != 0 || int64(n) < ss {
		sec := make([]byte, ss)
		if err := v.readSectors(sec, off-r); err != nil {
			return 0, err
		}
		done = copy(p, sec[r:])
		clear(sec)
	}
	whole := int64(n-done) / ss * ss
	if whole > 0 {
		pos := off + int64(done)
		base := p[done:]
		err := v.bulk(pos, whole, func(o, l int64) error {
			return v.readSectors(base[o-pos:o-pos+l], o)
		})
		if err != nil {
			return 0, err
		}
		done += int(whole)
	}
	// Tail: a partial last sector.
	if done < n {
		sec := make([]byte, ss)
		if err := v.readSectors(sec, off+int64(done)); err != nil {
			return 0, err
		}
		done += copy(p[done:], sec)
		clear(sec)
	}
	if done < want {
		return done, io.EOF
	}
	return done, nil
}

// writeSectors encrypts whole sectors of p (into buf) and writes them at
// area offset off.
func (v *Volume) writeSectors(p []byte, off int64, buf []byte) error {
	buf = buf[:len(p)]
	v.c.Encrypt(buf, p, uint64(off)/uint64(v.sectorSize))
	if _, err := v.w.WriteAt(buf, v.off+off); err != nil {
		return fmt.Errorf("%s: writing %d bytes at %d: %w", v.name, len(buf), v.off+off, err)
	}
	return nil
}

var chunkPool = sync.Pool{New: func() any { b := make([]byte, ChunkSize); return &b }}

// WriteAt encrypts p and writes it at offset off of the area. Writing past
// the end of the area is an error (the area has a fixed size), and so is a
// write the Config's Guard refuses; neither writes anything.
func (v *Volume) WriteAt(p []byte, off int64) (int, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.c == nil {
		return 0, ErrClosed
	}
	if v.w == nil {
		return 0, fmt.Errorf("%s: volume is read-only", v.name)
	}
	if off < 0 {
		return 0, fmt.Errorf("%s: negative offset %d", v.name, off)
	}
	if off > v.size || int64(len(p)) > v.size-off {
		return 0, fmt.Errorf("%s: write of %d bytes at %d runs past the end of the %d-byte volume", v.name, len(p), off, v.size)
	}
	ss := int64(v.sectorSize)
	n := len(p)
	if n == 0 {
		return 0, nil // nothing to read, modify or write back
	}
	if v.guard != nil {
		lo := off / ss * ss
		hi := (off + int64(n) + ss - 1) / ss * ss
		if err := v.guard(lo, hi-lo); err != nil {
			return 0, err
		}
	}
	done := 0
	partial := func(at int64, data []byte) (int, error) {
		r := at % ss
		sec := make([]byte, ss)
		defer clear(sec)
		if err := v.readSectors(sec, at-r); err != nil {
			return 0, err
		}
		c := copy(sec[r:], data)
		return c, v.writeSectors(sec, at-r, make([]byte, ss))
	}
	if r := off % ss; r != 0 || int64(n) < ss {
		c, err := partial(off, p)
		if err != nil {
			return 0, err
		}
		done = c
	}
	whole := int64(n-done) / ss * ss
	if whole > 0 {
		pos := off + int64(done)
		base := p[done:]
		err := v.bulk(pos, whole, func(o, l int64) error {
			bp := chunkPool.Get().(*[]byte)
			defer chunkPool.Put(bp)
			if int64(cap(*bp)) < l {
				*bp = make([]byte, l) // made before a test raised ChunkSize
			}
			return v.writeSectors(base[o-pos:o-pos+l], o, *bp)
		})
		if err != nil {
			return done, err
		}
		done += int(whole)
	}
	if done < n {
		c, err := partial(off+int64(done), p[done:])
		if err != nil {
			return done, err
		}
		done += c
	}
	return done, nil
}
