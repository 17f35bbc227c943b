package luks

import (
	"context"
	"errors"
	"fmt"
)

// ReencryptOptions says what InitReencrypt records; ResumeReencrypt reads
// everything it needs from the header and uses only Progress and
// HotzoneSize.
type ReencryptOptions struct {
	Mode       string // "reencrypt" (default: a new volume key), "encrypt", "decrypt"
	Resilience string // "checksum" (default), "journal", "none"; "datashift" for in-place encrypt
	Hash       string // checksum resilience hash; default "sha256"
	// HotzoneSize is the bytes of one hotzone; 0: the package default
	// (DefaultHotzoneSize).
	HotzoneSize uint64
	// The new data segment (reencrypt, encrypt); zero values: as the old
	// segment (reencrypt) or cryptsetup's LUKS2 defaults (encrypt:
	// aes-xts-plain64, 512-bit key, 4096-byte sectors when the data size
	// allows, else 512).
	Cipher     string
	KeySize    int // bytes
	SectorSize int
	VolumeKey  []byte     // the new volume key; nil: random
	KDF        KDFOptions // for the new keyslot(s)
	// Keyslot selects the keyslot whose passphrase is given; AnyKeyslot:
	// the one the passphrase opens, and (as cryptsetup with a key file)
	// refused unless exactly one keyslot is active.
	Keyslot int
	// ReduceDeviceSize: encrypt in place, the LUKS2 header in the first
	// ReduceDeviceSize bytes and the data shifted (cryptsetup
	// --reduce-device-size); 0 with a detached header.
	ReduceDeviceSize uint64
	// Create: for Mode "encrypt", the LUKS2 header parameters (UUID,
	// label, metadata and keyslots size) as CreateOptions has them.
	Create *CreateOptions
	// Progress is called after every hotzone; may be nil.
	Progress func(done, total uint64)
}

// DefaultHotzoneSize is the hotzone ResumeReencrypt uses when
// ReencryptOptions.HotzoneSize is 0 (for checksum and none resilience;
// journal resilience is bounded by its area).
const DefaultHotzoneSize = 32 << 20

// ErrReencryptMetadata (errors.Is) means the reencryption metadata is
// garbage, truncated, or fails its verification digest; nothing was
// written.
var ErrReencryptMetadata = errors.New("luks: reencryption metadata invalid")

// Reencryption describes a reencryption recorded in a header.
type Reencryption struct {
	Mode       string // "reencrypt", "encrypt", "decrypt"
	Direction  string // "forward", "backward"
	Resilience string // "checksum", "journal", "none", "datashift"
	Hash       string // checksum resilience
	Keyslot    int    // the reencrypt keyslot's id
	// Done and Total are the bytes of the data already processed and
	// to process in all.
	Done, Total uint64
}

// Reencryption reports whether a reencryption is in progress in h (the
// online-reencrypt requirement and a reencrypt keyslot) and what it is.
func (h *Header) Reencryption() (Reencryption, bool) {
	return h.reencryption()
}

// InitReencrypt records a reencryption in the header (cryptsetup
// reencrypt --init-only): data is the device with the data, hdr the
// device with the header (the same device unless the header is
// detached; for Mode "encrypt" with a detached header, hdr is where the
// new header is created). Returns the header as written.
func InitReencrypt(data, hdr ReadWriterAt, passphrase []byte, o ReencryptOptions) (*Header, error) {
	return initReencrypt(data, hdr, passphrase, o)
}

// ResumeReencrypt continues the reencryption recorded in hdr's header
// (made by this package or by cryptsetup, interrupted or not),
// recovering the interrupted hotzone first as the resilience mode says,
// and runs it to the end unless ctx is cancelled: then it stops after
// the hotzone in flight, with the progress recorded, and returns an
// error wrapping ctx.Err().
func ResumeReencrypt(ctx context.Context, data, hdr ReadWriterAt, passphrase []byte, o ReencryptOptions) error {
	return resumeReencrypt(ctx, data, hdr, passphrase, o)
}

