package sector

import (
	"crypto/cipher"
	"fmt"
	"runtime"

	"github.com/fastxts/xts"
)

// Cipher encrypts and decrypts runs of whole sectors of a segment under
// one key, one cipher specification and one Numbering. Calls of at least
// 1 MiB are spread over every core unless the Cipher was made Serial. It
// is safe for concurrent use.
type Cipher struct {
	e    engine
	spec Spec
	n    Numbering
}

// engine is one cipher mode: it transforms sectors of ss bytes whose IVs
// are iv, iv+step, … (no wrap within a call) from src into dst, which is
// src or does not overlap it.
type engine interface {
	crypt(dst, src []byte, ss int, iv, step uint64, encrypt bool)
	implementation() string
	wipe()
}

// Option changes how New builds a Cipher.
type Option int

const (
	// Serial keeps every call on the calling goroutine, for callers that
	// already spread their work over the cores.
	Serial Option = iota + 1
	// EqualKeyHalves lets an XTS key have equal data and tweak halves,
	// which cryptsetup and dm-crypt accept (xts.AllowEqualKeyHalves).
	EqualKeyHalves
)

// parallelFrom is the call size from which a Cipher that is not Serial
// spreads sectors over the cores; the root package's default threshold.
const parallelFrom = 1 << 20

// New returns the Cipher of spec under key for sectors numbered by n.
// n.Plain32 is taken from spec (the plain IV generator) and need not be
// set. The key is not kept: the Cipher holds only its key schedules.
func New(spec string, key []byte, n Numbering, opts ...Option) (*Cipher, error) {
	s, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	if !s.KeySizeOK(len(key)) {
		return nil, fmt.Errorf("%d-bit key for %s", 8*len(key), spec)
	}
	if !validSectorSize(n.SectorSize) {
		return nil, fmt.Errorf("%d-byte sectors: must be 512, 1024, 2048 or 4096", n.SectorSize)
	}
	n.Plain32 = s.Plain32()
	serial, equalHalves := false, false
	for _, o := range opts {
		switch o {
		case Serial:
			serial = true
		case EqualKeyHalves:
			equalHalves = true
		}
	}
	bc, _ := lookupCipher(s.Cipher) // ParseSpec checked it
	c := &Cipher{spec: s, n: n}
	if s.Mode == "xts" {
		c.e, err = newXTS(bc.newBlock, key, n, serial, equalHalves)
	} else {
		c.e, err = newCBC(bc, key, s.IV == "essiv:sha256", serial)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// NewLUKS returns the Cipher of a LUKS data segment or keyslot area: IVs
// count 512-byte units from ivTweak (LUKS2's iv_tweak; 0 for LUKS1 and for
// keyslot areas), never iv_large_sectors, and equal XTS key halves are
// accepted as cryptsetup accepts them. opts are passed on to New.
func NewLUKS(spec string, key []byte, sectorSize int, ivTweak uint64, opts ...Option) (*Cipher, error) {
	return New(spec, key, Numbering{SectorSize: sectorSize, Offset: ivTweak}, append(opts, EqualKeyHalves)...)
}

// With returns a Cipher that shares c's key schedules (Wipe on either
// wipes both) and numbers sectors by n instead; n.Plain32 is taken from
// c's spec. n.LargeIV must equal c's, whose XTS tweak unit depends on it.
func (c *Cipher) With(n Numbering) *Cipher {
	if n.LargeIV != c.n.LargeIV || !validSectorSize(n.SectorSize) {
		panic(fmt.Sprintf("sector: With(%+v) on a Cipher for %+v", n, c.n))
	}
	n.Plain32 = c.n.Plain32
	return &Cipher{e: c.e, spec: c.spec, n: n}
}

// Spec returns the cipher specification.
func (c *Cipher) Spec() Spec { return c.spec }

// Numbering returns the IV numbering.
func (c *Cipher) Numbering() Numbering { return c.n }

// SectorSize returns the sector size in bytes.
func (c *Cipher) SectorSize() int { return c.n.SectorSize }

// Implementation names what runs the cipher: the xts package's
// implementation for XTS (its generated routines for the cipher where it
// has them), for CBC the block cipher's package (crypto/aes,
// github.com/fastxts/xts/serpent, ...).
func (c *Cipher) Implementation() string { return c.e.implementation() }

// Encrypt encrypts whole sectors of src into dst as the sectors k, k+1, …
// of the segment. dst must be src or not overlap it, and as long;
// len(src) must be a multiple of the sector size.
func (c *Cipher) Encrypt(dst, src []byte, k uint64) { c.crypt(dst, src, k, true) }

// Decrypt decrypts whole sectors; see Encrypt.
func (c *Cipher) Decrypt(dst, src []byte, k uint64) { c.crypt(dst, src, k, false) }

func (c *Cipher) crypt(dst, src []byte, k uint64, encrypt bool) {
	ss := c.n.SectorSize
	if len(src)%ss != 0 || len(dst) != len(src) {
		panic(fmt.Sprintf("sector: %d bytes into %d are not whole %d-byte sectors", len(src), len(dst), ss))
	}
	if c.e == nil {
		panic("sector: use of a wiped Cipher")
	}
	step := c.n.Step()
	c.n.Split(k, uint64(len(src)/ss), func(first, count, iv uint64) {
		lo, hi := (first-k)*uint64(ss), (first-k+count)*uint64(ss)
		c.e.crypt(dst[lo:hi], src[lo:hi], ss, iv, step, encrypt)
	})
}

// Wipe clears the key schedules (see xts.Cipher.Wipe; CBC's block
// ciphers, which have no way to clear, are dropped). The Cipher, and every Cipher made
// from it by With, must not be used again; Wipe may be repeated.
func (c *Cipher) Wipe() {
	if c.e != nil {
		c.e.wipe()
	}
}

// xtsEngine runs the xts package's bulk sector calls.
type xtsEngine struct{ c *xts.Cipher }

// newXTS builds the XTS engine of newBlock, the block cipher's own
// constructor: xts.NewCipher recognises it and picks the cipher's fastest
// implementation.
func newXTS(newBlock func([]byte) (cipher.Block, error), key []byte, n Numbering, serial, equalHalves bool) (engine, error) {
	var opts []xts.Option
	if !n.LargeIV {
		// The tweak counts 512-byte units whatever the sector size, so
		// that With can change the size.
		opts = append(opts, xts.WithTweakUnit(512))
	}
	if serial {
		opts = append(opts, xts.WithoutParallelism())
	}
	if equalHalves {
		opts = append(opts, xts.AllowEqualKeyHalves())
	}
	c, err := xts.NewCipher(newBlock, key, opts...)
	if err != nil {
		return nil, err
	}
	return xtsEngine{c}, nil
}

// crypt: the xts.Cipher was built with the numbering's step (tweak unit
// 512 without LargeIV), so step needs no passing on.
func (x xtsEngine) crypt(dst, src []byte, ss int, iv, step uint64, encrypt bool) {
	if encrypt {
		x.c.EncryptSectors(dst, src, ss, iv)
	} else {
		x.c.DecryptSectors(dst, src, ss, iv)
	}
}

func (x xtsEngine) implementation() string { return x.c.Implementation() }

func (x xtsEngine) wipe() { x.c.Wipe() }

// workers is how many goroutines a call of size bytes gets.
func workers(serial bool, size int) int {
	if serial || size < parallelFrom {
		return 1
	}
	return runtime.GOMAXPROCS(0)
}
