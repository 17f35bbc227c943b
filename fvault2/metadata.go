package fvault2

import (
	"bytes"
	"compress/zlib"
	"crypto/aes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/fastxts/xts"
)

// Metadata blocks (both the plain "disk label" and the encrypted
// metadata) start with a 64-byte header:
//
//	0  uint32 checksum of bytes 8.. of the block (weak CRC-32C)
//	4  uint32 its initial value
//	8  uint16 version (1)
//	10 uint16 block type
//	16 uint64 transaction identifier
//	24 uint64 object identifier
//	32 uint64 block number
//	48 uint32 block size
const (
	metadataBlockSize = 8192 // the unit of the encrypted metadata's XTS
	blockHeaderSize   = 64

	bhVersionOff = 8
	bhTypeOff    = 10
	bhTxOff      = 16
	bhObjectOff  = 24
	bhSizeOff    = 48

	typeDiskLabel  = 0x0011
	typeLVFamily   = 0x0019 // encryption context (XML)
	typeLV         = 0x001a // logical volume (XML)
	typeContinued  = 0x0024 // continuation of 0x0019's XML
	typeSegments   = 0x0305 // logical volume extents
	typeBaseExtent = 0x0505 // extents of system volumes (not supported)
)

// Limits against hostile metadata.
const (
	maxEncryptedMetadata = 1 << 30 // bytes of encrypted metadata scanned
	maxKeptBlocks        = 1 << 10 // distinct (type, object) blocks kept (8 KiB each)
	maxXMLSize           = 1 << 22 // bytes of one XML plist, uncompressed
)

// mdBlock is one checked metadata block of a type this package reads.
type mdBlock struct {
	typ    uint16
	tx     uint64
	object uint64
	b      []byte // the whole block, metadataBlockSize bytes
}

// dataAt returns n bytes at off of the block's data (which follows the
// 64-byte header), or nil when they do not lie within the block.
func (m *mdBlock) dataAt(off, n int) []byte {
	off += blockHeaderSize
	if off < 0 || n < 0 || off > len(m.b) || n > len(m.b)-off {
		return nil
	}
	return m.b[off : off+n]
}

func (m *mdBlock) u32(off int) (uint32, bool) {
	d := m.dataAt(off, 4)
	if d == nil {
		return 0, false
	}
	return binary.LittleEndian.Uint32(d), true
}

func (m *mdBlock) u64(off int) (uint64, bool) {
	d := m.dataAt(off, 8)
	if d == nil {
		return 0, false
	}
	return binary.LittleEndian.Uint64(d), true
}

// checkBlockHeader checks a metadata block's version, checksum and size.
func checkBlockHeader(b []byte) error {
	if len(b) < blockHeaderSize {
		return errors.New("short block")
	}
	le := binary.LittleEndian
	if v := le.Uint16(b[bhVersionOff:]); v != 1 {
		return fmt.Errorf("version %d", v)
	}
	if s := le.Uint32(b[bhSizeOff:]); s != uint32(len(b)) {
		return fmt.Errorf("block size %d, want %d", s, len(b))
	}
	if !checksumOK(b) {
		return errors.New("checksum mismatch")
	}
	return nil
}

// diskLabel is what the plain metadata says of the encrypted metadata:
// where it lies on the physical volume and how long it is.
type diskLabel struct {
	tx          uint64
	encBlock    uint64 // block number of the primary copy
	encBlock2   uint64 // of the secondary copy, 0 if none
	encBlocks   uint64 // length in blocks
	blockNumber uint64 // where this label was read (diagnostics)
}

// The disk label: a metadata block of type 0x0011 whose data holds, at
// offset 156, the offset (from the block's start) of the volume group
// descriptor:
//
//	8  uint64 encrypted metadata size in blocks
//	32 48-bit block number (+ 16-bit physical volume index) of its primary copy
//	40 the same for its secondary copy
const (
	dlVGDescOff     = 156
	vgdSize         = 48
	vgdEncBlocksOff = 8
	vgdPrimaryOff   = 32
	vgdSecondaryOff = 40
)

