package main

import (
	"fmt"

	"github.com/fastxts/xts/internal/sector"
)

// numbering is dm-crypt's IV numbering for plain mode, as the flags give
// it; the rules (which IV each sector gets, where runs cut at the plain
// IV's 32-bit wrap and the iv_large_sectors 2^64 wrap) are
// internal/sector's Numbering, the one the luks package uses too.
type numbering struct {
	sectorSize int    // 512, 1024, 2048 or 4096
	large      bool   // --iv-large-sectors
	cipher     string // the block cipher: "aes" (the zero value reads as aes)
	plain32    bool   // aes-xts-plain rather than aes-xts-plain64
	skip       uint64 // --skip, in 512-byte units
}

// sector is the numbering for internal/sector.
func (n numbering) sector() sector.Numbering {
	return sector.Numbering{SectorSize: n.sectorSize, LargeIV: n.large, Plain32: n.plain32, Offset: n.skip}
}

// unitsPerSector is the sector size in 512-byte units.
func (n numbering) unitsPerSector() uint64 { return n.sector().UnitsPerSector() }

// validate checks what dm-crypt requires: a sector size of 512 to 4096
// bytes and, with sectors larger than 512 bytes, an IV offset that is a
// whole number of sectors (the kernel refuses the table otherwise).
func (n numbering) validate() error {
	if err := n.sector().Validate(); err != nil {
		return usagef("%v", err)
	}
	return nil
}

// String describes the numbering for -v and error messages.
func (n numbering) String() string {
	mode := "plain64"
	if n.plain32 {
		mode = "plain"
	}
	c := n.cipher
	if c == "" {
		c = "aes"
	}
	return fmt.Sprintf("%s-xts-%s, %v", c, mode, n.sector())
}
