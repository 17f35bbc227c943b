package main

import "fmt"

// numbering is dm-crypt's IV numbering for plain-mode XTS: which tweak
// (sector number) each sector of the image is encrypted under.
//
// dm-crypt counts in 512-byte units. The IV of the data sector that starts
// at 512-byte unit u of the mapped device is u + iv_offset (cryptsetup's
// --skip). With iv_large_sectors that number is divided by the sector size
// in 512-byte units, so consecutive sectors get consecutive IVs; without
// it a 4096-byte sector k gets skip + 8k. The plain IV generator keeps
// only the low 32 bits (it wraps to 0 after 2^32 - 1); plain64 keeps all 64.
type numbering struct {
	sectorSize int    // 512, 1024, 2048 or 4096
	large      bool   // --iv-large-sectors
	plain32    bool   // aes-xts-plain rather than aes-xts-plain64
	skip       uint64 // --skip, in 512-byte units
}

// unitsPerSector is the sector size in 512-byte units.
func (n numbering) unitsPerSector() uint64 { return uint64(n.sectorSize / 512) }

// validate checks what dm-crypt requires: with sectors larger than 512
// bytes the IV offset must be a whole number of sectors (the kernel
// refuses the table otherwise).
func (n numbering) validate() error {
	switch n.sectorSize {
	case 512, 1024, 2048, 4096:
	default:
		return usagef("--sector-size %d: must be 512, 1024, 2048 or 4096", n.sectorSize)
	}
	if u := n.unitsPerSector(); n.skip%u != 0 {
		return usagef("--skip %d: with --sector-size %d it must be a multiple of %d (dm-crypt requires the IV offset to be sector-aligned)", n.skip, n.sectorSize, u)
	}
	return nil
}

// iv returns the IV number dm-crypt uses for data sector k (counted from
// the start of the decrypted image, in sectors of sectorSize bytes).
func (n numbering) iv(k uint64) uint64 {
	v := n.skip + k*n.unitsPerSector() // sector_t arithmetic: wraps mod 2^64 first,
	if n.large {                       // then the shift
		v /= n.unitsPerSector()
	}
	if n.plain32 {
		v &= 0xffffffff
	}
	return v
}

// step is how much the IV grows from one sector to the next, which is also
// the tweak unit the cipher must be built with: xts.WithTweakUnit(512)
// when the IV counts 512-byte units.
func (n numbering) step() uint64 {
	if n.large {
		return 1
	}
	return n.unitsPerSector()
}

// split calls fn for consecutive runs of the sectors k0 .. k0+count-1, each
// run given by its first sector, its length and its first IV, such that
// within a run the IV grows by step() per sector with no wrap. A run ends
// where the IV jumps back: for plain (32-bit) numbering at the sector
// whose IV wraps to 0, and with --iv-large-sectors where the 512-byte
// count wraps modulo 2^64 before its division (2^64 - 8 + 8 = 0, so the
// IV falls from 2^61 - 1 to 0). Both can fall in the middle of a chunk.
// Without --iv-large-sectors the IV is the 512-byte count itself, which
// the cipher wraps modulo 2^64 as the kernel does: no cut there.
func (n numbering) split(k0, count uint64, fn func(k, c, firstIV uint64)) {
	units := n.unitsPerSector()
	for count > 0 {
		first := n.iv(k0)
		c := count
		if n.plain32 {
			// Sectors left before the IV reaches 2^32. first is a multiple
			// of step() (skip is sector-aligned and 2^32 is a multiple of
			// every step), so this division is exact.
			if left := (1<<32 - first) / n.step(); left < c {
				c = left
			}
		}
		if u := n.skip + k0*units; n.large && u != 0 {
			// Sectors left before the 512-byte count wraps to 0; -u is
			// 2^64 - u, a multiple of units like u.
			if left := -u / units; left < c {
				c = left
			}
		}
		fn(k0, c, first)
		k0 += c
		count -= c
	}
}

// String describes the numbering for -v and error messages.
func (n numbering) String() string {
	mode := "plain64"
	if n.plain32 {
		mode = "plain"
	}
	unit := "512-byte units"
	if n.large {
		unit = fmt.Sprintf("%d-byte sectors", n.sectorSize)
	}
	return fmt.Sprintf("aes-xts-%s, %d-byte sectors, IVs count %s from %d", mode, n.sectorSize, unit, n.iv(0))
}
