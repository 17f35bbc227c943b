package luks

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"

	"github.com/fastxts/xts/internal/parallel"
	"github.com/fastxts/xts/internal/sector"
)

// ErrClosed is returned by the I/O methods of a closed Volume.
var ErrClosed = errors.New("luks: volume closed")

// Volume is the decrypted data segment of an unlocked LUKS image. ReadAt
// and WriteAt take any offset and length: whole sectors are decrypted or
// encrypted in bulk on every core, partial sectors are read, modified and
// written back. ReadAt may be called from several goroutines at once;
// WriteAt calls are serialised among themselves and against ReadAt (a
// partial sector is read, modified and written back under the lock).
type Volume struct {
	mu         sync.RWMutex
	hdr        *Header
	keyslot    int
	data       io.ReaderAt
	w          io.WriterAt // nil: read-only
	off        int64       // segment start on the data device
	size       int64
	sectorSize int
	sc         *sector.Cipher // nil once closed
	key        []byte
	mapping    []byte // the data segment mapped read-only (mapped.go), or nil
	seg        []byte // the segment within mapping
}

// Options control Open and OpenWithKey. The zero value opens the image
// whose header is at its start, trying every keyslot.
type Options struct {
	// Header is a detached header (cryptsetup --header); nil when the
	// header is at the start of the data device.
	Header io.ReaderAt
	// UseKeyslot restricts Open to the keyslot Keyslot (cryptsetup
	// --key-slot); it also allows a slot of priority ignore.
	UseKeyslot bool
	Keyslot    int
	// ReadOnly refuses WriteAt even if the device implements io.WriterAt.
	ReadOnly bool
}

func (o *Options) headerDev(dev io.ReaderAt) io.ReaderAt {
	if o != nil && o.Header != nil {
		return o.Header
	}
	return dev
}

// Open reads the header, unlocks it with passphrase and returns the data
// segment of dev. Writes go to dev when it implements io.WriterAt.
func Open(dev io.ReaderAt, passphrase []byte, o *Options) (*Volume, error) {
	hdev := o.headerDev(dev)
	h, err := ReadHeader(hdev)
	if err != nil {
		return nil, err
	}
	slot := AnyKeyslot
	if o != nil && o.UseKeyslot {
		slot = o.Keyslot
	}
	key, ks, err := h.Unlock(hdev, passphrase, slot)
	if err != nil {
		return nil, err
	}
	defer clear(key)
	if h.Version == 2 && !h.Bound(ks) {
		return nil, fmt.Errorf("luks: keyslot %d is unbound: it holds the key of no segment in use, not the volume key", ks)
	}
	v, err := openVolume(h, key, dev, o)
	if err != nil {
		return nil, err
	}
	v.keyslot = ks
	return v, nil
}

// OpenWithKey opens dev with its volume key (cryptsetup
// --volume-key-file), checked against the header's digest.
func OpenWithKey(dev io.ReaderAt, volumeKey []byte, o *Options) (*Volume, error) {
	h, err := ReadHeader(o.headerDev(dev))
	if err != nil {
		return nil, err
	}
	if err := h.CheckVolumeKey(volumeKey); err != nil {
		return nil, err
	}
	return openVolume(h, volumeKey, dev, o)
}

func openVolume(h *Header, key []byte, dev io.ReaderAt, o *Options) (*Volume, error) {
	_, writable := dev.(io.WriterAt)
	writable = writable && (o == nil || !o.ReadOnly)
	if sameDevice := o == nil || o.Header == nil; sameDevice && writable {
		if err := h.checkDataApart(); err != nil {
			return nil, err
		}
	}
	size, err := DeviceSize(dev)
	if err != nil {
		return nil, err
	}
	v, err := NewVolume(h, key, dev, size)
	if err != nil {
		return nil, err
	}
	if o != nil && o.ReadOnly {
		v.w = nil
	}
	return v, nil
}

// NewVolume returns the data segment of h on data, a device of dataSize
// bytes, with the volume key key (which it copies; the caller may wipe
// its own). The key is not checked against the digest: see
// Header.CheckVolumeKey. NewVolume does not know whether data also holds
// the header: when it does, check that the data segment starts past the
// header (Open and OpenWithKey refuse to write otherwise).
func NewVolume(h *Header, key []byte, data io.ReaderAt, dataSize int64) (*Volume, error) {
	if err := h.CheckSupported(); err != nil {
		return nil, err
	}
	seg, _ := h.DataSegment()
	c, err := newSegmentCipher(seg.Encryption, key, seg.SectorSize, seg.IVTweak)
	if err != nil {
		return nil, err
	}
	if seg.Offset > uint64(dataSize) {
		return nil, fmt.Errorf("luks: data segment starts at %d, past the end of the %d-byte device", seg.Offset, dataSize)
	}
	size := seg.Size
	if seg.Dynamic {
		size = uint64(dataSize) - seg.Offset
		size -= size % uint64(seg.SectorSize)
	} else if size > uint64(dataSize)-seg.Offset {
		return nil, fmt.Errorf("luks: data segment [%d, +%d) runs past the end of the %d-byte device", seg.Offset, size, dataSize)
	}
	v := &Volume{hdr: h, keyslot: -1, data: data, off: int64(seg.Offset), size: int64(size),
		sectorSize: seg.SectorSize, sc: c, key: append([]byte(nil), key...)}
	v.w, _ = data.(io.WriterAt)
	v.mapping, v.seg = mapSegment(data, v.off, v.size)
	return v, nil
}

