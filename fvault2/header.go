package fvault2

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
)

var (
	// ErrNotFVault2 means the data does not start with a Core Storage
	// physical volume header.
	ErrNotFVault2 = errors.New("fvault2: not a Core Storage physical volume (no \"CS\" header)")
	// ErrUnsupported is a Core Storage volume this package cannot open:
	// not encrypted, encrypted otherwise than with a passphrase-protected
	// encryption context, spread over several physical volumes or
	// extents, or still being converted.
	ErrUnsupported = errors.New("fvault2: unsupported volume")
	// ErrWrongPassword means no passphrase of the volume opens with the
	// password given.
	ErrWrongPassword = errors.New("fvault2: wrong password (no passphrase of the volume opens with it)")
)

// Header is what ReadHeader learns of a FileVault 2 volume without its
// password: the physical volume header, and the logical volume and
// encryption context from the encrypted metadata (which is encrypted
// under a key kept in the physical volume header). It is what
// `cryptsetup fvault2Dump` prints, and more.
type Header struct {
	PVUUID         UUID   // physical volume UUID
	GroupUUID      UUID   // logical volume group UUID
	FamilyUUID     UUID   // logical volume family UUID (it salts the tweak key)
	LVUUID         UUID   // logical volume UUID
	LVName         string // logical volume name (not unique)
	ContentHint    string // what the logical volume holds, e.g. "Apple_HFS"
	PVSize         int64  // bytes, from the physical volume header
	BlockSize      int    // Core Storage block size in bytes
	BytesPerSector int    // from the physical volume header

	// MetadataBlocks are the block numbers of the metadata copies
	// (physical volume header) and EncryptedMetadataBlock, ...Blocks
	// where the encrypted metadata lies and how many blocks it has.
	MetadataBlocks         []uint64
	EncryptedMetadataBlock uint64
	EncryptedMetadataSize  uint64

	// LVOffset and LVSize locate the encrypted logical volume on the
	// physical volume, in bytes.
	LVOffset int64
	LVSize   int64

	Cipher     string // "aes"
	CipherMode string // "xts-plain64": 512-byte sectors, tweak = sector number from the logical volume's start
	KeySize    int    // volume key bytes: 32 (AES-XTS-128's two keys)

	// Passphrases are the encryption context's crypto users that a
	// password opens (PassphraseWrappedKEKStruct); cryptsetup prints the
	// first one's salt and iterations.
	Passphrases []Passphrase

	// ConversionStatus is the context's ConversionInfo status, e.g.
	// "Complete"; Open refuses a volume still "Converting".
	ConversionStatus string

	volumeKeys []wrappedVolumeKey
}

// Passphrase is one password protector: PBKDF2-HMAC-SHA-256 of the
// password with Salt and Iterations gives the AES key that unwraps (RFC
// 3394) the key-encrypting key, which unwraps the volume key.
type Passphrase struct {
	UserIdent  string // the crypto user's UUID, as text
	KEKIdent   string // KeyEncryptingKeyIdent
	Salt       []byte // 16 bytes
	Iterations int
	wrappedKEK [24]byte
}

type wrappedVolumeKey struct {
	kekIdent string
	wrapped  [24]byte
}

