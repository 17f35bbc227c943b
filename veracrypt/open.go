package veracrypt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fastxts/xts"
	"github.com/fastxts/xts/internal/volume"
)

// ErrPassword is returned by Open when no header decrypts with the
// password, keyfiles and PIM under any PRF and cipher chain tried.
var ErrPassword = errors.New("veracrypt: no header decrypts with this password, keyfiles and PIM (wrong password, PIM or keyfiles, or not a VeraCrypt/TrueCrypt volume)")

// Options selects what Open tries. The zero value (or nil) opens the
// normal volume's primary header, trying every PRF and cipher chain of
// both VeraCrypt and TrueCrypt.
type Options struct {
	// PRF limits the trials to the key derivations whose name contains it
	// ("sha512", "sha256", "blake2s", "whirlpool", "streebog",
	// "ripemd160", "sha1", "argon2id"; "" tries all), as cryptsetup's
	// --hash does.
	PRF string
	// Cipher limits the trials to one cipher chain, in VeraCrypt's or
	// cryptsetup's naming ("aes", "serpent-twofish-aes"; see Chains and
	// CanonicalChain), or TrueCrypt's name of a CBC chain ("cast5",
	// "des3_ede", "blowfish", "aes-blowfish"); "" tries all.
	Cipher string
	// PIM is VeraCrypt's Personal Iterations Multiplier; 0 uses the
	// default iteration counts (and Argon2id's default costs).
	PIM int
	// Keyfiles are the contents of the keyfiles (only the first 1 MiB of
	// each counts; the order does not matter).
	Keyfiles [][]byte
	// Hidden opens the hidden volume (its header at 64 KiB, or its backup
	// header at size-64 KiB).
	Hidden bool
	// System opens a system-encrypted drive: the header in the last
	// sector of the first track (sector 62), the data where it says, on
	// the device given (the whole drive image).
	System bool
	// Backup opens with the backup header (in the last 128 KiB of the
	// host, or for a hidden volume 64 KiB before the end) instead of the
	// primary one, as cryptsetup's --tcrypt-backup does.
	Backup bool
	// TryBackup tries the backup header when the primary one does not
	// decrypt: for a volume whose primary header is damaged. It is off by
	// default, as in cryptsetup: an encrypted header that is damaged
	// cannot be told from a wrong password, so the fallback would double
	// the time every wrong password takes to be refused.
	TryBackup bool
	// NoVeraCrypt tries TrueCrypt headers only; NoTrueCrypt VeraCrypt
	// headers only.
	NoVeraCrypt, NoTrueCrypt bool
	// ReadOnly refuses writes even when the device is an io.WriterAt.
	ReadOnly bool
	// Protect, for an outer volume, names the hidden volume's
	// credentials: its data area is found by the same trials and every
	// write that would touch it is refused (hidden volume protection).
	Protect *Credentials
}

// Credentials are what unlocks a header: for hidden volume protection.
type Credentials struct {
	Password []byte
	Keyfiles [][]byte
	PIM      int
	PRF      string
}

// location returns where the header Open tries is, and whether it is a
// hidden or backup header.
func (o *Options) location(devSize int64) (int64, error) {
	switch {
	case o.System && (o.Hidden || o.Backup):
		return 0, errors.New("veracrypt: system encryption has neither hidden nor backup headers here (hidden operating systems are not supported)")
	case o.System:
		return systemHeaderOffset, nil
	case o.Backup && o.Hidden:
		return devSize - hiddenHeaderOffset, nil
	case o.Backup:
		return devSize - backupReserve, nil
	case o.Hidden:
		return hiddenHeaderOffset, nil
	}
	return normalHeaderOffset, nil
}