// readDiskLabel reads and checks the disk label at block number bn.
func readDiskLabel(r io.ReaderAt, pv *pvHeader, bn uint64) (*diskLabel, error) {
	off, ok := blockOffset(bn, pv.blockSize)
	if !ok {
		return nil, fmt.Errorf("block %d out of range", bn)
	}
	b := make([]byte, metadataBlockSize)
	if _, err := r.ReadAt(b, off); err != nil {
		return nil, err
	}
	if err := checkBlockHeader(b); err != nil {
		return nil, err
	}
	if t := binary.LittleEndian.Uint16(b[bhTypeOff:]); t != typeDiskLabel {
		return nil, fmt.Errorf("block type %#04x, want %#04x", t, typeDiskLabel)
	}
	m := &mdBlock{b: b}
	vo, _ := m.u32(dlVGDescOff)
	if vo < blockHeaderSize || uint64(vo)+vgdSize > uint64(pv.metadataSize) {
		return nil, fmt.Errorf("volume group descriptor offset %d outside the %d-byte metadata", vo, pv.metadataSize)
	}
	vgd := make([]byte, vgdSize)
	if _, err := r.ReadAt(vgd, off+int64(vo)); err != nil {
		return nil, fmt.Errorf("volume group descriptor: %w", err)
	}
	le := binary.LittleEndian
	dl := &diskLabel{
		tx:          le.Uint64(b[bhTxOff:]),
		encBlocks:   le.Uint64(vgd[vgdEncBlocksOff:]),
		encBlock:    le.Uint64(vgd[vgdPrimaryOff:]) & (1<<48 - 1),
		encBlock2:   le.Uint64(vgd[vgdSecondaryOff:]) & (1<<48 - 1),
		blockNumber: bn,
	}
	if le.Uint16(vgd[vgdPrimaryOff+6:]) != 0 {
		return nil, fmt.Errorf("%w: encrypted metadata on another physical volume", ErrUnsupported)
	}
	if dl.encBlock == 0 || dl.encBlocks == 0 {
		return nil, fmt.Errorf("%w: no encrypted metadata (a volume that is not encrypted?)", ErrUnsupported)
	}
	size := dl.encBlocks * uint64(pv.blockSize)
	if dl.encBlocks > maxEncryptedMetadata/uint64(pv.blockSize) || size%metadataBlockSize != 0 {
		return nil, fmt.Errorf("encrypted metadata of %d blocks of %d bytes (want a multiple of %d bytes, at most %d)",
			dl.encBlocks, pv.blockSize, metadataBlockSize, maxEncryptedMetadata)
	}
	return dl, nil
}

// blockOffset returns bn*blockSize as a file offset, if it fits.
func blockOffset(bn uint64, blockSize uint32) (int64, bool) {
	if bn > uint64(1<<63-1)/uint64(blockSize) {
		return 0, false
	}
	return int64(bn * uint64(blockSize)), true
}

// readEncryptedMetadata decrypts the encrypted metadata at block number
// start (n blocks) and keeps, of every block of a type this package reads
// and whose checksum is right, the latest transaction's copy of each
// object. The metadata is AES-XTS-128 in 8192-byte units under the
// physical volume header's key data and the physical volume UUID, unit i
// (counted from the start) with tweak i.
func readEncryptedMetadata(r io.ReaderAt, pv *pvHeader, start, n uint64) (map[[2]uint64]*mdBlock, error) {
	off, ok := blockOffset(start, pv.blockSize)
	size := n * uint64(pv.blockSize)
	if !ok || uint64(off) > uint64(1<<63-1)-size {
		return nil, fmt.Errorf("encrypted metadata at block %d out of range", start)
	}
	key := make([]byte, 32)
	copy(key, pv.keyData[:])
	copy(key[16:], pv.pvUUID[:])
	c, err := xts.NewCipher(aes.NewCipher, key, xts.AllowEqualKeyHalves())
	clear(key)
	if err != nil {
		return nil, err
	}
	defer c.Wipe()

	blocks := map[[2]uint64]*mdBlock{}
	const chunk = 64 * metadataBlockSize
	buf := make([]byte, chunk)
	plain := make([]byte, metadataBlockSize)
	for done := uint64(0); done < size; {
		want := min(uint64(chunk), size-done)
		p := buf[:want]
		if _, err := r.ReadAt(p, off+int64(done)); err != nil {
			return nil, fmt.Errorf("reading encrypted metadata at byte %d: %w", uint64(off)+done, err)
		}
		for i := 0; i < len(p); i += metadataBlockSize {
			unit := (done + uint64(i)) / metadataBlockSize
			src := p[i : i+metadataBlockSize]
			if allZero(src) {
				continue // never written: not encrypted
			}
			c.Decrypt(plain, src, unit)
			if err := keepBlock(blocks, plain); err != nil {
				return nil, err
			}
		}
		done += want
	}
	return blocks, nil
}

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// keepBlock checks plain and keeps a copy in blocks if it is of a type
// this package reads and of a later transaction than the copy held.
func keepBlock(blocks map[[2]uint64]*mdBlock, plain []byte) error {
	if checkBlockHeader(plain) != nil {
		return nil // free, wiped ("LVFwiped") or stale space
	}
	le := binary.LittleEndian
	typ := le.Uint16(plain[bhTypeOff:])
	switch typ {
	case typeLVFamily, typeLV, typeContinued, typeSegments, typeBaseExtent:
	default:
		return nil
	}
	m := &mdBlock{typ: typ, tx: le.Uint64(plain[bhTxOff:]), object: le.Uint64(plain[bhObjectOff:])}
	k := [2]uint64{uint64(typ), m.object}
	if old := blocks[k]; old != nil {
		if old.tx >= m.tx {
			return nil
		}
	} else if len(blocks) >= maxKeptBlocks {
		return fmt.Errorf("more than %d metadata objects", maxKeptBlocks)
	}
	m.b = bytes.Clone(plain)
	blocks[k] = m
	return nil
}

