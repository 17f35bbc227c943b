package veracrypt

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"

	"github.com/fastxts/xts"
	"github.com/fastxts/xts/internal/volume"
)

// CreateOptions describes a new VeraCrypt volume for Create.
type CreateOptions struct {
	// PRF is the header key derivation: "sha512" (the default),
	// "sha256", "blake2s", "whirlpool", "streebog", "ripemd160" or
	// "argon2id".
	PRF string
	// Cipher is the cipher chain in cryptsetup's naming ("aes", the
	// default, "serpent-twofish-aes", ...; see Chains).
	Cipher string
	// PIM is the Personal Iterations Multiplier (0: the default costs).
	PIM int
	// Keyfiles are the contents of keyfiles applied to the password.
	Keyfiles [][]byte
	// SectorSize is the volume's sector size: 512 (the default) or a
	// power of two up to 4096. The XTS data unit stays 512 bytes.
	SectorSize int
	// Hidden, if set, also creates a hidden volume at the end of the
	// outer volume's data area.
	Hidden *HiddenOptions
	// Fill writes random bytes over the data area (VeraCrypt's full
	// format); otherwise the data area is left as it was (quick format).
	Fill bool
	// Rand is the source of salts, keys and fill; crypto/rand by default.
	Rand io.Reader
}

// HiddenOptions describes the hidden volume of CreateOptions.Hidden.
type HiddenOptions struct {
	Password []byte
	Keyfiles [][]byte
	PIM      int
	PRF      string // default "sha512"
	Cipher   string // default "aes"
	// Size is the hidden volume's size in bytes, a multiple of the
	// sector size, smaller than the outer data area.
	Size int64
}

// Create writes a new VeraCrypt volume on dev, a host of size bytes (a
// file container or a partition; size a multiple of 512, at least
// 256 KiB plus one sector): random salt and master key, the header at 0
// and its backup at size-128 KiB, the hidden volume's headers (or random
// bytes where there is none) at 64 KiB and size-64 KiB, random bytes over
// the rest of both header areas. The data area is [128 KiB, size-128 KiB);
// it holds no filesystem: open the volume and format it.
func Create(dev io.WriterAt, size int64, password []byte, o *CreateOptions) error {
	if o == nil {
		o = &CreateOptions{}
	}
	rnd := o.Rand
	if rnd == nil {
		rnd = rand.Reader
	}
	ss := o.SectorSize
	if ss == 0 {
		ss = 512
	}
	if ss < 512 || ss > 4096 || ss&(ss-1) != 0 {
		return fmt.Errorf("veracrypt: sector size %d: must be a power of two from 512 to 4096", ss)
	}
	if size%512 != 0 || size < 2*backupReserve+int64(ss) {
		return fmt.Errorf("veracrypt: a %d-byte host is too small or not whole 512-byte sectors (at least %d)", size, 2*backupReserve+ss)
	}
	dataLen := size - 2*backupReserve
	dataLen -= dataLen % int64(ss)

	outer, err := newHeaderFor(o.PRF, o.Cipher, ss, rnd)
	if err != nil {
		return err
	}
	defer clear(outer.KeyArea[:])
	outer.VolumeSize, outer.EncryptedAreaStart, outer.EncryptedAreaLength = uint64(dataLen), DataOffset, uint64(dataLen)

	// The header areas: random bytes, then the headers over them.
	area := make([]byte, backupReserve)
	for _, off := range []int64{0, size - backupReserve} {
		if _, err := io.ReadFull(rnd, area); err != nil {
			return fmt.Errorf("veracrypt: random bytes: %w", err)
		}
		if _, err := dev.WriteAt(area, off); err != nil {
			return fmt.Errorf("veracrypt: writing the header area at %d: %w", off, err)
		}
	}
	if o.Fill {
		if err := fillRandom(dev, DataOffset, dataLen, rnd); err != nil {
			return err
		}
	}
	type write struct {
		h        *Header
		password []byte
		keyfiles [][]byte
		pim      int
		off      int64
	}
	writes := []write{
		{outer, password, o.Keyfiles, o.PIM, size - backupReserve},
		{outer, password, o.Keyfiles, o.PIM, 0},
	}
	if hd := o.Hidden; hd != nil {
		if hd.Size <= 0 || hd.Size%int64(ss) != 0 || hd.Size >= dataLen {
			return fmt.Errorf("veracrypt: hidden volume of %d bytes: must be whole %d-byte sectors and smaller than the %d-byte outer data area", hd.Size, ss, dataLen)
		}
		hh, err := newHeaderFor(hd.PRF, hd.Cipher, ss, rnd)
		if err != nil {
			return err
		}
		defer clear(hh.KeyArea[:])
		start := DataOffset + dataLen - hd.Size
		hh.VolumeSize, hh.HiddenVolumeSize = uint64(hd.Size), uint64(hd.Size)
		hh.EncryptedAreaStart, hh.EncryptedAreaLength = uint64(start), uint64(hd.Size)
		writes = append(writes,
			write{hh, hd.Password, hd.Keyfiles, hd.PIM, size - hiddenHeaderOffset},
			write{hh, hd.Password, hd.Keyfiles, hd.PIM, hiddenHeaderOffset})
	}
	for _, w := range writes {
		block, err := sealHeader(w.h, w.password, w.keyfiles, w.pim, rnd)
		if err != nil {
			return err
		}
		if _, err := dev.WriteAt(block, w.off); err != nil {
			return fmt.Errorf("veracrypt: writing the header at %d: %w", w.off, err)
		}
	}
	return nil
}