// unlock runs the trials on the 512-byte header block and returns the
// decrypted header. Every (TrueCrypt/VeraCrypt, PRF) pair is a job (see
// runTrials for how the jobs share the cores); the first header that
// decrypts stops the others.
func unlock(ctx context.Context, block []byte, password []byte, keyfiles [][]byte, pim int, prfName, cipherName string, system, noVC, noTC bool) (*Header, error) {
	if len(block) != HeaderSize {
		return nil, fmt.Errorf("veracrypt: header block of %d bytes", len(block))
	}
	if len(password) > MaxPassword {
		return nil, fmt.Errorf("veracrypt: a password is at most %d bytes, have %d", MaxPassword, len(password))
	}
	var chains []string
	legacy := cbcCandidates(cipherName)
	if cipherName != "" {
		cn, ok := CanonicalChain(cipherName)
		if !ok && len(legacy) == 0 {
			return nil, fmt.Errorf("veracrypt: %q is not a VeraCrypt or TrueCrypt cipher chain", cipherName)
		}
		if ok {
			if err := chainAvailable(cn); err != nil {
				return nil, err
			}
			chains = []string{cn}
		}
	} else {
		for _, n := range chainNames {
			if chainAvailable(n) == nil {
				chains = append(chains, n)
			}
		}
	}
	if len(chains) == 0 && len(legacy) == 0 {
		return nil, errors.New("veracrypt: no cipher chain in this build")
	}
	cands := trialCandidates(chains, legacy)
	jobs, skipped := trialJobs(password, pim, prfName, system, noVC, noTC)
	if len(jobs) == 0 {
		if len(skipped) > 0 {
			return nil, fmt.Errorf("veracrypt: no key derivation to try: %s not in this build yet", strings.Join(skipped, ", "))
		}
		if len(password) > MaxPassword {
			return nil, fmt.Errorf("veracrypt: a password is at most %d bytes, have %d", MaxPassword, len(password))
		}
		return nil, fmt.Errorf("veracrypt: no key derivation matches %q", prfName)
	}
	found, lastErr := runTrials(ctx, block, password, keyfiles, pim, system, jobs, cands)
	if found != nil {
		return found, nil
	}
	if ctx.Err() != nil {
		return nil, stopped(ctx)
	}
	if lastErr != nil && len(jobs) == 1 {
		return nil, lastErr
	}
	if len(skipped) > 0 {
		return nil, fmt.Errorf("%w; not tried: %s (not in this build yet)", ErrPassword, strings.Join(skipped, ", "))
	}
	return nil, ErrPassword
}

// A candidate is a cipher chain and mode a header may be encrypted with.
type candidate struct {
	chain   string
	lrw     bool
	keySize int
	cbc     bool // TrueCrypt 1.0-4.0's CBC (cbc.go)
}

// trialCandidates returns the candidates: every chain in XTS mode, and
// for TrueCrypt headers the LRW chains and the CBC chains of legacy
// (cbcCandidates), shortest keys first (the header key's blocks are
// derived as they are needed).
func trialCandidates(chains, legacy []string) []candidate {
	var cands []candidate
	for _, cn := range chains {
		cands = append(cands, candidate{chain: cn, keySize: chainKeySize(cn)})
		if slices.Contains(lrwChains, cn) {
			cands = append(cands, candidate{chain: cn, lrw: true, keySize: lrwKeySize(cn)})
		}
	}
	for _, cn := range legacy {
		cands = append(cands, candidate{chain: cn, cbc: true, keySize: cbcKeySize(cn)})
	}
	slices.SortStableFunc(cands, func(a, b candidate) int { return a.keySize - b.keySize })
	return cands
}

// applies reports whether the candidate is tried for job j's headers.
func (cd candidate) applies(j job) bool { return !(cd.lrw || cd.cbc) || j.tc }

// A job is one key derivation to try: a PRF, for TrueCrypt's or
// VeraCrypt's headers.
type job struct {
	p  *prf
	tc bool
}

// trialJobs returns the jobs that the options allow, TrueCrypt's first
// (their derivations are cheap), then VeraCrypt's likeliest first, and
// the PRFs this build lacks.
func trialJobs(password []byte, pim int, prfName string, system, noVC, noTC bool) (jobs []job, skipped []string) {
	for _, tc := range []bool{true, false} {
		if (tc && noTC) || (!tc && noVC) {
			continue
		}
		if tc && pim > 0 {
			continue // TrueCrypt has no PIM
		}
		if tc && len(password) > MaxPasswordTrueCrypt {
			continue
		}
		for _, p := range findPRF(prfName) {
			if (tc && !p.tc) || (!tc && !p.vc) || (p.argon2 && system) {
				continue
			}
			if err := p.check(); err != nil {
				skipped = append(skipped, p.name)
				continue
			}
			jobs = append(jobs, job{p, tc})
		}
	}
	return jobs, skipped
}

