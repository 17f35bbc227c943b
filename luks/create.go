package luks

import (
	"crypto/rand"
	"fmt"
	"io"
)

// CreateOptions describe a new image; the zero value is what cryptsetup
// 2.6 makes of an image file with `luksFormat`: LUKS2, aes-xts-plain64,
// a 512-bit key, 4096-byte sectors, a 16 MiB header, argon2id.
type CreateOptions struct {
	Version    int    // 2 (default) or 1
	Cipher     string // "" for aes-xts-plain64; also serpent-xts-plain64, twofish-cbc-essiv:sha256, ... (see the package doc)
	KeyBits    int    // 0 for 512 (XTS) or 256 (CBC)
	SectorSize int    // LUKS2 only; 0 for 4096
	KDF        KDFOptions
	Label      string // LUKS2 only, at most 47 bytes
	Subsystem  string // LUKS2 only, at most 47 bytes
	UUID       string // "" for a random one
	// VolumeKey is the key to use; nil for a fresh random one.
	VolumeKey []byte
	// Detached puts the data at offset 0 of its own device: the header
	// is written alone (cryptsetup --header).
	Detached bool
}

// Header layout defaults of cryptsetup 2.6.
const (
	luks2MetadataSize = 16 << 10 // one copy: binary header and JSON area
	luks2HeaderArea   = 16 << 20 // both copies and the keyslots area
	luks1PayloadAlign = 2048     // sectors (1 MiB)
	afStripes         = 4000
	keyslotAlign      = 4096
)

func randomBytes(n int) ([]byte, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("luks: random bytes: %w", err)
	}
	return b, nil
}