// DeviceSize returns the size of r: Size() if it has one (bytes.Reader,
// io.SectionReader), else its end found by Seek (files and block devices),
// else Stat's size. It gives NewVolume its dataSize, as Open does.
func DeviceSize(r io.ReaderAt) (int64, error) {
	switch d := r.(type) {
	case interface{ Size() int64 }:
		return d.Size(), nil
	case io.Seeker:
		n, err := d.Seek(0, io.SeekEnd)
		if err != nil {
			return 0, fmt.Errorf("luks: device size: %w", err)
		}
		return n, nil
	case interface{ Stat() (os.FileInfo, error) }:
		fi, err := d.Stat()
		if err != nil {
			return 0, fmt.Errorf("luks: device size: %w", err)
		}
		return fi.Size(), nil
	}
	return 0, errors.New("luks: cannot tell the device's size (give NewVolume the size)")
}

// Size returns the size of the decrypted data segment in bytes.
func (v *Volume) Size() int64 { return v.size }

// SectorSize returns the segment's encryption sector size in bytes.
func (v *Volume) SectorSize() int { return v.sectorSize }

// Header returns the header the volume was opened with.
func (v *Volume) Header() *Header { return v.hdr }

// Keyslot returns the keyslot the passphrase opened, or -1 when the
// volume was opened with its key.
func (v *Volume) Keyslot() int { return v.keyslot }

// Close wipes the Volume's copy of the volume key and the XTS round keys
// (xts.Cipher.Wipe), and makes further I/O fail. It does not close the
// device. CBC segments run on crypto/aes block ciphers, which Go gives no
// way to clear: Close drops them for the garbage collector.
func (v *Volume) Close() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.sc != nil {
		v.sc.Wipe()
		v.sc = nil
	}
	clear(v.key)
	v.key = nil
	if v.mapping != nil {
		unmapSegment(v.mapping)
		v.mapping, v.seg = nil, nil
	}
	return nil
}

// chunkSize is the unit of bulk work: whole sectors read and decrypted
// (or encrypted and written) by one goroutine while it is in its cache.
// A multiple of every sector size; tests raise it above the cipher's
// parallel threshold.
var chunkSize = 512 << 10

// bulk runs fn over [off, off+n) of the segment (whole sectors) in chunks
// that the calling goroutine and up to GOMAXPROCS-1 others take in turn
// (internal/parallel.Run); fn gets the chunk's offset and length. It
// returns the first error; a panic in fn comes back to the caller.
func (v *Volume) bulk(off, n int64, fn func(off, n int64) error) error {
	ss := int64(v.sectorSize)
	return parallel.Run(int(n/ss), chunkSize/v.sectorSize, runtime.GOMAXPROCS(0), func(lo, hi int) error {
		return fn(off+int64(lo)*ss, int64(hi-lo)*ss)
	})
}

// readSectors reads and decrypts whole sectors at segment offset off into p.
//
// The ciphertext goes to a scratch buffer of at most one chunk, which stays
// in the core's cache, and is decrypted from there straight into p: one
// pass over p, as DecryptSectors from memory makes, instead of a read into
// p and a second, in-place pass over it.
func (v *Volume) readSectors(p []byte, off int64) error {
	if v.seg != nil {
		return v.readMapped(p, off)
	}
	sp := scratchPool.Get().(*[]byte)
	defer scratchPool.Put(sp)
	for len(p) > 0 {
		n := min(len(p), len(*sp))
		buf := (*sp)[:n]
		if _, err := v.data.ReadAt(buf, v.off+off); err != nil {
			clear(buf)
			return fmt.Errorf("luks: reading %d bytes at %d: %w", n, v.off+off, err)
		}
		v.sc.Decrypt(p[:n], buf, uint64(off)/uint64(v.sectorSize))
		p, off = p[n:], off+int64(n)
	}
	return nil
}

// scratchPool holds chunk-sized buffers for readSectors (of the chunk
// size when they were made). They only ever hold ciphertext.
var scratchPool = sync.Pool{New: func() any {
	b := make([]byte, chunkSize)
	return &b
}}

// ReadAt reads len(p) bytes of decrypted data from offset off of the
// segment. At the end of the segment it returns fewer bytes and io.EOF.
func (v *Volume) ReadAt(p []byte, off int64) (int, error) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if v.sc == nil {
		return 0, ErrClosed
	}
	if off < 0 {
		return 0, fmt.Errorf("luks: negative offset %d", off)
	}
	if off >= v.size {
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

// writeSectors encrypts whole sectors of p (into a copy) and writes them
// at segment offset off.
func (v *Volume) writeSectors(p []byte, off int64, buf []byte) error {
	buf = buf[:len(p)]
	copy(buf, p)
	v.sc.Encrypt(buf, buf, uint64(off)/uint64(v.sectorSize))
	if _, err := v.w.WriteAt(buf, v.off+off); err != nil {
		return fmt.Errorf("luks: writing %d bytes at %d: %w", len(buf), v.off+off, err)
	}
	return nil
}

var chunkPool = sync.Pool{New: func() any { b := make([]byte, chunkSize); return &b }}

// WriteAt encrypts p and writes it at offset off of the segment. Writing
// past the end of the segment is an error (the segment has a fixed size).
func (v *Volume) WriteAt(p []byte, off int64) (int, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.sc == nil {
		return 0, ErrClosed
	}
	if v.w == nil {
		return 0, errors.New("luks: volume is read-only")
	}
	if off < 0 {
		return 0, fmt.Errorf("luks: negative offset %d", off)
	}
	if off > v.size || int64(len(p)) > v.size-off {
		return 0, fmt.Errorf("luks: write of %d bytes at %d runs past the end of the %d-byte volume", len(p), off, v.size)
	}
	ss := int64(v.sectorSize)
	n := len(p)
	if n == 0 {
		return 0, nil // nothing to read, modify or write back
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
				*bp = make([]byte, l) // made before a test raised chunkSize
			}
			defer clear(*bp)
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
