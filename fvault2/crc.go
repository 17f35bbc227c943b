package fvault2

import (
	"encoding/binary"
	"hash/crc32"
)

// weakCRC32C is Core Storage's checksum: CRC-32C of p from the initial
// value init, without the final inversion (and without the usual
// inversion of the initial value: init is used as it is stored).
func weakCRC32C(init uint32, p []byte) uint32 {
	// crc32.Update inverts its input and its output; undo both. The
	// table is crc32's own, built at the first call (not in a package
	// variable: with SSE4.2 building it costs ~1 ms, which every xts
	// command would pay at start-up).
	return ^crc32.Update(^init, crc32.MakeTable(crc32.Castagnoli), p)
}

// checksumOK reports whether block (a physical volume header or a
// metadata block) holds, in its first 8 bytes, the checksum of the rest
// and the initial value it was computed from.
func checksumOK(block []byte) bool {
	if len(block) < 8 {
		return false
	}
	sum := binary.LittleEndian.Uint32(block[0:])
	init := binary.LittleEndian.Uint32(block[4:])
	return weakCRC32C(init, block[8:]) == sum
}