// tryCandidate decrypts the header block with the candidate and key (at
// least cd.keySize bytes) into dec (HeaderSize bytes, the salt already
// in place), and returns the header when it parses as job j's.
func tryCandidate(j job, cd candidate, key, block, dec []byte) *Header {
	key = key[:cd.keySize]
	if cd.cbc {
		if !cbcHeader(cd.chain, key, dec[SaltSize:], block[SaltSize:]) {
			return nil
		}
	} else if cd.lrw {
		c, err := newLRWChain(cd.chain, key)
		if err != nil {
			return nil
		}
		c.header(dec[SaltSize:], block[SaltSize:], false)
		c.wipe()
	} else {
		c, err := newChain(cd.chain, key, xts.AllowEqualKeyHalves(), xts.WithoutParallelism())
		if err != nil {
			return nil
		}
		c.header(dec[SaltSize:], block[SaltSize:], false)
		c.wipe()
	}
	h, err := ParseHeader(dec)
	if err != nil || h.TrueCrypt != j.tc {
		return nil
	}
	h.Cipher, h.KeySize, h.Mode = cd.chain, cd.keySize, "xts"
	if cd.lrw {
		h.Mode = "lrw"
	}
	if cd.cbc {
		h.Mode = "cbc"
	}
	return h
}

// Volume is an open VeraCrypt or TrueCrypt volume: the decrypted data
// area, with ReadAt and WriteAt at any offset and length (the embedded
// volume layer's methods: Size, SectorSize, ReadOnly, Flush, Close).
type Volume struct {
	*volume.Volume
	hdr *Header
}

// Header returns the decrypted header the volume was opened with. Its key
// area holds the master key: do not keep it longer than the Volume.
func (v *Volume) Header() *Header { return v.hdr }

// Close wipes the data area's keys and the header's key area, and makes
// further I/O fail. It does not close the device.
func (v *Volume) Close() error {
	err := v.Volume.Close()
	clear(v.hdr.KeyArea[:])
	return err
}

// readHeader reads the 512-byte block at off.
func readHeader(dev io.ReaderAt, off, size int64) ([]byte, error) {
	if off < 0 || off+HeaderSize > size {
		return nil, fmt.Errorf("veracrypt: header at %d is outside the %d-byte device", off, size)
	}
	b := make([]byte, HeaderSize)
	if _, err := dev.ReadAt(b, off); err != nil {
		return nil, fmt.Errorf("veracrypt: reading the header at %d: %w", off, err)
	}
	return b, nil
}

// Open finds the header of dev that the password (with o's keyfiles and
// PIM) decrypts, trying every PRF and cipher chain that o allows, and
// returns the decrypted volume. Writes go to dev when it is an io.WriterAt
// and o.ReadOnly is false. A wrong password gives ErrPassword; Open never
// writes.
func Open(dev io.ReaderAt, password []byte, o *Options) (*Volume, error) {
	return OpenContext(context.Background(), dev, password, o)
}

// OpenContext is Open with a context: when ctx is done before a header
// decrypts, the trials stop within a stretch of their key derivation (1024
// PBKDF2 iterations, an Argon2id slice: milliseconds) and OpenContext
// returns an error matching ctx's cause (context.Canceled,
// context.DeadlineExceeded), not ErrPassword. A wrong password takes
// seconds to refuse when every PRF is tried: this bounds it.
func OpenContext(ctx context.Context, dev io.ReaderAt, password []byte, o *Options) (*Volume, error) {
	if o == nil {
		o = &Options{}
	}
	size, err := volume.DeviceSize(dev)
	if err != nil {
		return nil, fmt.Errorf("veracrypt: %w", err)
	}
	h, err := findHeader(ctx, dev, size, password, o)
	if err != nil {
		return nil, err
	}
	var guard func(off, n int64) error
	if o.Protect != nil {
		if guard, err = protectGuard(ctx, dev, size, h, o); err != nil {
			clear(h.KeyArea[:])
			return nil, err
		}
	}
	return newVolume(dev, size, h, o.ReadOnly, guard)
}