// newHeaderFor returns a VeraCrypt header with a random master key, for
// the PRF and chain named ("" for sha512 and aes).
func newHeaderFor(prfName, cipherName string, ss int, rnd io.Reader) (*Header, error) {
	if prfName == "" {
		prfName = "sha512"
	}
	if cipherName == "" {
		cipherName = "aes"
	}
	p, err := exactPRF(prfName, false)
	if err != nil {
		return nil, err
	}
	cipherName, known := CanonicalChain(cipherName)
	if err := cbcCreateRefused(cipherName); !known && err != nil {
		return nil, err
	}
	if !known {
		return nil, fmt.Errorf("veracrypt: %q is not a VeraCrypt cipher chain", cipherName)
	}
	if err := chainAvailable(cipherName); err != nil {
		return nil, err
	}
	h := &Header{Magic: "VERA", Version: 5, MinProgramVersion: 0x010b, SectorSize: uint32(ss), Mode: "xts",
		PRF: p.name, Cipher: cipherName, KeySize: chainKeySize(cipherName)}
	if _, err := io.ReadFull(rnd, h.KeyArea[:]); err != nil {
		return nil, fmt.Errorf("veracrypt: random bytes: %w", err)
	}
	return h, nil
}

// exactPRF returns the PRF named (as findPRF matches it, which must find
// exactly one that the header kind uses).
func exactPRF(name string, truecrypt bool) (*prf, error) {
	var ok []*prf
	for _, p := range findPRF(name) {
		if (truecrypt && p.tc) || (!truecrypt && p.vc) {
			ok = append(ok, p)
		}
	}
	if len(ok) != 1 {
		return nil, fmt.Errorf("veracrypt: %q does not name one key derivation of %s", name, map[bool]string{false: "VeraCrypt", true: "TrueCrypt"}[truecrypt])
	}
	if err := ok[0].check(); err != nil {
		return nil, err
	}
	return ok[0], nil
}

// sealHeader gives h a fresh random salt and returns it as an encrypted
// 512-byte header block under the password (keyfiles applied), h.PRF and
// pim. It sets h.Iterations and h.Memory.
func sealHeader(h *Header, password []byte, keyfiles [][]byte, pim int, rnd io.Reader) ([]byte, error) {
	p, err := exactPRF(h.PRF, h.TrueCrypt)
	if err != nil {
		return nil, err
	}
	if h.TrueCrypt && pim > 0 {
		return nil, errors.New("veracrypt: TrueCrypt headers have no PIM")
	}
	pw, err := passwordFor(password, keyfiles, h.TrueCrypt)
	if err != nil {
		return nil, err
	}
	defer clear(pw)
	if _, err := io.ReadFull(rnd, h.Salt[:]); err != nil {
		return nil, fmt.Errorf("veracrypt: random bytes: %w", err)
	}
	iter, mem := p.iterations(pim, h.System, h.TrueCrypt)
	h.Iterations, h.Memory = iter, mem
	d := &deriver{p: p, password: pw, salt: h.Salt[:], iter: iter, mem: mem}
	defer d.wipe()
	c, err := newChain(h.Cipher, d.get(chainKeySize(h.Cipher)), xts.AllowEqualKeyHalves())
	if err != nil {
		return nil, err
	}
	defer c.wipe()
	block := h.marshal()
	c.header(block[SaltSize:], block[SaltSize:], true)
	return block, nil
}

