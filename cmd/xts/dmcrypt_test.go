package main

import (
	"errors"
	"testing"

	"github.com/fastxts/xts/internal/sector/ivmodel"
)

// TestIVModel checks that the flags' numbering, through internal/sector,
// gives every sector the IV of ivmodel.IV, within the runs the cipher makes,
// around both wraps. (internal/sector tests the rules themselves, and
// where the runs are cut, against its own model.)
func TestIVModel(t *testing.T) {
	const top = uint64(1<<64 - 1)
	for _, ss := range []int{512, 1024, 2048, 4096} {
		u := uint64(ss / 512)
		for _, large := range []bool{false, true} {
			for _, plain32 := range []bool{false, true} {
				for _, skip := range []uint64{0, u * 1000, 1<<32 - 5*u, (1<<32 - 5) * u, top - top%u - 7*u, top - top%u} {
					n := numbering{sectorSize: ss, large: large, plain32: plain32, skip: skip}
					sn := n.sector()
					sn.Split(0, 20, func(k, c, first uint64) {
						for j := range c {
							want := ivmodel.IV(skip, k+j, ss, large, plain32)
							if got := first + j*sn.Step(); got != want {
								t.Errorf("%+v: sector %d gets IV %d in its run, model %d", n, k+j, got, want)
							}
						}
					})
				}
			}
		}
	}
}

func TestNumberingValidate(t *testing.T) {
	for _, c := range []struct {
		n  numbering
		ok bool
	}{
		{numbering{sectorSize: 4096, skip: 12, large: true}, false},
		{numbering{sectorSize: 512, skip: 3}, true},
		{numbering{sectorSize: 4096, skip: 16}, true},
		{numbering{sectorSize: 4096, skip: 12}, false},
		{numbering{sectorSize: 2048, skip: 2}, false},
		{numbering{sectorSize: 1000}, false},
		{numbering{sectorSize: 8192}, false},
	} {
		err := c.n.validate()
		if (err == nil) != c.ok {
			t.Errorf("%+v: validate = %v, want ok %v", c.n, err, c.ok)
		}
		var u *usageError
		if err != nil && !errors.As(err, &u) {
			t.Errorf("%+v: validate = %v, not a usage error", c.n, err)
		}
	}
}

func TestNumberingString(t *testing.T) {
	for _, c := range []struct {
		n    numbering
		want string
	}{
		{numbering{sectorSize: 512}, "aes-xts-plain64, 512-byte sectors, IVs count 512-byte units from 0"},
		{numbering{sectorSize: 4096, large: true, plain32: true, skip: 1<<35 + 64}, "aes-xts-plain, 4096-byte sectors, IVs count 4096-byte sectors from 8"},
	} {
		if got := c.n.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.n, got, c.want)
		}
	}
}
