package luks

import (
	"encoding/binary"
	"fmt"
	"io"
)

// LUKS1 header layout (592 bytes, big-endian integers).
const (
	luks1HeaderSize   = 592
	l1CipherName      = 8  // 32 bytes
	l1CipherMode      = 40 // 32 bytes
	l1HashSpec        = 72 // 32 bytes
	l1PayloadOffset   = 104
	l1KeyBytes        = 108
	l1MKDigest        = 112 // 20 bytes
	l1MKDigestSalt    = 132 // 32 bytes
	l1MKDigestIter    = 164
	l1UUID            = 168 // 40 bytes
	l1Keyslots        = 208 // 8 × 48 bytes
	l1KeyslotSize     = 48
	l1NumKeyslots     = 8
	l1SlotActive      = 0x00AC71F3
	l1SlotInactive    = 0x0000DEAD
	luks1DigestSize   = 20
	luks1SaltSize     = 32
	luks1SectorSize   = 512
	luks1StripesCount = 4000
)

func readLUKS1(r io.ReaderAt) (*Header, error) {
	b := make([]byte, luks1HeaderSize)
	if _, err := r.ReadAt(b, 0); err != nil {
		return nil, fmt.Errorf("%w: reading the %d-byte LUKS1 header: %v", ErrCorrupt, luks1HeaderSize, err)
	}
	be := binary.BigEndian
	h := &Header{
		Version:       1,
		CipherName:    cString(b[l1CipherName : l1CipherName+32]),
		CipherMode:    cString(b[l1CipherMode : l1CipherMode+32]),
		HashSpec:      cString(b[l1HashSpec : l1HashSpec+32]),
		PayloadOffset: uint64(be.Uint32(b[l1PayloadOffset:])),
		UUID:          cString(b[l1UUID : l1UUID+40]),
	}
	keyBytes := int(be.Uint32(b[l1KeyBytes:]))
	if keyBytes < 1 || keyBytes > MaxKeySize {
		return nil, fmt.Errorf("%w: LUKS1 key size %d bytes (1 to %d)", ErrCorrupt, keyBytes, MaxKeySize)
	}
	enc := h.CipherName + "-" + h.CipherMode
	h.Segments = []Segment{{ID: 0, Type: "crypt", Offset: h.PayloadOffset * luks1SectorSize, Dynamic: true,
		Encryption: enc, SectorSize: luks1SectorSize}}
	d := Digest{ID: 0, Type: "pbkdf2", Segments: []int{0}, Hash: h.HashSpec,
		Iterations: int(be.Uint32(b[l1MKDigestIter:])),
		Salt:       append([]byte(nil), b[l1MKDigestSalt:l1MKDigestSalt+luks1SaltSize]...),
		Value:      append([]byte(nil), b[l1MKDigest:l1MKDigest+luks1DigestSize]...)}
	for i := 0; i < l1NumKeyslots; i++ {
		s := b[l1Keyslots+i*l1KeyslotSize:]
		state := be.Uint32(s)
		k := Keyslot{ID: i, Type: "luks1", KeySize: keyBytes, Priority: PriorityNormal,
			Active: state == l1SlotActive,
			AF:     AF{Type: "luks1", Stripes: int(be.Uint32(s[44:])), Hash: h.HashSpec},
			KDF: KDF{Type: "pbkdf2", Hash: h.HashSpec, Iterations: int(be.Uint32(s[4:])),
				Salt: append([]byte(nil), s[8:8+luks1SaltSize]...)},
			Area: Area{Type: "raw", Offset: uint64(be.Uint32(s[40:])) * luks1SectorSize, Encryption: enc, KeySize: keyBytes}}
		switch state {
		case l1SlotActive:
			if k.AF.Stripes < 1 || k.AF.Stripes > MaxStripes {
				return nil, fmt.Errorf("%w: LUKS1 keyslot %d has %d anti-forensic stripes (1 to %d)", ErrCorrupt, i, k.AF.Stripes, MaxStripes)
			}
			k.Area.Size = roundUp(uint64(keyBytes)*uint64(k.AF.Stripes), luks1SectorSize)
			if k.Area.Offset < luks1HeaderSize {
				return nil, fmt.Errorf("%w: LUKS1 keyslot %d material at %d overlaps the header", ErrCorrupt, i, k.Area.Offset)
			}
			d.Keyslots = append(d.Keyslots, i)
		case l1SlotInactive:
		default:
			return nil, fmt.Errorf("%w: LUKS1 keyslot %d state %#x", ErrCorrupt, i, state)
		}
		h.Keyslots = append(h.Keyslots, k)
	}
	h.Digests = []Digest{d}
	return h, nil
}
