// Copyright 2026 The fastxts Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package serpent

import (
	"math/rand/v2"
	"testing"
)

// sboxTables are the S-boxes of the Serpent specification, as tables.
var sboxTables = [8][16]uint8{
	{3, 8, 15, 1, 10, 6, 5, 11, 14, 13, 4, 2, 7, 0, 9, 12},
	{15, 12, 2, 7, 9, 0, 5, 10, 1, 11, 14, 8, 6, 13, 3, 4},
	{8, 6, 7, 9, 3, 12, 10, 15, 13, 1, 14, 4, 0, 11, 5, 2},
	{0, 15, 11, 8, 12, 9, 6, 3, 13, 1, 2, 4, 10, 7, 5, 14},
	{1, 15, 8, 3, 12, 0, 11, 6, 2, 5, 4, 10, 9, 14, 7, 13},
	{15, 5, 2, 11, 4, 10, 9, 12, 0, 3, 14, 8, 13, 6, 7, 1},
	{7, 2, 12, 5, 8, 4, 6, 11, 14, 9, 1, 15, 13, 3, 10, 0},
	{1, 13, 15, 0, 14, 8, 2, 11, 7, 4, 12, 10, 9, 3, 5, 6},
}

// TestSboxes checks every bitsliced S-box and inverse on all 16 inputs at
// every one of the 32 bit positions.
func TestSboxes(t *testing.T) {
	for i := range 8 {
		var inv [16]uint8
		for x, y := range sboxTables[i] {
			inv[y] = uint8(x)
		}
		for _, c := range []struct {
			name  string
			f     func(x0, x1, x2, x3 uint32) (uint32, uint32, uint32, uint32)
			table [16]uint8
		}{
			{"S", sboxFuncs[i], sboxTables[i]},
			{"InvS", sboxInvFuncs[i], inv},
		} {
			// Bit position k of the words holds the nibble (k + shift) mod 16.
			for shift := range 16 {
				var in [4]uint32
				for k := range 32 {
					nib := uint32(k+shift) % 16
					for j := range 4 {
						in[j] |= (nib >> j & 1) << k
					}
				}
				var out [4]uint32
				out[0], out[1], out[2], out[3] = c.f(in[0], in[1], in[2], in[3])
				for k := range 32 {
					nib := (k + shift) % 16
					var got uint8
					for j := range 4 {
						got |= uint8(out[j]>>k&1) << j
					}
					if got != c.table[nib] {
						t.Fatalf("%s%d(%d) at bit %d = %d, want %d", c.name, i, nib, k, got, c.table[nib])
					}
				}
			}
		}
	}
}

// TestLinearTransform checks that lt is linear over GF(2) and that ltInv
// inverts it (the rounds as a whole are checked by the known answers).
func TestLinearTransform(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		x := [4]uint32{rng.Uint32(), rng.Uint32(), rng.Uint32(), rng.Uint32()}
		y := [4]uint32{rng.Uint32(), rng.Uint32(), rng.Uint32(), rng.Uint32()}
		var lx, ly, lxy [4]uint32
		lx[0], lx[1], lx[2], lx[3] = lt(x[0], x[1], x[2], x[3])
		ly[0], ly[1], ly[2], ly[3] = lt(y[0], y[1], y[2], y[3])
		lxy[0], lxy[1], lxy[2], lxy[3] = lt(x[0]^y[0], x[1]^y[1], x[2]^y[2], x[3]^y[3])
		for i := range 4 {
			if lxy[i] != lx[i]^ly[i] {
				t.Fatalf("lt(%x ^ %x) != lt(%x) ^ lt(%x)", x, y, x, y)
			}
		}
		var z [4]uint32
		z[0], z[1], z[2], z[3] = ltInv(lx[0], lx[1], lx[2], lx[3])
		if z != x {
			t.Fatalf("ltInv(lt(%x)) = %x", x, z)
		}
	}
}
