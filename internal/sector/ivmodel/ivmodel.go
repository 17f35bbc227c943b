// Package ivmodel is the tests' independent model of dm-crypt's IV
// numbering, against which internal/sector and the xts tool are checked.
// It is written for clarity, not speed (big integers), and shares no code
// with the numbering it checks.
package ivmodel

import "math/big"

// IV is the IV dm-crypt gives data sector k: the sector's 512-byte number
// offset + k*(sectorSize/512), computed exactly and then reduced mod 2^64
// as the kernel's sector_t is, then divided by the sector size in 512-byte
// units with iv_large_sectors, then cut to 32 bits for the plain IV
// generator.
func IV(offset, k uint64, sectorSize int, large, plain32 bool) uint64 {
	units := big.NewInt(int64(sectorSize / 512))
	v := new(big.Int).SetUint64(k)
	v.Mul(v, units)
	v.Add(v, new(big.Int).SetUint64(offset))
	v.Mod(v, new(big.Int).Lsh(big.NewInt(1), 64))
	if large {
		v.Quo(v, units)
	}
	if plain32 {
		v.Mod(v, new(big.Int).Lsh(big.NewInt(1), 32))
	}
	return v.Uint64()
}
