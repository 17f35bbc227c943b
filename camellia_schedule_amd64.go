//go:build !purego

package xts

import (
	"encoding/binary"
	"math/bits"

	"github.com/fastxts/xts/internal/cipherspec"
)

// Camellia's key schedule (RFC 3713, section 2.2), recomputed here for the
// assembly routine: this package cannot import package camellia (whose
// tests import this one). Unlike that package's table-driven F, the F here
// reads every S-box entry for every byte: constant time, at 6 F calls ×
// 8 bytes × 256 entries (about 12k steps) per key.

// camelliaSchedule is one direction's subkeys in the order the rounds use
// them: [0], [1] whitening before; [2..7] rounds 1-6; [8], [9] FL, FL⁻¹;
// [10..15] rounds 7-12; [16], [17]; [18..23] rounds 13-18; [24], [25] and
// [26..31] rounds 19-24 (192- and 256-bit keys); [32], [33] whitening
// after (applied to the swapped halves).
type camelliaSchedule [34]uint64

// camelliaSbox1 is SBOX1 of RFC 3713, section 2.4.4 (internal/cipherspec).
var camelliaSbox1 = &cipherspec.CamelliaSBOX1

// camelliaS1 is SBOX1[x], reading every entry (no secret-dependent
// address).
func camelliaS1(x byte) byte {
	var out byte
	for i := range 256 {
		eq := byte(int32(uint32(x^byte(i))-1) >> 31) // 0xff when x == i
		out |= camelliaSbox1[i] & eq
	}
	return out
}

// camelliaF is the F-function of RFC 3713, section 2.4.1, of x = input ⊕
// subkey.
func camelliaF(x uint64) uint64 {
	var t [8]byte
	for i := range 8 {
		v := byte(x >> (56 - 8*i))
		switch i {
		case 0, 7: // SBOX1
			t[i] = camelliaS1(v)
		case 1, 4: // SBOX2
			t[i] = bits.RotateLeft8(camelliaS1(v), 1)
		case 2, 5: // SBOX3
			t[i] = bits.RotateLeft8(camelliaS1(v), -1)
		default: // SBOX4
			t[i] = camelliaS1(bits.RotateLeft8(v, 1))
		}
	}
	y := [8]byte{
		t[0] ^ t[2] ^ t[3] ^ t[5] ^ t[6] ^ t[7],
		t[0] ^ t[1] ^ t[3] ^ t[4] ^ t[6] ^ t[7],
		t[0] ^ t[1] ^ t[2] ^ t[4] ^ t[5] ^ t[7],
		t[1] ^ t[2] ^ t[3] ^ t[4] ^ t[5] ^ t[6],
		t[0] ^ t[1] ^ t[5] ^ t[6] ^ t[7],
		t[1] ^ t[2] ^ t[4] ^ t[6] ^ t[7],
		t[2] ^ t[3] ^ t[4] ^ t[5] ^ t[7],
		t[0] ^ t[3] ^ t[4] ^ t[5] ^ t[6],
	}
	return binary.BigEndian.Uint64(y[:])
}

// camellia128 is a 128-bit value, most significant half first.
type camellia128 [2]uint64

// rotl returns v <<< n (0 <= n < 128).
func (v camellia128) rotl(n uint) camellia128 {
	if n >= 64 {
		v = camellia128{v[1], v[0]}
		n -= 64
	}
	if n == 0 {
		return v
	}
	return camellia128{v[0]<<n | v[1]>>(64-n), v[1]<<n | v[0]>>(64-n)}
}

