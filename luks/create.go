package luks

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// CreateOptions describe a new image; the zero value is what cryptsetup
// 2.6 makes of an image file with `luksFormat`: LUKS2, aes-xts-plain64,
// a 512-bit key, 4096-byte sectors, a 16 MiB header, argon2id.
type CreateOptions struct {
	Version    int    // 2 (default) or 1
	Cipher     string // "" for aes-xts-plain64
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

// sealKeyslot derives the area key for passphrase with kdf, splits the
// volume key and encrypts the result as a keyslot area of areaSize bytes.
func sealKeyslot(key, passphrase []byte, kdf *KDF, stripes int, afHash, areaCipher string, areaKeyLen int, areaSize uint64) ([]byte, error) {
	areaKey, err := deriveKey(kdf, passphrase, areaKeyLen)
	if err != nil {
		return nil, err
	}
	defer clear(areaKey)
	split, err := afSplit(key, stripes, afHash)
	if err != nil {
		return nil, err
	}
	area := make([]byte, areaSize)
	copy(area, split)
	clear(split)
	sc, err := newSectorCipher(areaCipher, areaKey)
	if err != nil {
		return nil, err
	}
	n := roundUp(uint64(len(key))*uint64(stripes), 512)
	sc.encrypt(area[:n], area[:n], 512, 0)
	sc.wipe()
	return area, nil
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

func createLUKS2(w io.WriterAt, c *CreateOptions, kdfo KDFOptions, key, passphrase []byte, dit int, dsalt []byte) (*Header, error) {
	keyLen := len(key)
	kdf, err := newKDF(kdfo, keyLen)
	if err != nil {
		return nil, err
	}
	areaSize := roundUp(uint64(keyLen)*afStripes, keyslotAlign)
	ks := Keyslot{ID: 0, Active: true, Type: "luks2", KeySize: keyLen, Priority: PriorityNormal,
		AF:   AF{Type: "luks1", Stripes: afStripes, Hash: kdfo.Hash},
		Area: Area{Type: "raw", Offset: 2 * luks2MetadataSize, Size: areaSize, Encryption: c.Cipher, KeySize: keyLen},
		KDF:  kdf}
	area, err := sealKeyslot(key, passphrase, &ks.KDF, afStripes, ks.AF.Hash, ks.Area.Encryption, keyLen, areaSize)
	if err != nil {
		return nil, err
	}
	defer clear(area)
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
	js, err := h.marshalJSON()
	if err != nil {
		return nil, err
	}
	// The whole header area, zeroed, then the keyslot and both copies.
	if err := writeZeros(w, 0, luks2HeaderArea); err != nil {
		return nil, err
	}
	if _, err := w.WriteAt(area, int64(ks.Area.Offset)); err != nil {
		return nil, fmt.Errorf("luks: writing keyslot 0: %w", err)
	}
	if err := writeLUKS2Copies(w, h, js); err != nil {
		return nil, err
	}
	h.JSON = js
	h.PrimaryValid, h.SecondaryValid, h.primaryOK = true, true, true
	return h, nil
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

// marshalJSON returns the LUKS2 JSON metadata of h.
func (h *Header) marshalJSON() ([]byte, error) {
	m := jsonMeta{Keyslots: map[string]json.RawMessage{}, Tokens: map[string]json.RawMessage{},
		Segments: map[string]json.RawMessage{}, Digests: map[string]json.RawMessage{},
		Config: &jsonConfig{JSONSize: u64(h.Config.JSONSize), KeyslotsSize: u64(h.Config.KeyslotsSize)}}
	for i := range h.Keyslots {
		raw, err := json.Marshal(h.Keyslots[i].toJSON())
		if err != nil {
			return nil, err
		}
		m.Keyslots[strconv.Itoa(h.Keyslots[i].ID)] = raw
	}
	for _, s := range h.Segments {
		j := jsonSegment{Type: s.Type, Offset: u64(s.Offset), Size: "dynamic", IVTweak: u64(s.IVTweak),
			Encryption: s.Encryption, SectorSize: s.SectorSize}
		if !s.Dynamic {
			j.Size = strconv.FormatUint(s.Size, 10)
		}
		raw, err := json.Marshal(j)
		if err != nil {
			return nil, err
		}
		m.Segments[strconv.Itoa(s.ID)] = raw
	}
	for _, d := range h.Digests {
		raw, err := json.Marshal(d.toJSON())
		if err != nil {
			return nil, err
		}
		m.Digests[strconv.Itoa(d.ID)] = raw
	}
	return json.Marshal(m)
}

func (k *Keyslot) toJSON() jsonKeyslot {
	var j jsonKeyslot
	j.Type, j.KeySize = k.Type, k.KeySize
	if k.Priority != PriorityNormal {
		p := k.Priority
		j.Priority = &p
	}
	j.AF.Type, j.AF.Stripes, j.AF.Hash = k.AF.Type, k.AF.Stripes, k.AF.Hash
	j.Area.Type, j.Area.Offset, j.Area.Size = k.Area.Type, u64(k.Area.Offset), u64(k.Area.Size)
	j.Area.Encryption, j.Area.KeySize = k.Area.Encryption, k.Area.KeySize
	j.KDF.Type, j.KDF.Hash, j.KDF.Iterations = k.KDF.Type, k.KDF.Hash, k.KDF.Iterations
	j.KDF.Time, j.KDF.Memory, j.KDF.CPUs, j.KDF.Salt = k.KDF.Time, k.KDF.Memory, k.KDF.CPUs, k.KDF.Salt
	return j
}

func (d *Digest) toJSON() jsonDigest {
	j := jsonDigest{Type: d.Type, Hash: d.Hash, Iterations: d.Iterations, Salt: d.Salt, Digest: d.Value,
		Keyslots: ids{}, Segments: ids{}}
	for _, k := range d.Keyslots {
		j.Keyslots = append(j.Keyslots, strconv.Itoa(k))
	}
	for _, s := range d.Segments {
		j.Segments = append(j.Segments, strconv.Itoa(s))
	}
	return j
}

// writeLUKS2Copies writes both binary header copies of h with the JSON
// metadata js, each with a fresh salt and its checksum: the secondary
// first, so that a crash leaves one valid copy.
func writeLUKS2Copies(w io.WriterAt, h *Header, js []byte) error {
	size := h.HeaderSize
	if uint64(len(js)) >= size-binHeaderSize {
		return fmt.Errorf("luks: JSON metadata of %d bytes does not fit the %d-byte JSON area", len(js), size-binHeaderSize)
	}
	for _, off := range []uint64{size, 0} {
		area := make([]byte, size)
		b := area[:binHeaderSize]
		if off == 0 {
			copy(b, magic1)
		} else {
			copy(b, magic2)
		}
		binary.BigEndian.PutUint16(b[offVersion:], 2)
		binary.BigEndian.PutUint64(b[offHdrSize:], size)
		binary.BigEndian.PutUint64(b[offSeqid:], h.Seqid)
		copy(b[offLabel:offLabel+47], h.Label)
		copy(b[offCsumAlg:offCsumAlg+31], "sha256")
		if _, err := rand.Read(b[offSalt : offSalt+64]); err != nil {
			return err
		}
		copy(b[offUUID:offUUID+39], h.UUID)
		copy(b[offSubsystem:offSubsystem+47], h.Subsystem)
		binary.BigEndian.PutUint64(b[offHdrOffset:], off)
		copy(area[binHeaderSize:], js)
		copy(b[offCsum:], checksumOf(checksumHash("sha256"), area))
		if _, err := w.WriteAt(area, int64(off)); err != nil {
			return fmt.Errorf("luks: writing the LUKS2 header at %d: %w", off, err)
		}
	}
	return nil
}

// luks1SlotSectors is the sectors one LUKS1 keyslot's material takes.
func luks1SlotSectors(keyLen int) uint64 {
	return roundUp(uint64(keyLen)*afStripes, keyslotAlign) / luks1SectorSize
}

const luks1FirstSlot = keyslotAlign / luks1SectorSize // sectors

func createLUKS1(w io.WriterAt, c *CreateOptions, kdfo KDFOptions, key, passphrase []byte, dit int, dsalt []byte) (*Header, error) {
	spec, _ := parseCipherSpec(c.Cipher)
	keyLen := len(key)
	per := luks1SlotSectors(keyLen)
	payload := roundUp(luks1FirstSlot+l1NumKeyslots*per, luks1PayloadAlign)
	d, err := newDigest(key, kdfo.Hash, dit, dsalt)
	if err != nil {
		return nil, err
	}
	d.Value = d.Value[:0]
	if d.Value, err = pbkdf2Key(kdfo.Hash, key, dsalt, dit, luks1DigestSize); err != nil {
		return nil, err
	}
	kdf, err := newKDF(kdfo, keyLen)
	if err != nil {
		return nil, err
	}
	b := make([]byte, luks1HeaderSize)
	be := binary.BigEndian
	copy(b, magic1)
	be.PutUint16(b[offVersion:], 1)
	copy(b[l1CipherName:l1CipherName+31], spec.cipher)
	copy(b[l1CipherMode:l1CipherMode+31], spec.mode+"-"+spec.iv)
	copy(b[l1HashSpec:l1HashSpec+31], kdfo.Hash)
	if !c.Detached {
		// A detached LUKS1 header says 0: the data starts at offset 0
		// of its own device.
		be.PutUint32(b[l1PayloadOffset:], uint32(payload))
	}
	be.PutUint32(b[l1KeyBytes:], uint32(keyLen))
	copy(b[l1MKDigest:], d.Value)
	copy(b[l1MKDigestSalt:], dsalt)
	be.PutUint32(b[l1MKDigestIter:], uint32(dit))
	copy(b[l1UUID:l1UUID+39], c.UUID)
	for i := 0; i < l1NumKeyslots; i++ {
		s := b[l1Keyslots+i*l1KeyslotSize:]
		be.PutUint32(s, l1SlotInactive)
		be.PutUint32(s[40:], uint32(luks1FirstSlot+uint64(i)*per))
		be.PutUint32(s[44:], afStripes)
	}
	area, err := sealKeyslot(key, passphrase, &kdf, afStripes, kdfo.Hash, c.Cipher, keyLen, roundUp(uint64(keyLen)*afStripes, 512))
	if err != nil {
		return nil, err
	}
	defer clear(area)
	s := b[l1Keyslots:]
	be.PutUint32(s, l1SlotActive)
	be.PutUint32(s[4:], uint32(kdf.Iterations))
	copy(s[8:8+luks1SaltSize], kdf.Salt)
	if err := writeZeros(w, 0, int64(payload*luks1SectorSize)); err != nil {
		return nil, err
	}
	if _, err := w.WriteAt(area, luks1FirstSlot*luks1SectorSize); err != nil {
		return nil, fmt.Errorf("luks: writing keyslot 0: %w", err)
	}
	if _, err := w.WriteAt(b, 0); err != nil {
		return nil, fmt.Errorf("luks: writing the LUKS1 header: %w", err)
	}
	return readLUKS1(bytes.NewReader(b))
}
