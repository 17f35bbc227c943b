package sector

import "fmt"

// Numbering is dm-crypt's IV numbering: which IV (the XTS tweak, or the
// CBC IV generator's sector number) each sector of a segment is
// encrypted under.
//
// dm-crypt counts in 512-byte units. The IV of the data sector that starts
// at 512-byte unit u of the segment is u + Offset (cryptsetup's --skip,
// LUKS2's iv_tweak). With LargeIV (iv_large_sectors) that number is
// divided by the sector size in 512-byte units, so consecutive sectors get
// consecutive IVs; without it a 4096-byte sector k gets Offset + 8k. The
// plain IV generator (Plain32) keeps only the low 32 bits: it wraps to 0
// after 2^32 - 1; plain64 and essiv keep all 64.
type Numbering struct {
	SectorSize int    // bytes: 512, 1024, 2048 or 4096
	LargeIV    bool   // iv_large_sectors
	Plain32    bool   // the plain IV generator (aes-xts-plain, aes-cbc-plain)
	Offset     uint64 // IV offset, in 512-byte units
}

// validSectorSize reports whether dm-crypt takes ss as a sector size.
func validSectorSize(ss int) bool {
	return ss == 512 || ss == 1024 || ss == 2048 || ss == 4096
}

// Validate checks what dm-crypt requires of a plain-mode table: a sector
// size of 512, 1024, 2048 or 4096 bytes and, with sectors larger than 512
// bytes, an IV offset that is a whole number of sectors (the kernel
// refuses the table otherwise). Its messages use cryptsetup's option
// names, --sector-size and --skip.
func (n Numbering) Validate() error {
	if !validSectorSize(n.SectorSize) {
		return fmt.Errorf("--sector-size %d: must be 512, 1024, 2048 or 4096", n.SectorSize)
	}
	if u := n.UnitsPerSector(); n.Offset%u != 0 {
		return fmt.Errorf("--skip %d: with --sector-size %d it must be a multiple of %d (dm-crypt requires the IV offset to be sector-aligned)", n.Offset, n.SectorSize, u)
	}
	return nil
}

// UnitsPerSector is the sector size in 512-byte units.
func (n Numbering) UnitsPerSector() uint64 { return uint64(n.SectorSize / 512) }

// IV returns the IV of sector k (counted in sectors of SectorSize bytes
// from the start of the segment).
func (n Numbering) IV(k uint64) uint64 {
	v := n.Offset + k*n.UnitsPerSector() // sector_t arithmetic: wraps mod 2^64 first,
	if n.LargeIV {                       // then the division
		v /= n.UnitsPerSector()
	}
	if n.Plain32 {
		v &= 1<<32 - 1
	}
	return v
}

// Step is how much the IV grows from one sector to the next within a
// run: 1 with LargeIV, else the sector size in 512-byte units (an XTS
// cipher built with xts.WithTweakUnit(512) counts the same way).
func (n Numbering) Step() uint64 {
	if n.LargeIV {
		return 1
	}
	return n.UnitsPerSector()
}

// Split calls fn for consecutive runs of the sectors k0 .. k0+count-1,
// each given by its first sector, its length and its first IV, such that
// within a run sector k0+j has IV firstIV + j*Step() with no wrap. A run
// ends where the IV jumps back: with Plain32 at the sector whose IV wraps
// to 0, and with LargeIV where the 512-byte count wraps modulo 2^64
// before its division (2^64 - 8 + 8 = 0, so the IV falls from 2^61 - 1
// to 0). Both can fall anywhere in a call. Without LargeIV the IV is the
// 512-byte count itself, which an XTS cipher's tweak wraps modulo 2^64 as
// the kernel does: no cut there.
func (n Numbering) Split(k0, count uint64, fn func(k, c, firstIV uint64)) {
	units, step := n.UnitsPerSector(), n.Step()
	for count > 0 {
		first := n.IV(k0)
		c := count
		if n.Plain32 {
			// Sectors before the IV reaches 2^32: first + j*step < 2^32.
			if left := ceilDiv(1<<32-first, step); left < c {
				c = left
			}
		}
		if u := n.Offset + k0*units; n.LargeIV && u != 0 {
			// Sectors before the 512-byte count wraps to 0; -u is 2^64 - u.
			if left := ceilDiv(-u, units); left < c {
				c = left
			}
		}
		fn(k0, c, first)
		k0 += c
		count -= c
	}
}

// ceilDiv is a/b rounded up, for b > 0, without overflow.
func ceilDiv(a, b uint64) uint64 {
	q := a / b
	if a%b != 0 {
		q++
	}
	return q
}

// String describes the numbering for messages, such as "512-byte sectors,
// IVs count 512-byte units from 0".
func (n Numbering) String() string {
	unit := "512-byte units"
	if n.LargeIV {
		unit = fmt.Sprintf("%d-byte sectors", n.SectorSize)
	}
	return fmt.Sprintf("%d-byte sectors, IVs count %s from %d", n.SectorSize, unit, n.IV(0))
}