// fillRandom writes n random bytes at off, in 1 MiB writes.
func fillRandom(dev io.WriterAt, off, n int64, rnd io.Reader) error {
	buf := make([]byte, 1<<20)
	for n > 0 {
		b := buf[:min(int64(len(buf)), n)]
		if _, err := io.ReadFull(rnd, b); err != nil {
			return fmt.Errorf("veracrypt: random bytes: %w", err)
		}
		if _, err := dev.WriteAt(b, off); err != nil {
			return fmt.Errorf("veracrypt: filling the data area at %d: %w", off, err)
		}
		off, n = off+int64(len(b)), n-int64(len(b))
	}
	return nil
}

// ChangeOptions are the new credentials of ChangeKey.
type ChangeOptions struct {
	// PRF is the new header key derivation; "" keeps the old one.
	PRF string
	// PIM is the new PIM (0: the default costs).
	PIM int
	// Keyfiles are the new keyfiles' contents.
	Keyfiles [][]byte
	// Rand is the source of the new salts; crypto/rand by default.
	Rand io.Reader
}

// ChangeKey re-encrypts the header that oldPassword and old open (the
// normal or the hidden volume's, per old.Hidden; old.Backup has Open
// read the backup copy) under newPassword and n, with new salts: the
// backup header first, then the primary, each one 512-byte write at its
// 512-byte aligned place, so that after any prefix of these writes, even
// a torn one, the volume opens with the old or the new password (with
// Options.TryBackup, Open falls back to the backup header when the
// primary does not decrypt).
// System encryption and TrueCrypt before 6.0 have no backup header here:
// only the primary is written. The master key and data do not change.
func ChangeKey(dev interface {
	io.ReaderAt
	io.WriterAt
}, oldPassword []byte, old *Options, newPassword []byte, n *ChangeOptions) error {
	if old == nil {
		old = &Options{}
	}
	if n == nil {
		n = &ChangeOptions{}
	}
	rnd := n.Rand
	if rnd == nil {
		rnd = rand.Reader
	}
	ro := *old
	ro.ReadOnly, ro.Protect = true, nil
	v, err := Open(dev, oldPassword, &ro)
	if err != nil {
		return err
	}
	h := *v.Header()
	defer clear(h.KeyArea[:])
	v.Close()
	if h.Mode != "xts" {
		return fmt.Errorf("veracrypt: TrueCrypt %s volumes are read-only here: their headers are not rewritten", h.Mode)
	}
	size, err := volume.DeviceSize(dev)
	if err != nil {
		return fmt.Errorf("veracrypt: %w", err)
	}
	if n.PRF != "" {
		p, err := exactPRF(n.PRF, h.TrueCrypt)
		if err != nil {
			return err
		}
		h.PRF = p.name
	}
	var offs []int64
	switch {
	case h.System:
		offs = []int64{systemHeaderOffset}
	case h.Version < 4:
		offs = []int64{h.Offset}
	case h.Hidden:
		offs = []int64{size - hiddenHeaderOffset, hiddenHeaderOffset}
	default:
		offs = []int64{size - backupReserve, normalHeaderOffset}
	}
	blocks := make([][]byte, len(offs))
	for i := range offs {
		nh := h
		if blocks[i], err = sealHeader(&nh, newPassword, n.Keyfiles, n.PIM, rnd); err != nil {
			return err
		}
		clear(nh.KeyArea[:])
	}
	for i, off := range offs {
		if _, err := dev.WriteAt(blocks[i], off); err != nil {
			return fmt.Errorf("veracrypt: writing the header at %d: %w", off, err)
		}
		if s, ok := dev.(interface{ Sync() error }); ok {
			if err := s.Sync(); err != nil {
				return fmt.Errorf("veracrypt: sync after the header at %d: %w", off, err)
			}
		}
	}
	return nil
}
