package luks

import (
	"encoding/binary"
	"fmt"
	"io"
)

// LUKS1 header layout: the 592-byte phdr, big-endian integers. Every
// offset into it is here; luks1Phdr decodes and encodes it.
const (
	luks1HeaderSize = 592
	l1CipherName    = 8  // 32 bytes
	l1CipherMode    = 40 // 32 bytes
	l1HashSpec      = 72 // 32 bytes
	l1PayloadOffset = 104
	l1KeyBytes      = 108
	l1MKDigest      = 112 // 20 bytes
	l1MKDigestSalt  = 132 // 32 bytes
	l1MKDigestIter  = 164
	l1UUID          = 168 // 40 bytes
	l1Keyslots      = 208 // 8 × 48 bytes
	l1KeyslotSize   = 48
	l1NumKeyslots   = 8
	// within a keyslot
	l1SlotState      = 0
	l1SlotIterations = 4
	l1SlotSalt       = 8 // 32 bytes
	l1SlotMaterial   = 40
	l1SlotStripes    = 44

	l1SlotActive    = 0x00AC71F3
	l1SlotInactive  = 0x0000DEAD
	luks1DigestSize = 20
	luks1SaltSize   = 32
	luks1SectorSize = 512
)

// luks1Phdr is a LUKS1 header as stored, field by field.
type luks1Phdr struct {
	cipherName, cipherMode, hashSpec string
	payloadOffset                    uint32 // sectors
	keyBytes                         uint32
	mkDigest                         [luks1DigestSize]byte
	mkDigestSalt                     [luks1SaltSize]byte
	mkDigestIter                     uint32
	uuid                             string
	slots                            [l1NumKeyslots]luks1Slot
}

// luks1Slot is one LUKS1 keyslot as stored.
type luks1Slot struct {
	state, iterations uint32
	salt              [luks1SaltSize]byte
	material          uint32 // sector of its key material
	stripes           uint32
}

// decodeLUKS1 reads the fields of a phdr from b (luks1HeaderSize bytes).
func decodeLUKS1(b []byte) *luks1Phdr {
	be := binary.BigEndian
	p := &luks1Phdr{
		cipherName:    cString(b[l1CipherName : l1CipherName+32]),
		cipherMode:    cString(b[l1CipherMode : l1CipherMode+32]),
		hashSpec:      cString(b[l1HashSpec : l1HashSpec+32]),
		payloadOffset: be.Uint32(b[l1PayloadOffset:]),
		keyBytes:      be.Uint32(b[l1KeyBytes:]),
		mkDigestIter:  be.Uint32(b[l1MKDigestIter:]),
		uuid:          cString(b[l1UUID : l1UUID+40]),
	}
	copy(p.mkDigest[:], b[l1MKDigest:])
	copy(p.mkDigestSalt[:], b[l1MKDigestSalt:])
	for i := range p.slots {
		s := b[l1Keyslots+i*l1KeyslotSize:]
		k := &p.slots[i]
		k.state, k.iterations = be.Uint32(s[l1SlotState:]), be.Uint32(s[l1SlotIterations:])
		copy(k.salt[:], s[l1SlotSalt:])
		k.material, k.stripes = be.Uint32(s[l1SlotMaterial:]), be.Uint32(s[l1SlotStripes:])
	}
	return p
}

// encode returns the phdr as stored: luks1HeaderSize bytes.
func (p *luks1Phdr) encode() []byte {
	b := make([]byte, luks1HeaderSize)
	be := binary.BigEndian
	copy(b, magic1)
	be.PutUint16(b[offVersion:], 1)
	copy(b[l1CipherName:l1CipherName+31], p.cipherName)
	copy(b[l1CipherMode:l1CipherMode+31], p.cipherMode)
	copy(b[l1HashSpec:l1HashSpec+31], p.hashSpec)
	be.PutUint32(b[l1PayloadOffset:], p.payloadOffset)
	be.PutUint32(b[l1KeyBytes:], p.keyBytes)
	copy(b[l1MKDigest:], p.mkDigest[:])
	copy(b[l1MKDigestSalt:], p.mkDigestSalt[:])
	be.PutUint32(b[l1MKDigestIter:], p.mkDigestIter)
	copy(b[l1UUID:l1UUID+39], p.uuid)
	for i, k := range p.slots {
		s := b[l1Keyslots+i*l1KeyslotSize:]
		be.PutUint32(s[l1SlotState:], k.state)
		be.PutUint32(s[l1SlotIterations:], k.iterations)
		copy(s[l1SlotSalt:], k.salt[:])
		be.PutUint32(s[l1SlotMaterial:], k.material)
		be.PutUint32(s[l1SlotStripes:], k.stripes)
	}
	return b
}

