package xts

import (
	"crypto/cipher"
	"encoding/binary"
	"sync"
)

// bulkRoutines are one block cipher's generated XTS routines, bound to the
// expanded data and tweak keys of one Cipher (kept in a heap struct the
// routines read through a pointer, never on the stack).
type bulkRoutines interface {
	// encrypt and decrypt run XTS with the data key over len(src) bytes,
	// a multiple of the engine's group size, from the encrypted tweak
	// (lo, hi), and return the tweak that follows.
	encrypt(dst, src []byte, lo, hi uint64) (uint64, uint64)
	decrypt(dst, src []byte, lo, hi uint64) (uint64, uint64)
	// encryptTweaks encrypts the group-size b in place, block by block,
	// with the tweak key (XTS with the tweak 0 is ECB).
	encryptTweaks(b []byte)
	// wipe clears the expanded keys.
	wipe()
}

// bulkAsmEngine runs a cipher's generated routines over whole groups of
// blocks and the generic engine over the rest of a data unit (the tweak
// encryption, the last blocks, ciphertext stealing) and over units
// shorter than a group. For runs of sectors it encrypts a group's worth of
// IVs at once with the tweak key.
type bulkAsmEngine struct {
	r     bulkRoutines
	group int // bytes per routine step: a multiple of 16, at most 512
	gen   *genericEngine
	ivs   sync.Pool // *[]byte, group bytes: a Cipher is used concurrently
}

func newBulkAsmEngine(r bulkRoutines, group int, k1, k2 cipher.Block) *bulkAsmEngine {
	e := &bulkAsmEngine{r: r, group: group, gen: newGeneric(k1, k2)}
	e.ivs.New = func() any { b := make([]byte, group); return &b }
	return e
}

func (e *bulkAsmEngine) wipe() {
	e.r.wipe()
	e.gen.wipe()
}

func (e *bulkAsmEngine) encrypt(dst, src []byte, t tweak128, flags uint64) tweak128 {
	return e.crypt(dst, src, t, flags, false)
}

func (e *bulkAsmEngine) decrypt(dst, src []byte, t tweak128, flags uint64) tweak128 {
	return e.crypt(dst, src, t, flags, true)
}

func (e *bulkAsmEngine) crypt(dst, src []byte, t tweak128, flags uint64, dec bool) tweak128 {
	n := len(src)
	full := n &^ 15
	if full != n {
		full -= 16 // the last full block goes with the stolen one
	}
	bulk := full - full%e.group
	if bulk == 0 {
		return e.gen.crypt(dst, src, t, flags, dec)
	}
	if flags&flagEncryptTweak != 0 {
		t = encryptTweakInDst(e.gen.k2, dst, src, t)
	}
	if dec {
		t.lo, t.hi = e.r.decrypt(dst[:bulk], src[:bulk], t.lo, t.hi)
	} else {
		t.lo, t.hi = e.r.encrypt(dst[:bulk], src[:bulk], t.lo, t.hi)
	}
	if bulk == n {
		return t
	}
	return e.gen.crypt(dst[bulk:n], src[bulk:], t, flags&^flagEncryptTweak, dec)
}

// encryptTweakInDst returns the tweak t encrypted with k2, using dst's
// first block as scratch (a local array passed to the interface would
// escape and allocate): src's first block is saved and put back, so this
// is harmless in place too.
func encryptTweakInDst(k2 cipher.Block, dst, src []byte, t tweak128) tweak128 {
	s0 := binary.LittleEndian.Uint64(src[:8])
	s1 := binary.LittleEndian.Uint64(src[8:16])
	d := dst[:16]
	binary.LittleEndian.PutUint64(d[:8], t.lo)
	binary.LittleEndian.PutUint64(d[8:], t.hi)
	k2.Encrypt(d, d)
	t = tweak128{binary.LittleEndian.Uint64(d[:8]), binary.LittleEndian.Uint64(d[8:])}
	binary.LittleEndian.PutUint64(d[:8], s0)
	binary.LittleEndian.PutUint64(d[8:], s1)
	return t
}

func (e *bulkAsmEngine) encryptSectors(dst, src []byte, sectorSize int, first, step uint64) {
	e.sectors(dst, src, sectorSize, first, step, false)
}

func (e *bulkAsmEngine) decryptSectors(dst, src []byte, sectorSize int, first, step uint64) {
	e.sectors(dst, src, sectorSize, first, step, true)
}

// sectors runs whole sectors, sector k with the IV first + k*step. The IVs
// of a group's worth of sectors (16 for a 256-byte group) are encrypted
// together with the tweak key, for about what two or three cost one at a
// time (Serpent, measured on Zen 5), which fewer sectors do one by one.
func (e *bulkAsmEngine) sectors(dst, src []byte, sectorSize int, first, step uint64, dec bool) {
	per := e.group / 16
	var p *[]byte
	if len(src) >= 3*sectorSize {
		p = e.ivs.Get().(*[]byte)
	}
	for off := 0; off < len(src); {
		k := min(per, (len(src)-off)/sectorSize)
		if k < 3 {
			for range k {
				e.crypt(dst[off:off+sectorSize], src[off:off+sectorSize], tweak128{lo: first}, flagEncryptTweak, dec)
				off += sectorSize
				first += step
			}
			continue
		}
		ivs := *p
		for i := range per {
			binary.LittleEndian.PutUint64(ivs[16*i:], first+uint64(min(i, k-1))*step)
			binary.LittleEndian.PutUint64(ivs[16*i+8:], 0)
		}
		first += uint64(k) * step
		e.r.encryptTweaks(ivs)
		for i := range k {
			t := tweak128{binary.LittleEndian.Uint64(ivs[16*i:]), binary.LittleEndian.Uint64(ivs[16*i+8:])}
			e.crypt(dst[off:off+sectorSize], src[off:off+sectorSize], t, 0, dec)
			off += sectorSize
		}
	}
	if p != nil {
		clear(*p)
		e.ivs.Put(p)
	}
}
