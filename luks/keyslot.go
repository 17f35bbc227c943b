package luks

import (
	"errors"
	"fmt"
	"io"
)

// Keyslot seal and open: a keyslot's KDF turns a passphrase into the key
// of its area, which holds the volume key split into anti-forensic
// stripes and encrypted with the area's cipher in 512-byte sectors.

// sealKeyslot returns keyslot k's area (k.Area.Size bytes) holding key
// for passphrase: k's KDF (with its salt) derives the area key, the key is
// split into k.AF.Stripes stripes and encrypted.
func sealKeyslot(key, passphrase []byte, k *Keyslot) ([]byte, error) {
	n := roundUp(uint64(len(key))*uint64(k.AF.Stripes), 512)
	if k.Area.Size < n {
		return nil, fmt.Errorf("luks: keyslot %d area of %d bytes, its split key needs %d", k.ID, k.Area.Size, n)
	}
	areaKey, err := deriveKey(&k.KDF, passphrase, k.Area.KeySize)
	if err != nil {
		return nil, err
	}
	defer clear(areaKey)
	split, err := afSplit(key, k.AF.Stripes, k.AF.Hash)
	if err != nil {
		return nil, err
	}
	area := make([]byte, k.Area.Size)
	copy(area, split)
	clear(split)
	sc, err := newSectorCipher(k.Area.Encryption, areaKey)
	if err != nil {
		clear(area)
		return nil, err
	}
	sc.encrypt(area[:n], area[:n], 512, 0)
	sc.wipe()
	return area, nil
}

// openKeyslot derives keyslot k's key from the passphrase, decrypts its
// area, merges the stripes and checks the result against the digest.
func (h *Header) openKeyslot(dev io.ReaderAt, k *Keyslot, passphrase []byte) ([]byte, error) {
	if k.Type != "luks2" && k.Type != "luks1" {
		return nil, fmt.Errorf("%w: keyslot type %q", ErrUnsupported, k.Type)
	}
	if k.AF.Type != "luks1" {
		return nil, fmt.Errorf("%w: anti-forensic splitter %q", ErrUnsupported, k.AF.Type)
	}
	if k.Area.Type != "raw" {
		return nil, fmt.Errorf("%w: keyslot area type %q", ErrUnsupported, k.Area.Type)
	}
	if err := checkKeyslotSizes(k); err != nil {
		return nil, err
	}
	if _, err := hashFunc(k.AF.Hash); err != nil {
		return nil, err
	}
	if _, err := parseCipherSpec(k.Area.Encryption); err != nil {
		return nil, fmt.Errorf("keyslot area: %w", err)
	}
	d, ok := h.digestFor(k.ID)
	if !ok {
		return nil, fmt.Errorf("%w: no digest covers keyslot %d", ErrCorrupt, k.ID)
	}
	if err := checkKDF(&k.KDF); err != nil {
		return nil, err
	}
	areaKey, err := deriveKey(&k.KDF, passphrase, k.Area.KeySize)
	if err != nil {
		return nil, err
	}
	defer clear(areaKey)
	c, err := newSectorCipher(k.Area.Encryption, areaKey)
	if err != nil {
		return nil, fmt.Errorf("keyslot area: %w", err)
	}
	defer c.wipe()
	split := make([]byte, roundUp(uint64(k.KeySize)*uint64(k.AF.Stripes), 512))
	defer clear(split)
	if _, err := dev.ReadAt(split, int64(k.Area.Offset)); err != nil {
		return nil, fmt.Errorf("luks: reading keyslot %d area (%d bytes at %d): %w", k.ID, len(split), k.Area.Offset, err)
	}
	c.decrypt(split, split, 512, 0)
	key, err := afMerge(split, k.KeySize, k.AF.Stripes, k.AF.Hash)
	if err != nil {
		return nil, err
	}
	if err := d.check(key); err != nil {
		clear(key)
		if errors.Is(err, ErrWrongKey) {
			return nil, ErrNoKey
		}
		return nil, err
	}
	return key, nil
}

// checkKeyslotSizes checks the sizes of a keyslot against the package's
// limits before its unlock allocates anything: key sizes, stripes, and an
// area that holds its split key. (cryptsetup reads such a header, so
// ReadHeader does too; opening the keyslot fails.)
func checkKeyslotSizes(k *Keyslot) error {
	if k.KeySize < 1 || k.KeySize > MaxKeySize {
		return fmt.Errorf("%w: keyslot %d key size %d bytes (1 to %d)", ErrCorrupt, k.ID, k.KeySize, MaxKeySize)
	}
	if k.Area.KeySize < 1 || k.Area.KeySize > MaxKeySize {
		return fmt.Errorf("%w: keyslot %d area key size %d bytes (1 to %d)", ErrCorrupt, k.ID, k.Area.KeySize, MaxKeySize)
	}
	if k.AF.Stripes < 1 || k.AF.Stripes > MaxStripes {
		return fmt.Errorf("%w: keyslot %d has %d anti-forensic stripes (1 to %d)", ErrCorrupt, k.ID, k.AF.Stripes, MaxStripes)
	}
	need := roundUp(uint64(k.KeySize)*uint64(k.AF.Stripes), 512)
	if k.Area.Size < need {
		return fmt.Errorf("%w: keyslot %d area of %d bytes, its split key needs %d", ErrCorrupt, k.ID, k.Area.Size, need)
	}
	return nil
}

func roundUp(n, m uint64) uint64 { return (n + m - 1) / m * m }