// Reencrypt is InitReencrypt then ResumeReencrypt.
func Reencrypt(ctx context.Context, data, hdr ReadWriterAt, passphrase []byte, o ReencryptOptions) error {
	if _, err := InitReencrypt(data, hdr, passphrase, o); err != nil {
		return err
	}
	return ResumeReencrypt(ctx, data, hdr, passphrase, o)
}

// initReencrypt builds and commits the header of a new reencryption.
func initReencrypt(data, hdr ReadWriterAt, passphrase []byte, o ReencryptOptions) (*Header, error) {
	if o.ReduceDeviceSize != 0 || o.Resilience == "datashift" {
		return initDatashift(data, hdr, passphrase, o)
	}
	if o.Mode == "" {
		o.Mode = "reencrypt"
	}
	if o.Resilience == "" {
		o.Resilience = "checksum"
	}
	if o.Hash == "" {
		o.Hash = "sha256"
	}
	switch o.Resilience {
	case "checksum":
		if _, err := hashFunc(o.Hash); err != nil {
			return nil, err
		}
	case "journal", "none":
	default:
		return nil, fmt.Errorf("luks: resilience %q (checksum, journal or none)", o.Resilience)
	}
	switch o.Mode {
	case "reencrypt":
		return initRotate(data, hdr, passphrase, o)
	case "encrypt":
		return initEncrypt(data, hdr, passphrase, o)
	case "decrypt":
		return initDecrypt(data, hdr, passphrase, o)
	}
	return nil, fmt.Errorf("luks: reencryption mode %q (reencrypt, encrypt or decrypt)", o.Mode)
}

// readForInit reads the header and unlocks the old key for a rotation or
// a decryption.
func readForInit(data, hdr ReadWriterAt, passphrase []byte, o ReencryptOptions) (*Header, []byte, int, error) {
	h, err := ReadHeader(hdr)
	if err != nil {
		return nil, nil, -1, err
	}
	if h.Version == 1 {
		return nil, nil, -1, fmt.Errorf("%w: LUKS1 reencryption (convert the image to LUKS2 first: cryptsetup convert --type luks2)", ErrUnsupported)
	}
	if _, ok := h.Reencryption(); ok {
		return nil, nil, -1, fmt.Errorf("luks: a reencryption is already in progress: resume it (ResumeReencrypt, cryptsetup reencrypt --resume-only)")
	}
	if err := h.CheckSupported(); err != nil {
		return nil, nil, -1, err
	}
	if o.Keyslot == AnyKeyslot {
		n := 0
		for _, k := range h.Keyslots {
			if k.Active {
				n++
			}
		}
		if n != 1 {
			return nil, nil, -1, fmt.Errorf("luks: %d keyslots are active: name the keyslot of the passphrase (cryptsetup: \"Key file can be used only with --key-slot or with exactly one key slot active.\")", n)
		}
	}
	key, slot, err := h.Unlock(hdr, passphrase, o.Keyslot)
	if err != nil {
		return nil, nil, -1, err
	}
	size, err := DeviceSize(data)
	if err != nil {
		clear(key)
		return nil, nil, -1, err
	}
	seg := h.Segments[0]
	if uint64(size) <= seg.Offset {
		clear(key)
		return nil, nil, -1, fmt.Errorf("luks: the data device (%d bytes) ends before the data segment's start %d", size, seg.Offset)
	}
	return h, key, slot, nil
}

// checkDataSize refuses data that is not whole sectors of every size.
func checkDataSize(data ReadWriterAt, start uint64, sizes ...int) error {
	n, err := DeviceSize(data)
	if err != nil {
		return err
	}
	for _, ss := range sizes {
		if (uint64(n)-start)%uint64(ss) != 0 {
			return fmt.Errorf("luks: the data (%d bytes) is not a whole number of %d-byte sectors", uint64(n)-start, ss)
		}
	}
	return nil
}

