package main

import (
	"fmt"
	"math/big"
	"testing"
)

// dmIV is an independent model of the IV dm-crypt gives data sector k:
// the sector's 512-byte number skip + k*(sectorSize/512), computed exactly
// in big integers and then reduced mod 2^64 as the kernel's sector_t is,
// then divided by the sector size in 512-byte units with
// --iv-large-sectors, then cut to 32 bits for aes-xts-plain.
func dmIV(skip, k uint64, sectorSize int, large, plain32 bool) uint64 {
	units := big.NewInt(int64(sectorSize / 512))
	v := new(big.Int).SetUint64(k)
	v.Mul(v, units)
	v.Add(v, new(big.Int).SetUint64(skip))
	v.Mod(v, new(big.Int).Lsh(big.NewInt(1), 64))
	if large {
		v.Quo(v, units)
	}
	if plain32 {
		v.Mod(v, new(big.Int).Lsh(big.NewInt(1), 32))
	}
	return v.Uint64()
}

// TestIVModel checks numbering.iv and, through split, the IV every sector
// of a run gets (first + j*step, as the cipher counts) against dmIV, around
// both wraps.
func TestIVModel(t *testing.T) {
	const top = uint64(1<<64 - 1)
	for _, ss := range []int{512, 1024, 2048, 4096} {
		u := uint64(ss / 512)
		for _, large := range []bool{false, true} {
			for _, plain32 := range []bool{false, true} {
				for _, skip := range []uint64{0, u * 1000, 1<<32 - 5*u, (1<<32 - 5) * u, top - top%u - 7*u, top - top%u} {
					n := numbering{sectorSize: ss, large: large, plain32: plain32, skip: skip}
					n.split(0, 20, func(k, c, first uint64) {
						for j := range c {
							want := dmIV(skip, k+j, ss, large, plain32)
							if got := n.iv(k + j); got != want {
								t.Errorf("%+v: iv(%d) = %d, model %d", n, k+j, got, want)
							}
							if got := first + j*n.step(); got != want {
								t.Errorf("%+v: sector %d gets IV %d in its run, model %d", n, k+j, got, want)
							}
						}
					})
				}
			}
		}
	}
}

// TestSplitAtWrap checks where runs of sectors are cut: only plain's
// 32-bit IV splits, exactly at the sector whose IV wraps to 0.
func TestSplitAtWrap(t *testing.T) {
	const two32 uint64 = 1 << 32
	cases := []struct {
		n         numbering
		k0, count uint64
		want      string
	}{
		{numbering{sectorSize: 512}, 0, 10, "[0+10@0]"},
		{numbering{sectorSize: 512, plain32: true, skip: two32 - 3}, 0, 10, "[0+3@4294967293 3+7@0]"},
		{numbering{sectorSize: 512, plain32: true, skip: two32 - 3}, 3, 10, "[3+10@0]"},
		{numbering{sectorSize: 512, plain32: true, skip: two32 - 3}, 2, 1, "[2+1@4294967295]"},
		// 4096-byte sectors counting 512-byte units: IVs step by 8.
		{numbering{sectorSize: 4096, plain32: true, skip: two32 - 16}, 0, 5, "[0+2@4294967280 2+3@0]"},
		// Large IVs: skip is in 512-byte units, the IV in sectors.
		{numbering{sectorSize: 4096, large: true, plain32: true, skip: (two32 - 1) * 8}, 0, 3, "[0+1@4294967295 1+2@0]"},
		// plain64 never splits, not even where the 64-bit IV wraps.
		{numbering{sectorSize: 512, skip: 1<<64 - 2}, 0, 4, "[0+4@18446744073709551614]"},
		// Large IVs: the 512-byte count wraps mod 2^64 before the shift,
		// so sector 1 of --skip 2^64-8 has IV 0, not 2^61.
		{numbering{sectorSize: 4096, large: true, skip: 1<<64 - 8}, 0, 3, "[0+1@2305843009213693951 1+2@0]"},
		{numbering{sectorSize: 1024, large: true, skip: 1<<64 - 4}, 1, 3, "[1+1@9223372036854775807 2+2@0]"},
		// A run that wraps more than once.
		{numbering{sectorSize: 4096, large: true, plain32: true}, two32 - 1, two32 + 2, "[4294967295+1@4294967295 4294967296+4294967296@0 8589934592+1@0]"},
	}
	for _, c := range cases {
		var got []string
		c.n.split(c.k0, c.count, func(k, n, iv uint64) {
			got = append(got, fmt.Sprintf("%d+%d@%d", k, n, iv))
			// Inside a run the IVs just count up by step, never wrapping.
			if c.n.plain32 && iv+(n-1)*c.n.step() >= two32 {
				t.Errorf("%+v: run %d+%d from IV %d crosses 2^32", c.n, k, n, iv)
			}
			for _, j := range []uint64{0, n - 1} {
				if want := c.n.iv(k + j); iv+j*c.n.step() != want {
					t.Errorf("%+v: sector %d has IV %d in the run, numbering says %d", c.n, k+j, iv+j*c.n.step(), want)
				}
			}
		})
		if s := fmt.Sprint(got); s != c.want {
			t.Errorf("%+v split(%d, %d) = %s, want %s", c.n, c.k0, c.count, s, c.want)
		}
	}
}

func TestNumberingValidate(t *testing.T) {
	for _, c := range []struct {
		n  numbering
		ok bool
	}{
		{numbering{sectorSize: 512, skip: 3}, true},
		{numbering{sectorSize: 4096, skip: 16}, true},
		{numbering{sectorSize: 4096, skip: 12}, false},
		{numbering{sectorSize: 2048, skip: 2}, false},
		{numbering{sectorSize: 1000}, false},
		{numbering{sectorSize: 8192}, false},
	} {
		if err := c.n.validate(); (err == nil) != c.ok {
			t.Errorf("%+v: validate = %v, want ok %v", c.n, err, c.ok)
		}
	}
}