// ReadHeader finds and decrypts the header that Open would open, by the
// same trials, without opening the data area (for a dump of it). Its key
// area holds the master key: clear it when done.
func ReadHeader(dev io.ReaderAt, password []byte, o *Options) (*Header, error) {
	return ReadHeaderContext(context.Background(), dev, password, o)
}

// ReadHeaderContext is ReadHeader with a context, stopped as OpenContext
// is.
func ReadHeaderContext(ctx context.Context, dev io.ReaderAt, password []byte, o *Options) (*Header, error) {
	if o == nil {
		o = &Options{}
	}
	size, err := volume.DeviceSize(dev)
	if err != nil {
		return nil, fmt.Errorf("veracrypt: %w", err)
	}
	return findHeader(ctx, dev, size, password, o)
}

// findHeader runs the trials of Open on the header o names, then on the
// legacy TrueCrypt hidden header, and with o.TryBackup the backup header,
// as fallbacks.
func findHeader(ctx context.Context, dev io.ReaderAt, size int64, password []byte, o *Options) (*Header, error) {
	if ctx.Err() != nil {
		return nil, stopped(ctx)
	}
	off, err := o.location(size)
	if err != nil {
		return nil, err
	}
	block, err := readHeader(dev, off, size)
	var h *Header
	if err == nil {
		h, err = unlock(ctx, block, password, o.Keyfiles, o.PIM, o.PRF, o.Cipher, o.System, o.NoVeraCrypt, o.NoTrueCrypt)
	} else if o.Hidden {
		err = fmt.Errorf("%w (%w)", ErrPassword, err)
	}
	if errors.Is(err, ErrPassword) && o.Hidden && !o.Backup && !o.System && !o.NoTrueCrypt && o.PIM == 0 && size >= legacyHiddenOffset {
		// TrueCrypt before 6.0 kept the hidden header near the end.
		lo := size - legacyHiddenOffset
		if b, err2 := readHeader(dev, lo, size); err2 == nil {
			if h2, err2 := unlock(ctx, b, password, o.Keyfiles, 0, o.PRF, o.Cipher, false, true, false); err2 == nil && h2.Version < 4 {
				h, err, off = h2, nil, lo
			}
		}
	}
	backup := o.Backup
	if errors.Is(err, ErrPassword) && o.TryBackup && !o.Backup && !o.System {
		bo := *o
		bo.Backup = true
		boff, _ := bo.location(size)
		if b, err2 := readHeader(dev, boff, size); err2 == nil {
			if h2, err2 := unlock(ctx, b, password, o.Keyfiles, o.PIM, o.PRF, o.Cipher, false, o.NoVeraCrypt, o.NoTrueCrypt); err2 == nil && h2.Version >= 4 {
				h, err, off, backup = h2, nil, boff, true
			}
		}
	}
	if err != nil {
		if errors.Is(err, ErrPassword) && ctx.Err() != nil {
			return nil, stopped(ctx) // during a fallback's trials
		}
		return nil, err
	}
	h.Offset, h.Hidden, h.Backup = off, o.Hidden, backup
	h.System = h.System || o.System
	return h, nil
}

// stopped is the error of trials that ctx stopped.
func stopped(ctx context.Context) error {
	return fmt.Errorf("veracrypt: trials stopped: %w", context.Cause(ctx))
}

// legacyHiddenOffset is, from the end of the host, where TrueCrypt
// before 6.0 kept a hidden volume's header.
const legacyHiddenOffset = 1536

