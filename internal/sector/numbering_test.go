package sector

import (
	"fmt"
	"testing"

	"github.com/fastxts/xts/internal/sector/ivmodel"
)

// TestIVModel checks Numbering.IV and, through Split, the IV every sector
// of a run gets (first + j*Step, as the cipher counts) against ivmodel.IV,
// around both wraps, with aligned offsets (dm-crypt) and unaligned ones
// (a LUKS2 iv_tweak is not checked for alignment).
func TestIVModel(t *testing.T) {
	const top = uint64(1<<64 - 1)
	for _, ss := range []int{512, 1024, 2048, 4096} {
		u := uint64(ss / 512)
		for _, large := range []bool{false, true} {
			for _, plain32 := range []bool{false, true} {
				for _, off := range []uint64{0, u * 1000, 1<<32 - 5*u, (1<<32 - 5) * u, top - top%u - 7*u, top - top%u, 1<<32 - 5*u + 1, top - 7*u, 3} {
					n := Numbering{SectorSize: ss, LargeIV: large, Plain32: plain32, Offset: off}
					var covered uint64
					n.Split(0, 20, func(k, c, first uint64) {
						if k != covered || c == 0 {
							t.Errorf("%+v: run %d+%d after %d sectors", n, k, c, covered)
						}
						covered += c
						for j := range c {
							want := ivmodel.IV(off, k+j, ss, large, plain32)
							if got := n.IV(k + j); got != want {
								t.Errorf("%+v: IV(%d) = %d, model %d", n, k+j, got, want)
							}
							if got := first + j*n.Step(); got != want {
								t.Errorf("%+v: sector %d gets IV %d in its run, model %d", n, k+j, got, want)
							}
						}
					})
					if covered != 20 {
						t.Errorf("%+v: runs cover %d of 20 sectors", n, covered)
					}
				}
			}
		}
	}
}

// TestSplitAtWrap checks where runs of sectors are cut: only where the IV
// jumps back, exactly at the sector whose IV wraps.
func TestSplitAtWrap(t *testing.T) {
	const two32 uint64 = 1 << 32
	cases := []struct {
		n         Numbering
		k0, count uint64
		want      string
	}{
		{Numbering{SectorSize: 512}, 0, 10, "[0+10@0]"},
		{Numbering{SectorSize: 512, Plain32: true, Offset: two32 - 3}, 0, 10, "[0+3@4294967293 3+7@0]"},
		{Numbering{SectorSize: 512, Plain32: true, Offset: two32 - 3}, 3, 10, "[3+10@0]"},
		{Numbering{SectorSize: 512, Plain32: true, Offset: two32 - 3}, 2, 1, "[2+1@4294967295]"},
		// 4096-byte sectors counting 512-byte units: IVs step by 8.
		{Numbering{SectorSize: 4096, Plain32: true, Offset: two32 - 16}, 0, 5, "[0+2@4294967280 2+3@0]"},
		// An unaligned offset (LUKS2 iv_tweak): the third sector's IV,
		// 2^32 - 15 + 16, wraps to 1.
		{Numbering{SectorSize: 4096, Plain32: true, Offset: two32 - 15}, 0, 5, "[0+2@4294967281 2+3@1]"},
		// Large IVs: the offset is in 512-byte units, the IV in sectors.
		{Numbering{SectorSize: 4096, LargeIV: true, Plain32: true, Offset: (two32 - 1) * 8}, 0, 3, "[0+1@4294967295 1+2@0]"},
		// plain64 never splits, not even where the 64-bit IV wraps.
		{Numbering{SectorSize: 512, Offset: 1<<64 - 2}, 0, 4, "[0+4@18446744073709551614]"},
		// Large IVs: the 512-byte count wraps mod 2^64 before the shift,
		// so sector 1 of offset 2^64-8 has IV 0, not 2^61.
		{Numbering{SectorSize: 4096, LargeIV: true, Offset: 1<<64 - 8}, 0, 3, "[0+1@2305843009213693951 1+2@0]"},
		{Numbering{SectorSize: 1024, LargeIV: true, Offset: 1<<64 - 4}, 1, 3, "[1+1@9223372036854775807 2+2@0]"},
		// A run that wraps more than once.
		{Numbering{SectorSize: 4096, LargeIV: true, Plain32: true}, two32 - 1, two32 + 2, "[4294967295+1@4294967295 4294967296+4294967296@0 8589934592+1@0]"},
		{Numbering{SectorSize: 512}, 5, 0, "[]"},
	}
	for _, c := range cases {
		var got []string
		c.n.Split(c.k0, c.count, func(k, n, iv uint64) {
			got = append(got, fmt.Sprintf("%d+%d@%d", k, n, iv))
			if c.n.Plain32 && iv+(n-1)*c.n.Step() >= two32 {
				t.Errorf("%+v: run %d+%d from IV %d crosses 2^32", c.n, k, n, iv)
			}
			for _, j := range []uint64{0, n - 1} {
				if want := c.n.IV(k + j); iv+j*c.n.Step() != want {
					t.Errorf("%+v: sector %d has IV %d in the run, IV says %d", c.n, k+j, iv+j*c.n.Step(), want)
				}
			}
		})
		if s := fmt.Sprint(got); s != c.want {
			t.Errorf("%+v Split(%d, %d) = %s, want %s", c.n, c.k0, c.count, s, c.want)
		}
	}
}

func TestNumberingValidate(t *testing.T) {
	for _, c := range []struct {
		n    Numbering
		want string
	}{
		{Numbering{SectorSize: 512, Offset: 3}, ""},
		{Numbering{SectorSize: 4096, Offset: 16, LargeIV: true}, ""},
		{Numbering{SectorSize: 4096, Offset: 12}, "--skip 12: with --sector-size 4096 it must be a multiple of 8 (dm-crypt requires the IV offset to be sector-aligned)"},
		{Numbering{SectorSize: 2048, Offset: 2}, "--skip 2: with --sector-size 2048 it must be a multiple of 4 (dm-crypt requires the IV offset to be sector-aligned)"},
		{Numbering{SectorSize: 1000}, "--sector-size 1000: must be 512, 1024, 2048 or 4096"},
		{Numbering{SectorSize: 8192}, "--sector-size 8192: must be 512, 1024, 2048 or 4096"},
		{Numbering{}, "--sector-size 0: must be 512, 1024, 2048 or 4096"},
	} {
		err := c.n.Validate()
		if got := fmt.Sprint(err); (err == nil) != (c.want == "") || err != nil && got != c.want {
			t.Errorf("%+v: Validate = %v, want %q", c.n, err, c.want)
		}
	}
}

func TestNumberingString(t *testing.T) {
	for _, c := range []struct {
		n    Numbering
		want string
	}{
		{Numbering{SectorSize: 512}, "512-byte sectors, IVs count 512-byte units from 0"},
		{Numbering{SectorSize: 4096, LargeIV: true, Offset: 64}, "4096-byte sectors, IVs count 4096-byte sectors from 8"},
		{Numbering{SectorSize: 512, Plain32: true, Offset: 1<<32 + 5}, "512-byte sectors, IVs count 512-byte units from 5"},
	} {
		if got := c.n.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.n, got, c.want)
		}
	}
}