// header describes the phdr in the terms of a LUKS2 header (one segment,
// one digest, eight keyslots) and checks it.
func (p *luks1Phdr) header() (*Header, error) {
	keyBytes := int(p.keyBytes)
	if p.keyBytes < 1 || p.keyBytes > MaxKeySize {
		return nil, fmt.Errorf("%w: LUKS1 key size %d bytes (1 to %d)", ErrCorrupt, p.keyBytes, MaxKeySize)
	}
	if !luks1HashKnown(p.hashSpec) {
		return nil, fmt.Errorf("%w: LUKS1 hash %q (not a hash cryptsetup knows with a digest of 20 bytes or more)", ErrUnsupported, p.hashSpec)
	}
	h := &Header{Version: 1, CipherName: p.cipherName, CipherMode: p.cipherMode, HashSpec: p.hashSpec,
		PayloadOffset: uint64(p.payloadOffset), UUID: p.uuid}
	enc := h.CipherName + "-" + h.CipherMode
	h.Segments = []Segment{{ID: 0, Type: "crypt", Offset: h.PayloadOffset * luks1SectorSize, Dynamic: true,
		Encryption: enc, SectorSize: luks1SectorSize}}
	d := Digest{ID: 0, Type: "pbkdf2", Segments: []int{0}, Hash: h.HashSpec, Iterations: int(p.mkDigestIter),
		Salt: append([]byte(nil), p.mkDigestSalt[:]...), Value: append([]byte(nil), p.mkDigest[:]...)}
	for i, s := range p.slots {
		k := Keyslot{ID: i, Type: "luks1", KeySize: keyBytes, Priority: PriorityNormal,
			Active: s.state == l1SlotActive,
			AF:     AF{Type: "luks1", Stripes: int(s.stripes), Hash: h.HashSpec},
			KDF:    KDF{Type: "pbkdf2", Hash: h.HashSpec, Iterations: int(s.iterations), Salt: append([]byte(nil), s.salt[:]...)},
			Area: Area{Type: "raw", Offset: uint64(s.material) * luks1SectorSize, Encryption: enc, KeySize: keyBytes,
				Size: luks1Sectors(keyBytes, int(s.stripes)) * luks1SectorSize}}
		// A state neither enabled nor disabled reads as disabled, as
		// cryptsetup reads it; AddKey does not reuse such a slot.
		if s.state == l1SlotActive {
			d.Keyslots = append(d.Keyslots, i)
		}
		h.Keyslots = append(h.Keyslots, k)
	}
	h.Digests = []Digest{d}
	if err := h.validateLUKS1(); err != nil {
		return nil, err
	}
	return h, nil
}

// luks1Phdr returns the phdr that h (a LUKS1 header) describes.
func (h *Header) luks1Phdr() (*luks1Phdr, error) {
	if h.Version != 1 || len(h.Keyslots) != l1NumKeyslots || len(h.Digests) != 1 || len(h.Segments) != 1 {
		return nil, fmt.Errorf("luks: not a LUKS1 header (version %d, %d keyslots)", h.Version, len(h.Keyslots))
	}
	d := &h.Digests[0]
	p := &luks1Phdr{}
	if h.onDisk != nil {
		p = decodeLUKS1(h.onDisk) // keeps what the model does not: a slot's odd state
	}
	p.cipherName, p.cipherMode, p.hashSpec = h.CipherName, h.CipherMode, h.HashSpec
	p.payloadOffset, p.keyBytes, p.mkDigestIter, p.uuid = uint32(h.PayloadOffset), uint32(h.Keyslots[0].KeySize), uint32(d.Iterations), h.UUID
	if h.PayloadOffset > 1<<32-1 || len(d.Value) != luks1DigestSize || len(d.Salt) != luks1SaltSize {
		return nil, fmt.Errorf("luks: LUKS1 payload offset %d, digest of %d bytes, salt of %d", h.PayloadOffset, len(d.Value), len(d.Salt))
	}
	copy(p.mkDigest[:], d.Value)
	copy(p.mkDigestSalt[:], d.Salt)
	for i, k := range h.Keyslots {
		s := &p.slots[i]
		switch {
		case k.Active:
			s.state = l1SlotActive
		case s.state == l1SlotActive || h.onDisk == nil:
			s.state = l1SlotInactive
		}
		if k.ID != i || len(k.KDF.Salt) != luks1SaltSize || k.Area.Offset%luks1SectorSize != 0 || k.Area.Offset/luks1SectorSize > 1<<32-1 {
			return nil, fmt.Errorf("luks: LUKS1 keyslot %d cannot be stored (salt of %d bytes, material at %d)", k.ID, len(k.KDF.Salt), k.Area.Offset)
		}
		s.iterations = uint32(k.KDF.Iterations)
		copy(s.salt[:], k.KDF.Salt)
		s.material = uint32(k.Area.Offset / luks1SectorSize)
		s.stripes = uint32(k.AF.Stripes)
	}
	return p, nil
}

func readLUKS1(r io.ReaderAt) (*Header, error) {
	b := make([]byte, luks1HeaderSize)
	if _, err := r.ReadAt(b, 0); err != nil {
		return nil, fmt.Errorf("%w: reading the %d-byte LUKS1 header: %v", ErrCorrupt, luks1HeaderSize, err)
	}
	h, err := decodeLUKS1(b).header()
	if err != nil {
		return nil, err
	}
	h.onDisk = b
	return h, nil
}
