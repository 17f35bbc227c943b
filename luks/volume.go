package luks

import (
	"fmt"
	"io"

	"github.com/fastxts/xts/internal/sector"
	"github.com/fastxts/xts/internal/volume"
)

// ErrClosed is returned by the I/O methods of a closed Volume.
var ErrClosed = volume.ErrClosed

// Volume is the decrypted data segment of an unlocked LUKS image. ReadAt
// and WriteAt take any offset and length: whole sectors are decrypted or
// encrypted in bulk on every core, partial sectors are read, modified and
// written back. ReadAt may be called from several goroutines at once;
// WriteAt calls are serialised among themselves and against ReadAt (a
// partial sector is read, modified and written back under the lock). The
// I/O is the format-neutral volume layer's (internal/volume), shared with
// the other formats.
type Volume struct {
	*volume.Volume
	hdr     *Header
	keyslot int
	sc      *sector.Cipher
	key     []byte
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
	// Map reads the data segment of an image file through a read-only
	// mapping: faster when the same data is read many times through one
	// Volume, slower for a single pass (see internal/volume's Config.Map).
	Map bool
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
	return newVolume(h, key, dev, size, o != nil && o.ReadOnly, o != nil && o.Map)
}

// NewVolume returns the data segment of h on data, a device of dataSize
// bytes, with the volume key key (which it copies; the caller may wipe
// its own). The key is not checked against the digest: see
// Header.CheckVolumeKey. NewVolume does not know whether data also holds
// the header: when it does, check that the data segment starts past the
// header (Open and OpenWithKey refuse to write otherwise).
func NewVolume(h *Header, key []byte, data io.ReaderAt, dataSize int64) (*Volume, error) {
	return newVolume(h, key, data, dataSize, false, false)
}

func newVolume(h *Header, key []byte, data io.ReaderAt, dataSize int64, readOnly, mapped bool) (*Volume, error) {
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
	vv, err := volume.New(volume.Config{Data: data, Offset: int64(seg.Offset), Size: int64(size),
		SectorSize: seg.SectorSize, Cipher: c, ReadOnly: readOnly, Map: mapped, Name: "luks"})
	if err != nil {
		c.Wipe()
		return nil, err
	}
	v := &Volume{Volume: vv, hdr: h, keyslot: -1, sc: c, key: append([]byte(nil), key...)}
	return v, nil
}

// DeviceSize returns the size of r: Size() if it has one (bytes.Reader,
// io.SectionReader), else its end found by Seek (files and block devices),
// else Stat's size. It gives NewVolume its dataSize, as Open does.
func DeviceSize(r io.ReaderAt) (int64, error) {
	n, err := volume.DeviceSize(r)
	if err != nil {
		return 0, fmt.Errorf("luks: %w", err)
	}
	return n, nil
}

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
	err := v.Volume.Close()
	clear(v.key)
	v.key = nil
	return err
}