// camelliaExpand computes the encryption and decryption schedules of a
// 16-, 24- or 32-byte key and returns the number of rounds (18 or 24).
func camelliaExpand(enc, dec *camelliaSchedule, key []byte) int {
	be := binary.BigEndian
	kl := camellia128{be.Uint64(key), be.Uint64(key[8:])}
	var kr camellia128
	switch len(key) {
	case 24:
		r := be.Uint64(key[16:])
		kr = camellia128{r, ^r}
	case 32:
		kr = camellia128{be.Uint64(key[16:]), be.Uint64(key[24:])}
	}
	sigma := [6]uint64{
		0xA09E667F3BCC908B, 0xB67AE8584CAA73B2, 0xC6EF372FE94F82BE,
		0x54FF53A5F1D36F1C, 0x10E527FADE682D1D, 0xB05688C2B3E6C1FD,
	}
	d1, d2 := kl[0]^kr[0], kl[1]^kr[1]
	d2 ^= camelliaF(d1 ^ sigma[0])
	d1 ^= camelliaF(d2 ^ sigma[1])
	d1 ^= kl[0]
	d2 ^= kl[1]
	d2 ^= camelliaF(d1 ^ sigma[2])
	d1 ^= camelliaF(d2 ^ sigma[3])
	ka := camellia128{d1, d2}

	// Subkeys in order of use when encrypting: kw1, kw2, then per group
	// of six rounds k's and an FL pair, then kw3, kw4. src names the
	// 128-bit value and rotation of each pair (RFC 3713, section 2.2).
	type pairOf struct {
		v camellia128
		n uint
	}
	var pairs []pairOf
	rounds := 18
	if len(key) == 16 {
		pairs = []pairOf{
			{kl, 0},                     // kw1, kw2
			{ka, 0}, {kl, 15}, {ka, 15}, // k1-k6
			{ka, 30},               // ke1, ke2
			{kl, 45}, {}, {ka, 60}, // k7-k12 (k9, k10 below)
			{kl, 77},                      // ke3, ke4
			{kl, 94}, {ka, 94}, {kl, 111}, // k13-k18
			{ka, 111}, // kw3, kw4
		}
	} else {
		d1, d2 = ka[0]^kr[0], ka[1]^kr[1]
		d2 ^= camelliaF(d1 ^ sigma[4])
		d1 ^= camelliaF(d2 ^ sigma[5])
		kb := camellia128{d1, d2}
		pairs = []pairOf{
			{kl, 0},
			{kb, 0}, {kr, 15}, {ka, 15},
			{kr, 30},
			{kb, 30}, {kl, 45}, {ka, 45},
			{kl, 60},
			{kr, 60}, {kb, 60}, {kl, 77},
			{ka, 77},
			{kr, 94}, {ka, 94}, {kl, 111},
			{kb, 111},
		}
		rounds = 24
	}
	var seq []uint64 // subkeys in encryption order, FL pairs included
	for i, p := range pairs {
		r := p.v.rotl(p.n)
		if len(key) == 16 && i == 6 { // k9 = (KA <<< 45) high, k10 = (KL <<< 60) low
			r = camellia128{ka.rotl(45)[0], kl.rotl(60)[1]}
		}
		seq = append(seq, r[0], r[1])
	}
	// seq: kw1 kw2 | 6 k | ke ke | 6 k | ke ke | 6 k | [ke ke | 6 k] | kw3 kw4.
	groups := rounds / 6
	enc[0], enc[1] = seq[0], seq[1]
	for g := range groups {
		copy(enc[2+8*g:8+8*g], seq[2+8*g:8+8*g])
		if g < groups-1 {
			enc[8+8*g], enc[9+8*g] = seq[8+8*g], seq[9+8*g]
		}
	}
	last := len(seq) - 2
	enc[32], enc[33] = seq[last], seq[last+1]

	// Decryption: the same network with the subkeys reversed, kw3, kw4
	// first, kw1, kw2 last, and each FL pair swapped (RFC 3713, 2.3.3).
	dec[0], dec[1] = enc[32], enc[33]
	dec[32], dec[33] = enc[0], enc[1]
	for g := range groups {
		for j := range 6 {
			// round 6g+j+1 of decryption is round rounds-(6g+j) of encryption
			e := rounds - 1 - (6*g + j) // 0-based encryption round
			dec[2+8*g+j] = enc[2+8*(e/6)+e%6]
		}
		if g < groups-1 {
			// after decryption group g comes encryption's FL pair
			// before its group groups-1-g
			h := groups - 2 - g
			dec[8+8*g], dec[9+8*g] = enc[9+8*h], enc[8+8*h]
		}
	}
	clear(seq)
	return rounds
}