// dataArea returns the data area [start, start+length) on a device of
// devSize bytes.
//
// Headers of version 4 and up record it. TrueCrypt before 6.0 (versions
// 3 and below) did not: the data follows the header (at 512), and a hidden
// volume ends where its header, 1536 bytes before the end of the host,
// begins. A system drive's header records the drive's size when it was
// encrypted; on a smaller image (or a partition's), the area ends with
// the device.
func (h *Header) dataArea(devSize int64) (start, length int64, err error) {
	if h.Version < 4 {
		size := h.VolumeSize
		switch {
		case size == 0 && h.Hidden:
			// TrueCrypt 4 recorded only a hidden volume's size.
			size = h.HiddenVolumeSize
		case size == 0:
			size = uint64(devSize - 512)
		}
		if size > uint64(devSize) {
			return 0, 0, fmt.Errorf("veracrypt: volume of %d bytes does not fit the %d-byte device", size, devSize)
		}
		length = int64(size)
		start = 512
		if h.Hidden {
			start = devSize - legacyHiddenOffset - length
		}
		if start < 0 || length > devSize-start {
			return 0, 0, fmt.Errorf("veracrypt: data area [%d, +%d) runs past the end of the %d-byte device", start, length, devSize)
		}
		return start, length, nil
	}
	start, length = int64(h.EncryptedAreaStart), int64(h.EncryptedAreaLength)
	if start > devSize {
		return 0, 0, fmt.Errorf("veracrypt: data area starts at %d, past the end of the %d-byte device", start, devSize)
	}
	if length > devSize-start {
		if !h.System {
			return 0, 0, fmt.Errorf("veracrypt: data area [%d, +%d) runs past the end of the %d-byte device", start, length, devSize)
		}
		length = devSize - start
	}
	return start, length, nil
}

// newVolume builds the Volume of a decrypted header.
func newVolume(dev io.ReaderAt, size int64, h *Header, readOnly bool, guard func(off, n int64) error) (*Volume, error) {
	start, length, err := h.dataArea(size)
	if err != nil {
		return nil, err
	}
	ss := int(h.SectorSize)
	length -= length % int64(ss)
	var sc volume.Sectors
	if h.Mode == "cbc" {
		if sc, err = cbcVolumeSectors(h); err != nil {
			return nil, err
		}
		readOnly = true
	} else if h.Mode == "lrw" {
		// TrueCrypt 4's LRW volumes are opened read-only.
		c, err := newLRWChain(h.Cipher, h.KeyArea[:h.KeySize])
		if err != nil {
			return nil, err
		}
		sc, readOnly = &lrwSectors{c: c, ss: ss}, true
	} else {
		c, err := newChain(h.Cipher, h.KeyArea[:h.KeySize], xts.AllowEqualKeyHalves(), xts.WithoutParallelism())
		if err != nil {
			return nil, err
		}
		sc = &sectors{c: c, first: uint64(start) / 512, ss: ss}
	}
	vv, err := volume.New(volume.Config{Data: dev, Offset: start, Size: length, SectorSize: ss,
		Cipher: sc, ReadOnly: readOnly, Name: "veracrypt", Guard: guard})
	if err != nil {
		sc.Wipe()
		return nil, err
	}
	return &Volume{Volume: vv, hdr: h}, nil
}

// protectGuard finds the hidden volume that o.Protect unlocks inside the
// outer volume h, and returns a Guard that refuses writes to it.
func protectGuard(ctx context.Context, dev io.ReaderAt, size int64, outer *Header, o *Options) (func(off, n int64) error, error) {
	p := o.Protect
	ho := &Options{PRF: p.PRF, PIM: p.PIM, Keyfiles: p.Keyfiles, Hidden: true, Backup: o.Backup,
		NoVeraCrypt: o.NoVeraCrypt, NoTrueCrypt: o.NoTrueCrypt, TryBackup: o.TryBackup}
	hh, err := findHeader(ctx, dev, size, p.Password, ho)
	if err != nil {
		return nil, fmt.Errorf("veracrypt: hidden volume protection: %w", err)
	}
	clear(hh.KeyArea[:])
	hs, hl, err := hh.dataArea(size)
	if err != nil {
		return nil, err
	}
	os, _, err := outer.dataArea(size)
	if err != nil {
		return nil, err
	}
	// The hidden area in the outer area's coordinates.
	lo, hi := hs-os, hs-os+hl
	return func(off, n int64) error {
		if off < hi && off+n > lo {
			return fmt.Errorf("veracrypt: write to [%d, +%d) refused: it would overwrite the protected hidden volume [%d, %d)", off, n, lo, hi)
		}
		return nil
	}, nil
}