func initRotate(data, hdr ReadWriterAt, passphrase []byte, o ReencryptOptions) (*Header, error) {
	h, oldKey, slot, err := readForInit(data, hdr, passphrase, o)
	if err != nil {
		return nil, err
	}
	defer clear(oldKey)
	old := h.Segments[0]
	if !old.Dynamic {
		return nil, fmt.Errorf("%w: reencryption of a data segment of fixed size", ErrUnsupported)
	}
	nseg := old
	if o.Cipher != "" {
		nseg.Encryption = o.Cipher
	}
	if o.SectorSize != 0 {
		nseg.SectorSize = o.SectorSize
	}
	if ss := nseg.SectorSize; ss < 512 || ss > 4096 || ss&(ss-1) != 0 {
		return nil, fmt.Errorf("luks: sector size %d (512 to 4096, a power of two)", ss)
	}
	spec, err := parseCipherSpec(nseg.Encryption)
	if err != nil {
		return nil, err
	}
	keySize := o.KeySize
	if keySize == 0 {
		keySize = len(oldKey)
		if o.Cipher != "" && !spec.keySizeOK(keySize) {
			keySize = 32
			if spec.mode == "xts" {
				keySize = 64
			}
		}
	}
	newKey := o.VolumeKey
	if newKey == nil {
		if newKey, err = randomBytes(keySize); err != nil {
			return nil, err
		}
		defer clear(newKey)
	}
	if !spec.keySizeOK(len(newKey)) {
		return nil, fmt.Errorf("luks: %d-bit key for %s", 8*len(newKey), nseg.Encryption)
	}
	if err := checkDataSize(data, old.Offset, old.SectorSize, nseg.SectorSize); err != nil {
		return nil, err
	}
	kdfo, err := o.KDF.withDefaults(2)
	if err != nil {
		return nil, err
	}
	// The new keyslot for the passphrase, bound to a new digest over the
	// final segment.
	nh := h.clone()
	newID := freeKeyslotID(nh)
	areaSize := roundUp(uint64(len(newKey))*afStripes, keyslotAlign)
	off, err := nh.freeArea(areaSize)
	if err != nil {
		return nil, err
	}
	kdf, err := newKDF(kdfo, len(newKey))
	if err != nil {
		return nil, err
	}
	ks := Keyslot{ID: newID, Active: true, Type: "luks2", KeySize: len(newKey), Priority: PriorityNormal,
		AF:   AF{Type: "luks1", Stripes: afStripes, Hash: kdfo.Hash},
		Area: Area{Type: "raw", Offset: off, Size: areaSize, Encryption: nseg.Encryption, KeySize: len(newKey)}, KDF: kdf}
	if _, err := parseCipherSpec(ks.Area.Encryption); err != nil || !spec.keySizeOK(len(newKey)) {
		return nil, fmt.Errorf("luks: keyslot encryption %s", ks.Area.Encryption)
	}
	material, err := sealKeyslot(newKey, passphrase, &ks)
	if err != nil {
		return nil, err
	}
	defer clear(material)
	nh.Keyslots = append(nh.Keyslots, ks)
	sortByID(nh.Keyslots, func(k *Keyslot) int { return k.ID })
	oldDigest, ok := nh.digestFor(slot)
	if !ok {
		return nil, fmt.Errorf("%w: no digest covers keyslot %d", ErrCorrupt, slot)
	}
	oldDigest.Segments = []int{0, 1}
	dsalt, err := randomBytes(32)
	if err != nil {
		return nil, err
	}
	nd, err := newDigest(newKey, "sha256", reencryptDigestIterations, dsalt)
	if err != nil {
		return nil, err
	}
	nd.ID, nd.Keyslots, nd.Segments = freeDigestID(nh), []int{newID}, []int{2}
	nh.Digests = append(nh.Digests, nd)
	sortByID(nh.Digests, func(d *Digest) int { return d.ID })
	prev, final := old, nseg
	prev.ID, prev.Flags = 1, []string{flagBackupPrevious}
	final.ID, final.Flags = 2, []string{flagBackupFinal}
	cur := old
	cur.ID, cur.Flags = 0, nil
	nh.Segments = []Segment{cur, prev, final}
	return recordReencryption(hdr, h, nh, "reencrypt", "forward", o, oldKey, newKey, []keyslotWrite{{off, material}})
}