// ReadHeader reads the physical volume header and the metadata of the
// Core Storage volume at the start of r. A device that does not start
// with one is ErrNotFVault2; one this package cannot open is
// ErrUnsupported.
func ReadHeader(r io.ReaderAt) (*Header, error) {
	b := make([]byte, pvHeaderSize)
	if _, err := r.ReadAt(b, 0); err != nil {
		return nil, fmt.Errorf("fvault2: reading the physical volume header: %w", err)
	}
	pv, err := parsePVHeader(b)
	if err != nil {
		return nil, err
	}
	// The latest of the metadata copies whose checksums are right.
	var dl *diskLabel
	var errs []string
	for _, bn := range pv.metadataBlocks {
		d, err := readDiskLabel(r, pv, bn)
		if err != nil {
			if errors.Is(err, ErrUnsupported) {
				return nil, err
			}
			errs = append(errs, fmt.Sprintf("block %d: %v", bn, err))
			continue
		}
		if dl == nil || d.tx > dl.tx {
			dl = d
		}
	}
	if dl == nil {
		return nil, fmt.Errorf("fvault2: no usable metadata (%s)", strings.Join(errs, "; "))
	}
	var h *Header
	for _, start := range []uint64{dl.encBlock, dl.encBlock2} {
		if start == 0 {
			continue
		}
		var blocks map[[2]uint64]*mdBlock
		blocks, err = readEncryptedMetadata(r, pv, start, dl.encBlocks)
		if err == nil {
			h, err = headerFromMetadata(pv, blocks)
		}
		if err == nil || errors.Is(err, ErrUnsupported) {
			break
		}
		err = fmt.Errorf("fvault2: encrypted metadata at block %d: %w", start, err)
		if start == dl.encBlock2 {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	h.MetadataBlocks = pv.metadataBlocks
	h.EncryptedMetadataBlock = dl.encBlock
	h.EncryptedMetadataSize = dl.encBlocks * uint64(pv.blockSize)
	return h, nil
}

// headerFromMetadata finds the logical volume, its extent and its
// encryption context in the decrypted metadata blocks.
func headerFromMetadata(pv *pvHeader, blocks map[[2]uint64]*mdBlock) (*Header, error) {
	h := &Header{
		PVUUID:         pv.pvUUID,
		GroupUUID:      pv.groupUUID,
		PVSize:         int64(min(pv.pvSize, 1<<63-1)),
		BlockSize:      int(pv.blockSize),
		BytesPerSector: int(pv.bytesPerSector),
		Cipher:         "aes",
		CipherMode:     "xts-plain64",
		KeySize:        32,
	}
	for k := range blocks {
		if k[0] == typeBaseExtent {
			return nil, fmt.Errorf("%w: a system volume's extent map (metadata block 0x0505)", ErrUnsupported)
		}
	}
	lv, lvx, err := latestLV(blocks)
	if err != nil {
		return nil, err
	}
	if h.LVUUID, err = uuidAt(lvx, "com.apple.corestorage.lv.uuid"); err != nil {
		return nil, err
	}
	if h.FamilyUUID, err = uuidAt(lvx, "com.apple.corestorage.lv.familyUUID"); err != nil {
		return nil, err
	}
	h.LVName, _ = lvx.get("com.apple.corestorage.lv.name").stringValue()
	h.ContentHint, _ = lvx.get("com.apple.corestorage.lv.contenthint").stringValue()
	size, ok := lvx.get("com.apple.corestorage.lv.size").intValue()
	if !ok || size <= 0 || size%512 != 0 {
		return nil, fmt.Errorf("logical volume size %d (want a positive multiple of 512)", size)
	}
	h.LVSize = size

	// 0x001a's data: 0 the family's (0x0019) object, 8 the extents'
	// (0x0305) object.
	famObj, _ := lv.u64(0)
	segObj, _ := lv.u64(8)
	seg := pick(blocks, typeSegments, segObj)
	if seg == nil {
		return nil, errors.New("no extent map (metadata block 0x0305) for the logical volume")
	}
	if h.LVOffset, err = extentOffset(seg, pv, uint64(size)); err != nil {
		return nil, err
	}
	fam := pick(blocks, typeLVFamily, famObj)
	if fam == nil {
		return nil, fmt.Errorf("%w: no logical volume family (metadata block 0x0019): not an encrypted volume", ErrUnsupported)
	}
	fx, err := xmlOf(fam, blocks)
	if err != nil {
		return nil, err
	}
	fv, err := parsePlist(fx)
	if err != nil {
		return nil, err
	}
	if u, err := uuidAt(fv, "com.apple.corestorage.lvf.uuid"); err == nil && u != h.FamilyUUID {
		return nil, fmt.Errorf("logical volume family %s, but the logical volume names %s", u, h.FamilyUUID)
	}
	ctx := fv.get("com.apple.corestorage.lvf.encryption.context")
	if ctx == nil {
		return nil, fmt.Errorf("%w: no encryption context (not encrypted, or a system volume keyed by EncryptedRoot.plist.wipekey)", ErrUnsupported)
	}
	if err := h.parseContext(ctx); err != nil {
		return nil, err
	}
	return h, nil
}

// latestLV returns the logical volume block (0x001a) and its XML with the
// largest sequence number; several logical volumes are ErrUnsupported.
func latestLV(blocks map[[2]uint64]*mdBlock) (*mdBlock, *plistValue, error) {
	var best *mdBlock
	var bestX *plistValue
	var bestSeq int64
	var bestUUID string
	for k, m := range blocks {
		if k[0] != typeLV {
			continue
		}
		x, err := xmlOf(m, blocks)
		if err != nil {
			return nil, nil, fmt.Errorf("logical volume (object %d): %w", m.object, err)
		}
		v, err := parsePlist(x)
		if err != nil {
			return nil, nil, fmt.Errorf("logical volume (object %d): %w", m.object, err)
		}
		u, _ := v.get("com.apple.corestorage.lv.uuid").stringValue()
		seq, _ := v.get("com.apple.corestorage.lv.sequence").intValue()
		if best != nil && !strings.EqualFold(u, bestUUID) {
			return nil, nil, fmt.Errorf("%w: several logical volumes (%s, %s)", ErrUnsupported, bestUUID, u)
		}
		if best == nil || seq > bestSeq || (seq == bestSeq && m.tx > best.tx) {
			best, bestX, bestSeq, bestUUID = m, v, seq, u
		}
	}
	if best == nil {
		return nil, nil, errors.New("no logical volume (metadata block 0x001a)")
	}
	return best, bestX, nil
}

// pick returns the block of type typ with object identifier obj or, when
// there is none, the only block of that type.
func pick(blocks map[[2]uint64]*mdBlock, typ uint16, obj uint64) *mdBlock {
	if m := blocks[[2]uint64{uint64(typ), obj}]; m != nil {
		return m
	}
	var only *mdBlock
	for k, m := range blocks {
		if k[0] == uint64(typ) {
			if only != nil {
				return nil
			}
			only = m
		}
	}
	return only
}

func uuidAt(v *plistValue, key string) (UUID, error) {
	s, ok := v.get(key).stringValue()
	if !ok {
		return UUID{}, fmt.Errorf("no %s", key)
	}
	u, err := ParseUUID(s)
	if err != nil {
		return UUID{}, fmt.Errorf("%s %q is not a UUID", key, s)
	}
	return u, nil
}

// extentOffset returns where on the physical volume the logical volume of
// size bytes starts, from its extent map (0x0305). Its data:
//
//	0 uint32 number of entries, then 40-byte entries:
//	8  uint64 logical volume block number
//	16 uint32 length in blocks
//	32 48-bit physical volume block number, 16-bit physical volume index
//
// Extents that continue each other on both volumes are one; any other
// layout is ErrUnsupported.
func extentOffset(seg *mdBlock, pv *pvHeader, size uint64) (int64, error) {
	n, _ := seg.u32(0)
	if n == 0 || uint64(n) > (metadataBlockSize-blockHeaderSize-8)/40 {
		return 0, fmt.Errorf("extent map with %d entries", n)
	}
	le := binary.LittleEndian
	bs := uint64(pv.blockSize)
	var pvStart, next, nextPV uint64
	for i := range int(n) {
		e := seg.dataAt(8+40*i, 40)
		lb, cnt := le.Uint64(e[8:]), uint64(le.Uint32(e[16:]))
		pb, pvIndex := le.Uint64(e[32:])&(1<<48-1), le.Uint16(e[38:])
		if pvIndex != 0 {
			return 0, fmt.Errorf("%w: logical volume extent on another physical volume", ErrUnsupported)
		}
		if i == 0 {
			if lb != 0 {
				return 0, fmt.Errorf("%w: logical volume's first extent starts at its block %d", ErrUnsupported, lb)
			}
			pvStart, next, nextPV = pb, 0, pb
		}
		if lb != next || pb != nextPV {
			return 0, fmt.Errorf("%w: logical volume in extents that are not contiguous", ErrUnsupported)
		}
		next, nextPV = lb+cnt, pb+cnt
	}
	if next > (1<<62)/bs || next*bs < size {
		return 0, fmt.Errorf("logical volume of %d bytes in extents of %d blocks of %d bytes", size, next, bs)
	}
	off := pvStart * bs
	if pvStart > (1<<62)/bs || (pv.pvSize != 0 && (off > pv.pvSize || size > pv.pvSize-off)) {
		return 0, fmt.Errorf("logical volume at block %d (%d bytes) outside the %d-byte physical volume", pvStart, size, pv.pvSize)
	}
	return int64(off), nil
}