// xmlOf returns the XML plist of a 0x0019 block (following its 0x0024
// continuation blocks, inflating it when compressed) or of a 0x001a
// block.
func xmlOf(m *mdBlock, blocks map[[2]uint64]*mdBlock) ([]byte, error) {
	switch m.typ {
	case typeLV:
		// data: 64 uint32 XML offset (from the block header), 68 uint32 size
		return xmlSlice(m, 64, 68)
	case typeLVFamily:
	default:
		return nil, fmt.Errorf("block type %#04x has no XML", m.typ)
	}
	// 0x0019 data: 32 next object (0x0024 chain), 40 uint32 total stored
	// (compressed) size, 44 uint32 uncompressed size, 48 uint32 XML offset
	// (from the block header), 52 uint32 size stored in this block.
	total, _ := m.u32(40)
	full, _ := m.u32(44)
	next, _ := m.u64(32)
	if total > maxXMLSize || full > maxXMLSize {
		return nil, fmt.Errorf("XML plist of %d bytes (%d stored): more than %d", full, total, maxXMLSize)
	}
	first, err := xmlSlice(m, 48, 52)
	if err != nil {
		return nil, err
	}
	if uint32(len(first)) > total {
		return nil, fmt.Errorf("XML plist: %d bytes in the first block of %d stored", len(first), total)
	}
	data := make([]byte, 0, min(total, 64<<10)) // grows with what is there
	data = append(data, first...)
	for hops := 0; uint32(len(data)) < total; hops++ {
		c := blocks[[2]uint64{typeContinued, next}]
		if next == 0 || c == nil || hops > maxKeptBlocks {
			return nil, fmt.Errorf("XML plist: continuation block (object %d) missing after %d of %d bytes", next, len(data), total)
		}
		// 0x0024 data: 0 uint64 next object, 8 uint32 size, 16 the bytes
		n, _ := c.u32(8)
		d := c.dataAt(16, int(min(n, metadataBlockSize)))
		if d == nil || uint32(len(d)) > total-uint32(len(data)) {
			return nil, fmt.Errorf("XML plist: continuation block (object %d) holds %d bytes, %d wanted", next, n, total-uint32(len(data)))
		}
		data = append(data, d...)
		next, _ = c.u64(0)
	}
	if total == full {
		return data, nil
	}
	zr, err := zlib.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("compressed XML plist: %w", err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, int64(full)+1))
	if err == nil && uint32(len(out)) != full {
		err = fmt.Errorf("%d bytes, header says %d", len(out), full)
	}
	if err != nil {
		return nil, fmt.Errorf("compressed XML plist: %w", err)
	}
	return out, nil
}

// xmlSlice returns the bytes that the uint32 offset (from the block's
// start) and size at data offsets offAt and sizeAt describe.
func xmlSlice(m *mdBlock, offAt, sizeAt int) ([]byte, error) {
	o, _ := m.u32(offAt)
	n, _ := m.u32(sizeAt)
	if o < blockHeaderSize || uint64(o)+uint64(n) > uint64(len(m.b)) {
		return nil, fmt.Errorf("XML plist at %d (%d bytes) outside its %d-byte block", o, n, len(m.b))
	}
	return m.b[o : o+n], nil
}