// newUUID returns a random version 4 UUID.
func newUUID() (string, error) {
	b, err := randomBytes(16)
	if err != nil {
		return "", err
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}

func checkUUID(u string) error {
	if len(u) != 36 {
		return fmt.Errorf("luks: UUID %q is not 36 characters (8-4-4-4-12 hex digits)", u)
	}
	for i, c := range u {
		dash := i == 8 || i == 13 || i == 18 || i == 23
		hex := c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
		if dash != (c == '-') || !dash && !hex {
			return fmt.Errorf("luks: UUID %q is not 8-4-4-4-12 hex digits", u)
		}
	}
	return nil
}

// DataSectorSize is the encryption sector size Create uses with o:
// SectorSize, or when it is 0 the default, 512 bytes for LUKS1 and 4096
// for LUKS2. The plaintext's length must be a multiple of it.
func (o *CreateOptions) DataSectorSize() int {
	switch {
	case o.SectorSize != 0:
		return o.SectorSize
	case o.Version == 1:
		return 512
	}
	return 4096
}

// Create writes a new LUKS header with one keyslot (slot 0) for
// passphrase to w and returns the header and the volume key. With an
// embedded header the data segment begins at Header.Segments[0].Offset of
// the same device (16 MiB for LUKS2, 2 MiB for LUKS1); write it with
// NewVolume. The whole header area is written (zeros where unused).
func Create(w io.WriterAt, passphrase []byte, o *CreateOptions) (*Header, []byte, error) {
	if o == nil {
		o = &CreateOptions{}
	}
	c := *o
	if c.Version == 0 {
		c.Version = 2
	}
	if c.Version != 1 && c.Version != 2 {
		return nil, nil, fmt.Errorf("luks: LUKS version %d (1 or 2)", c.Version)
	}
	if c.Cipher == "" {
		c.Cipher = "aes-xts-plain64"
	}
	spec, err := parseCipherSpec(c.Cipher)
	if err != nil {
		return nil, nil, err
	}
	if c.KeyBits == 0 {
		c.KeyBits = 512
		if spec.mode != "xts" {
			c.KeyBits = 256
		}
	}
	if c.KeyBits%8 != 0 || !spec.keySizeOK(c.KeyBits/8) {
		return nil, nil, fmt.Errorf("luks: %d-bit key for %s", c.KeyBits, c.Cipher)
	}
	c.SectorSize = c.DataSectorSize()
	if ss := c.SectorSize; ss < 512 || ss > 4096 || ss&(ss-1) != 0 || (c.Version == 1 && ss != 512) {
		return nil, nil, fmt.Errorf("luks: sector size %d (LUKS2: 512 to 4096, a power of two; LUKS1: 512)", ss)
	}
	if len(c.Label) > 47 || len(c.Subsystem) > 47 {
		return nil, nil, fmt.Errorf("luks: label or subsystem longer than 47 bytes")
	}
	if c.UUID == "" {
		if c.UUID, err = newUUID(); err != nil {
			return nil, nil, err
		}
	} else if err := checkUUID(c.UUID); err != nil {
		return nil, nil, err
	}
	kdfo, err := c.KDF.withDefaults(c.Version)
	if err != nil {
		return nil, nil, err
	}
	keyLen := c.KeyBits / 8
	key := c.VolumeKey
	if key == nil {
		if key, err = randomBytes(keyLen); err != nil {
			return nil, nil, err
		}
	} else if len(key) != keyLen {
		return nil, nil, fmt.Errorf("luks: volume key of %d bytes for a %d-bit key", len(key), c.KeyBits)
	} else {
		key = append([]byte(nil), key...)
	}
	dit, err := digestIterations(kdfo.Hash, keyLen, kdfo.Iterations > 0)
	if err != nil {
		return nil, nil, err
	}
	dsalt, err := randomBytes(32)
	if err != nil {
		return nil, nil, err
	}
	var h *Header
	if c.Version == 2 {
		h, err = createLUKS2(w, &c, kdfo, key, passphrase, dit, dsalt)
	} else {
		h, err = createLUKS1(w, &c, kdfo, key, passphrase, dit, dsalt)
	}
	if err != nil {
		clear(key)
		return nil, nil, err
	}
	return h, key, nil
}

func newDigest(key []byte, hashName string, iter int, salt []byte) (Digest, error) {
	h, err := hashFunc(hashName)
	if err != nil {
		return Digest{}, err
	}
	v, err := pbkdf2Key(hashName, key, salt, iter, h().Size())
	if err != nil {
		return Digest{}, err
	}
	return Digest{Type: "pbkdf2", Hash: hashName, Iterations: iter, Salt: salt, Value: v}, nil
}

// createLUKS2 builds the new LUKS2 header with keyslot 0 and commits it
// after zeroing the header area.
func createLUKS2(w io.WriterAt, c *CreateOptions, kdfo KDFOptions, key, passphrase []byte, dit int, dsalt []byte) (*Header, error) {
	keyLen := len(key)
	kdf, err := newKDF(kdfo, keyLen)
	if err != nil {
		return nil, err
	}
	ks := Keyslot{ID: 0, Active: true, Type: "luks2", KeySize: keyLen, Priority: PriorityNormal,
		AF:   AF{Type: "luks1", Stripes: afStripes, Hash: kdfo.Hash},
		Area: Area{Type: "raw", Offset: 2 * luks2MetadataSize, Size: roundUp(uint64(keyLen)*afStripes, keyslotAlign), Encryption: c.Cipher, KeySize: keyLen},
		KDF:  kdf}
	d, err := newDigest(key, kdfo.Hash, dit, dsalt)
	if err != nil {
		return nil, err
	}
	d.Keyslots, d.Segments = []int{0}, []int{0}
	seg := Segment{ID: 0, Type: "crypt", Offset: luks2HeaderArea, Dynamic: true, Encryption: c.Cipher, SectorSize: c.SectorSize}
	if c.Detached {
		seg.Offset = 0
	}
	h := &Header{Version: 2, UUID: c.UUID, Label: c.Label, Subsystem: c.Subsystem, Seqid: 1,
		HeaderSize: luks2MetadataSize, Checksum: "sha256", Keyslots: []Keyslot{ks}, Segments: []Segment{seg},
		Digests: []Digest{d}, Config: Config{JSONSize: luks2MetadataSize - binHeaderSize, KeyslotsSize: luks2HeaderArea - 2*luks2MetadataSize}}
	area, err := sealKeyslot(key, passphrase, &ks)
	if err != nil {
		return nil, err
	}
	defer clear(area)
	if err := writeZeros(w, 0, luks2HeaderArea); err != nil {
		return nil, err
	}
	return commit(w, nil, h, []keyslotWrite{{ks.Area.Offset, area}})
}

func writeZeros(w io.WriterAt, off, n int64) error {
	z := make([]byte, min(n, 1<<20))
	for done := int64(0); done < n; {
		m := min(int64(len(z)), n-done)
		if _, err := w.WriteAt(z[:m], off+done); err != nil {
			return fmt.Errorf("luks: writing the header area: %w", err)
		}
		done += m
	}
	return nil
}

// luks1FirstSlot is the sector of LUKS1 keyslot 0's material.
const luks1FirstSlot = keyslotAlign / luks1SectorSize

// createLUKS1 builds the new LUKS1 header (eight keyslots laid out as
// cryptsetup lays them out, slot 0 enabled) and commits it after zeroing
// the header area.
func createLUKS1(w io.WriterAt, c *CreateOptions, kdfo KDFOptions, key, passphrase []byte, dit int, dsalt []byte) (*Header, error) {
	spec, _ := parseCipherSpec(c.Cipher)
	keyLen := len(key)
	per := roundUp(luks1Sectors(keyLen, afStripes), keyslotAlign/luks1SectorSize)
	payload := roundUp(luks1FirstSlot+l1NumKeyslots*per, luks1PayloadAlign)
	d, err := newDigest(key, kdfo.Hash, dit, dsalt)
	if err != nil {
		return nil, err
	}
	if d.Value, err = pbkdf2Key(kdfo.Hash, key, dsalt, dit, luks1DigestSize); err != nil {
		return nil, err
	}
	kdf, err := newKDF(kdfo, keyLen)
	if err != nil {
		return nil, err
	}
	p := &luks1Phdr{cipherName: spec.cipher, cipherMode: spec.mode + "-" + spec.iv, hashSpec: kdfo.Hash,
		keyBytes: uint32(keyLen), mkDigestIter: uint32(dit), uuid: c.UUID}
	if !c.Detached {
		// A detached LUKS1 header says 0: the data starts at offset 0 of
		// its own device.
		p.payloadOffset = uint32(payload)
	}
	copy(p.mkDigest[:], d.Value)
	copy(p.mkDigestSalt[:], dsalt)
	for i := range p.slots {
		p.slots[i] = luks1Slot{state: l1SlotInactive, material: uint32(luks1FirstSlot + uint64(i)*per), stripes: afStripes}
	}
	h, err := p.header()
	if err != nil {
		return nil, err
	}
	k := &h.Keyslots[0]
	k.Active, k.KDF = true, kdf
	h.Digests[0].Keyslots = []int{0}
	area, err := sealKeyslot(key, passphrase, k)
	if err != nil {
		return nil, err
	}
	defer clear(area)
	if err := writeZeros(w, 0, int64(payload*luks1SectorSize)); err != nil {
		return nil, err
	}
	return commit(w, nil, h, []keyslotWrite{{k.Area.Offset, area}})
}
