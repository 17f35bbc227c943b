package xts

import (
	"fmt"
	"runtime"

	"github.com/fastxts/xts/internal/parallel"
)

// EncryptSectors encrypts consecutive data units of sectorSize bytes:
// sector k of src (k = 0, 1, …) is encrypted with the tweak of
// firstSector + k, modulo 2^64, exactly as Encrypt(dst[k*sectorSize:],
// src[k*sectorSize:], firstSector+k) would. With WithTweakUnit the tweak
// counts smaller units instead (dm-crypt without iv_large_sectors).
//
// len(src) must be a multiple of sectorSize, sectorSize a multiple of 16
// (512 and 4096 are the fast cases); dst must be at least as long as src
// and may be src itself. Calls of at least the parallel threshold (1 MiB
// by default) are split across goroutines on sector boundaries, and a
// panic in one comes back to the caller. The call returns when every
// sector is done; its helper goroutines then wait, spinning, for at most
// as long as the call took (200 µs at most) for a next call to reuse
// them, and exit when none comes.
func (c *Cipher) EncryptSectors(dst, src []byte, sectorSize int, firstSector uint64) {
	c.sectorsCall(dst, src, sectorSize, firstSector, false)
}

// DecryptSectors decrypts consecutive data units; see EncryptSectors.
func (c *Cipher) DecryptSectors(dst, src []byte, sectorSize int, firstSector uint64) {
	c.sectorsCall(dst, src, sectorSize, firstSector, true)
}

func (c *Cipher) sectorsCall(dst, src []byte, sectorSize int, first uint64, decrypt bool) {
	c.check()
	if sectorSize < BlockSize || sectorSize%BlockSize != 0 {
		panic(fmt.Sprintf("xts: sector size %d is not a positive multiple of 16", sectorSize))
	}
	if len(src)%sectorSize != 0 {
		panic(fmt.Sprintf("xts: input length %d is not a multiple of the sector size %d", len(src), sectorSize))
	}
	step := uint64(1)
	if u := c.cfg.tweakUnit; u != 0 {
		if sectorSize%u != 0 {
			panic(fmt.Sprintf("xts: sector size %d is not a multiple of the tweak unit %d", sectorSize, u))
		}
		step = uint64(sectorSize / u)
	}
	checkDst(dst, src)
	n := len(src) / sectorSize
	if n == 0 {
		return
	}

	workers := 1
	if c.cfg.parallel && n > 1 && len(src) >= c.cfg.parallelThreshold {
		workers = min(runtime.GOMAXPROCS(0), n)
	}
	switch {
	case workers > 1:
		c.sectorsParallel(dst, src, sectorSize, first, step, decrypt, workers)
	case c.asm != nil:
		// sectorsSerial's first case, written out: a small call (a
		// sector or two) is one frame shorter.
		c.sectorsAsm(dst, src, n, sectorSize, first, step, decrypt)
	default:
		c.sectorsSerial(dst, src, sectorSize, first, step, decrypt)
	}
}

// sectorPiece is the size of the pieces a parallel call is cut into,
// which the calling goroutine and its helpers claim as they finish the
// last (internal/parallel.Run). A helper starts late: on the 2-core Zen 5
// VM this was tuned on, a new goroutine first ran on the other core some
// 100 µs after the go statement at best (the caller never waits for it:
// it works meanwhile); a helper lingering from the call before starts
// within a microsecond (internal/parallel/helpers.go). Pieces must be
// small enough that the helper finds most of the work still there and
// the last ones even out, and large enough that claiming one (an atomic add) and its first tweak's latency
// cost nothing against its work: 128 KiB is 4-6 µs of work per piece.
const sectorPiece = 128 << 10

// sectorsParallel runs the n sectors of src on up to workers goroutines,
// the caller's among them, in pieces of whole sectors. A panic in any
// piece is re-raised here (internal/parallel.Panic, with the stack where
// it began) after every goroutine has stopped. (It is a function of its
// own because the closure's captured arguments move to the heap: the
// serial path must not pay that allocation.)
func (c *Cipher) sectorsParallel(dst, src []byte, sectorSize int, first, step uint64, decrypt bool, workers int) {
	n := len(src) / sectorSize
	// Every worker gets a piece, however small the call.
	grain := max(1, min(sectorPiece/sectorSize, (n+workers-1)/workers))
	parallel.Run(n, grain, workers, func(lo, hi int) error {
		c.sectorsSerial(dst[lo*sectorSize:hi*sectorSize], src[lo*sectorSize:hi*sectorSize], sectorSize, first+uint64(lo)*step, step, decrypt)
		return nil
	})
}

// sectorsSerial runs sectors on the calling goroutine: through an AES
// assembly variant (sectorsAsm), another engine's sector routine, or one
// data unit at a time through the portable engine.
func (c *Cipher) sectorsSerial(dst, src []byte, sectorSize int, first, step uint64, decrypt bool) {
	if c.asm != nil {
		c.sectorsAsm(dst, src, len(src)/sectorSize, sectorSize, first, step, decrypt)
		return
	}
	// Other engines with a bulk sector routine (serpent-avx512) batch
	// their sectors' IV encryptions.
	if se, ok := c.eng.(sectorEngine); ok {
		if decrypt {
			se.decryptSectors(dst, src, sectorSize, first, step)
		} else {
			se.encryptSectors(dst, src, sectorSize, first, step)
		}
		return
	}
	crypt := c.eng.encrypt
	if decrypt {
		crypt = c.eng.decrypt
	}
	for off := 0; off < len(src); off += sectorSize {
		crypt(dst[off:off+sectorSize], src[off:off+sectorSize], tweak128{lo: first}, flagEncryptTweak)
		first += step
	}
}

// sectorsAsm runs sectors through the assembly variant: the sector-batch
// routine, whose batches are sectorBatch sectors side by side, for whole
// batches, and the unit routine, one call per sector, for a last partial
// batch, which the batch routine would run at the cost of a whole one
// (on amd64, with batches of four: one sector of 512 bytes in 87 ns
// against 31 ns for the unit routine, one of 4096 bytes in 510 ns against
// 133 ns, on a Zen 5). Only three 512-byte sectors are cheaper as a
// batch (85 ns against 94 for three unit calls with vaes-avx10_512; the
// other variants break even). n is len(src)/sectorSize.
func (c *Cipher) sectorsAsm(dst, src []byte, n, sectorSize int, first, step uint64, decrypt bool) {
	units := n % sectorBatch
	if units == 3 && sectorSize < 1024 {
		units = 0
	}
	// Whole batches take the slices as they came: their length does not
	// wait for the division that counted the sectors.
	if units == 0 {
		if decrypt {
			c.asm.decryptSectors(dst, src, sectorSize, first, step)
		} else {
			c.asm.encryptSectors(dst, src, sectorSize, first, step)
		}
		return
	}
	if bulk := (n - units) * sectorSize; bulk > 0 {
		if decrypt {
			c.asm.decryptSectors(dst[:bulk], src[:bulk], sectorSize, first, step)
		} else {
			c.asm.encryptSectors(dst[:bulk], src[:bulk], sectorSize, first, step)
		}
		first += uint64(n-units) * step
		dst, src = dst[bulk:], src[bulk:]
	}
	for off := 0; off < len(src); off += sectorSize {
		d, s := dst[off:off+sectorSize], src[off:off+sectorSize]
		if decrypt {
			c.asm.decrypt(d, s, tweak128{lo: first}, flagEncryptTweak)
		} else {
			c.asm.encrypt(d, s, tweak128{lo: first}, flagEncryptTweak)
		}
		first += step
	}
}
