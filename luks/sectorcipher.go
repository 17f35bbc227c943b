package luks

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/fastxts/xts"
)

// sectorCipher encrypts and decrypts whole sectors of a LUKS segment or
// keyslot area in place. iv is the IV sector number of the first sector,
// in 512-byte units; each following sector's is sectorSize/512 higher.
//
// encrypt and decrypt process whole sectors of src into dst (len(dst) ==
// len(src)), which is either src itself or memory that does not overlap
// it: out of place, a bulk read decrypts from a scratch buffer that stays
// in cache straight into the caller's buffer, with no second pass.
type sectorCipher interface {
	encrypt(dst, src []byte, sectorSize int, iv uint64)
	decrypt(dst, src []byte, sectorSize int, iv uint64)
	wipe()
}

// cipherSpec is a parsed cryptsetup cipher specification such as
// "aes-xts-plain64" or "aes-cbc-essiv:sha256".
type cipherSpec struct {
	cipher, mode, iv string
}

func parseCipherSpec(spec string) (cipherSpec, error) {
	parts := strings.SplitN(spec, "-", 3)
	if len(parts) != 3 || parts[0] == "" {
		return cipherSpec{}, fmt.Errorf("%w: cipher %q (expected CIPHER-MODE-IV, such as aes-xts-plain64)", ErrUnsupported, spec)
	}
	s := cipherSpec{parts[0], parts[1], parts[2]}
	if s.cipher != "aes" {
		return s, fmt.Errorf("%w: cipher %s in %q: only AES is supported", ErrUnsupported, s.cipher, spec)
	}
	switch s.mode + "-" + s.iv {
	case "xts-plain64", "xts-plain", "cbc-essiv:sha256", "cbc-plain64", "cbc-plain":
		return s, nil
	}
	return s, fmt.Errorf("%w: cipher mode %s-%s in %q (xts-plain64, xts-plain, cbc-essiv:sha256, cbc-plain64 and cbc-plain are supported)", ErrUnsupported, s.mode, s.iv, spec)
}

// keySizeOK reports whether key is a valid size for the spec.
func (s cipherSpec) keySizeOK(n int) bool {
	if s.mode == "xts" {
		return n == 32 || n == 48 || n == 64
	}
	return n == 16 || n == 24 || n == 32
}

// newSectorCipher makes the sector cipher for spec with key.
func newSectorCipher(spec string, key []byte) (sectorCipher, error) {
	s, err := parseCipherSpec(spec)
	if err != nil {
		return nil, err
	}
	if !s.keySizeOK(len(key)) {
		return nil, fmt.Errorf("%w: %d-bit key for %s", ErrUnsupported, 8*len(key), spec)
	}
	if s.mode == "xts" {
		c, err := xts.NewCipher(aes.NewCipher, key, xts.WithTweakUnit(512), xts.AllowEqualKeyHalves())
		if err != nil {
			return nil, fmt.Errorf("luks: %s: %w", spec, err)
		}
		return &xtsSectors{c: c, iv32: s.iv == "plain"}, nil
	}
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("luks: %s: %w", spec, err)
	}
	c := &cbcSectors{b: b, ivMode: s.iv}
	if s.iv == "essiv:sha256" {
		salt := sha256.Sum256(key)
		c.essiv, _ = aes.NewCipher(salt[:])
		clear(salt[:])
	}
	return c, nil
}

// xtsSectors is aes-xts-plain64 (64-bit IV) or aes-xts-plain (the IV
// is the sector number modulo 2^32).
type xtsSectors struct {
	c    *xts.Cipher
	iv32 bool
}

func (x *xtsSectors) run(dst, src []byte, ss int, iv uint64, enc bool) {
	do := x.c.DecryptSectors
	if enc {
		do = x.c.EncryptSectors
	}
	if !x.iv32 {
		do(dst, src, ss, iv)
		return
	}
	step := uint64(ss / 512)
	for len(src) > 0 {
		iv &= 1<<32 - 1
		// Sectors before the IV passes 2^32 and wraps.
		n := (1<<32 - iv + step - 1) / step
		chunk := len(src)
		if n*uint64(ss) < uint64(chunk) {
			chunk = int(n) * ss
		}
		do(dst[:chunk], src[:chunk], ss, iv)
		dst, src = dst[chunk:], src[chunk:]
		iv += uint64(chunk/ss) * step
	}
}

func (x *xtsSectors) encrypt(dst, src []byte, ss int, iv uint64) { x.run(dst, src, ss, iv, true) }
func (x *xtsSectors) decrypt(dst, src []byte, ss int, iv uint64) { x.run(dst, src, ss, iv, false) }

// wipe zeroes the XTS round keys (xts.Cipher.Wipe, which may be called
// again).
func (x *xtsSectors) wipe() { x.c.Wipe() }

// cbcSectors is AES-CBC with one of the IV generators essiv:sha256
// (AES under SHA-256 of the key of the 64-bit little-endian sector number),
// plain64 or plain (32-bit). Sectors are independent, so large calls run
// on several goroutines.
type cbcSectors struct {
	b, essiv cipher.Block
	ivMode   string
}

func (c *cbcSectors) ivFor(iv *[16]byte, n uint64) {
	*iv = [16]byte{}
	if c.ivMode == "plain" {
		binary.LittleEndian.PutUint32(iv[:], uint32(n))
		return
	}
	binary.LittleEndian.PutUint64(iv[:], n)
	if c.essiv != nil {
		c.essiv.Encrypt(iv[:], iv[:])
	}
}

func (c *cbcSectors) serial(dst, src []byte, ss int, n uint64, enc bool) {
	var iv [16]byte
	step := uint64(ss / 512)
	for off := 0; off < len(src); off += ss {
		c.ivFor(&iv, n)
		d, s := dst[off:off+ss], src[off:off+ss]
		if enc {
			cipher.NewCBCEncrypter(c.b, iv[:]).CryptBlocks(d, s)
		} else {
			cipher.NewCBCDecrypter(c.b, iv[:]).CryptBlocks(d, s)
		}
		n += step
	}
}

// parallelFrom is the size from which CBC sectors are split across cores.
const parallelFrom = 1 << 20

func (c *cbcSectors) run(dst, src []byte, ss int, n uint64, enc bool) {
	sectors := len(src) / ss
	workers := min(runtime.GOMAXPROCS(0), sectors)
	if len(src) < parallelFrom || workers < 2 {
		c.serial(dst, src, ss, n, enc)
		return
	}
	var wg sync.WaitGroup
	per := (sectors + workers - 1) / workers
	step := uint64(ss / 512)
	for first := 0; first < sectors; first += per {
		last := min(first+per, sectors)
		wg.Add(1)
		go func(d, s []byte, iv uint64) {
			defer wg.Done()
			c.serial(d, s, ss, iv, enc)
		}(dst[first*ss:last*ss], src[first*ss:last*ss], n+uint64(first)*step)
	}
	wg.Wait()
}

func (c *cbcSectors) encrypt(dst, src []byte, ss int, iv uint64) { c.run(dst, src, ss, iv, true) }
func (c *cbcSectors) decrypt(dst, src []byte, ss int, iv uint64) { c.run(dst, src, ss, iv, false) }

// wipe drops the block ciphers: crypto/aes has no way to clear their key
// schedules.
func (c *cbcSectors) wipe() { c.b, c.essiv = nil, nil }