func initDecrypt(data, hdr ReadWriterAt, passphrase []byte, o ReencryptOptions) (*Header, error) {
	if sameDevice(data, hdr) {
		return nil, fmt.Errorf("%w: decryption of an image with its header attached (give a detached header)", ErrUnsupported)
	}
	h, oldKey, slot, err := readForInit(data, hdr, passphrase, o)
	if err != nil {
		return nil, err
	}
	defer clear(oldKey)
	old := h.Segments[0]
	if !old.Dynamic {
		return nil, fmt.Errorf("%w: decryption of a data segment of fixed size", ErrUnsupported)
	}
	if err := checkDataSize(data, old.Offset, old.SectorSize); err != nil {
		return nil, err
	}
	nh := h.clone()
	d, ok := nh.digestFor(slot)
	if !ok {
		return nil, fmt.Errorf("%w: no digest covers keyslot %d", ErrCorrupt, slot)
	}
	d.Segments = []int{0, 1}
	prev := old
	prev.ID, prev.Flags = 1, []string{flagBackupPrevious}
	final := Segment{ID: 2, Type: "linear", Offset: old.Offset, Dynamic: true, Flags: []string{flagBackupFinal}}
	cur := old
	cur.ID, cur.Flags = 0, nil
	nh.Segments = []Segment{cur, prev, final}
	return recordReencryption(hdr, h, nh, "decrypt", "backward", o, oldKey, nil, nil)
}

// sameDevice reports whether data and hdr are the same device value.
func sameDevice(data, hdr ReadWriterAt) (same bool) {
	defer func() {
		if recover() != nil {
			same = false // not comparable: different values
		}
	}()
	return data == hdr
}

func initEncrypt(data, hdr ReadWriterAt, passphrase []byte, o ReencryptOptions) (*Header, error) {
	if sameDevice(data, hdr) {
		return nil, fmt.Errorf("%w: encryption in place with the header on the data device needs ReduceDeviceSize (datashift)", ErrUnsupported)
	}
	c := CreateOptions{}
	if o.Create != nil {
		c = *o.Create
	}
	c.Version, c.Detached = 2, true
	if o.Cipher != "" {
		c.Cipher = o.Cipher
	}
	if o.KeySize != 0 {
		c.KeyBits = 8 * o.KeySize
	}
	if o.SectorSize != 0 {
		c.SectorSize = o.SectorSize
	}
	if c.SectorSize == 0 {
		c.SectorSize = 512 // what cryptsetup 2.6.1 reencrypt --encrypt chooses for an image file
	}
	if o.VolumeKey != nil {
		c.VolumeKey = o.VolumeKey
	}
	if o.KDF != (KDFOptions{}) {
		c.KDF = o.KDF
	}
	if err := checkDataSize(data, 0, c.SectorSize); err != nil {
		return nil, err
	}
	if n, err := DeviceSize(data); err != nil || n == 0 {
		return nil, fmt.Errorf("luks: the data device is empty or unreadable: %v", err)
	}
	h, key, err := Create(hdr, passphrase, &c)
	if err != nil {
		return nil, err
	}
	defer clear(key)
	nh := h.clone()
	fin := h.Segments[0]
	fin.ID, fin.Flags = 2, []string{flagBackupFinal}
	lin := Segment{Type: "linear", Offset: 0, Dynamic: true}
	prev := lin
	prev.ID, prev.Flags = 1, []string{flagBackupPrevious}
	nh.Segments = []Segment{lin, prev, fin}
	nh.Digests[0].Segments = []int{2}
	return recordReencryption(hdr, h, nh, "encrypt", "forward", o, nil, key, nil)
}

// recordReencryption adds the reencrypt keyslot (mode, direction, o's
// resilience) and the verification digest over oldKey and newKey to nh,
// whose segments the caller laid out, commits it over h with the keyslot
// material mat, and syncs: what every mode's init writes.
func recordReencryption(hdr ReadWriterAt, h, nh *Header, mode, direction string, o ReencryptOptions, oldKey, newKey []byte, mat []keyslotWrite) (*Header, error) {
	rk, err := newReencryptKeyslot(nh, freeKeyslotID(nh), mode, direction, o.Resilience, o.Hash, keyslotsEnd(nh))
	if err != nil {
		return nil, err
	}
	if err := addReencryptMetadata(nh, rk, oldKey, newKey); err != nil {
		return nil, err
	}
	w, err := commit(hdr, h, nh, mat)
	if err != nil {
		return nil, err
	}
	return w, syncDev(hdr)
}
