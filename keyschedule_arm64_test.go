//go:build !purego

package xts

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"testing"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// The arm64 expandKey against what FIPS-197 fixes: the cipher key in the
// first rows, the last round key of Appendix A's three examples, zeroes
// before the key size's first row, the decryption keys as the equivalent
// inverse cipher's in order of use (row s is enc's last, row 14 enc's
// first, every row between InvMixColumns of its encryption row, checked by
// applying MixColumns back), and no byte written outside enc and dec. The
// XTS tests over every implementation check the rest through the cipher.

// ksMixColumns is FIPS-197 §5.1.3 on a state (column c = bytes 4c..4c+3).
func ksMixColumns(s [16]byte) [16]byte {
	xt := func(b byte) byte { return b<<1 ^ (b>>7)*0x1b }
	var out [16]byte
	for c := 0; c < 4; c++ {
		a := s[4*c : 4*c+4]
		for r := 0; r < 4; r++ {
			// 2·a[r] ^ 3·a[r+1] ^ a[r+2] ^ a[r+3]
			a0, a1, a2, a3 := a[r], a[(r+1)%4], a[(r+2)%4], a[(r+3)%4]
			out[4*c+r] = xt(a0) ^ xt(a1) ^ a1 ^ a2 ^ a3
		}
	}
	return out
}

func TestExpandKeyARM64(t *testing.T) {
	if !cpu.ARM64.HasAES {
		t.Skip("CPU lacks the AES instructions (or GODEBUG=cpu.aes=off)")
	}
	fips := map[string]string{ // FIPS-197 Appendix A: key -> last round key
		"2b7e151628aed2a6abf7158809cf4f3c":                                 "d014f9a8c9ee2589e13f0cc8b6630ca6",
		"8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b":                 "e98ba06f448c773c8ecc720401002202",
		"603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4": "fe4890d1e6188d0b046df344706c631e",
	}
	type keys struct{ enc, dec [15][16]byte }
	type guarded struct {
		pre  [64]byte
		ks   keys
		post [64]byte
	}
	for _, size := range []int{16, 24, 32} {
		for n := 0; n < 8; n++ {
			key := make([]byte, size)
			rand.Read(key)
			for k := range fips {
				if b, _ := hex.DecodeString(k); n == 0 && len(b) == size {
					key = b
				}
			}
			rounds := 6 + size/4
			s := 14 - rounds
			t.Run(fmt.Sprintf("AES-%d/%x", 8*size, key[:4]), func(t *testing.T) {
				for _, withDec := range []bool{true, false} {
					var g guarded
					for i := range g.pre {
						g.pre[i], g.post[i] = 0xa5, 0xa5
					}
					fill := bytes.Repeat([]byte{0x5a}, 16)
					for r := range 15 {
						copy(g.ks.enc[r][:], fill)
						copy(g.ks.dec[r][:], fill)
					}
					var dec *[15][16]byte
					if withDec {
						dec = &g.ks.dec
					}
					expandKey(&key[0], rounds, &g.ks.enc, dec)

					if !bytes.Equal(g.pre[:], bytes.Repeat([]byte{0xa5}, 64)) ||
						!bytes.Equal(g.post[:], bytes.Repeat([]byte{0xa5}, 64)) {
						t.Fatalf("withDec=%v: bytes written outside the schedule", withDec)
					}
					enc := g.ks.enc
					for r := range s {
						if enc[r] != ([16]byte{}) {
							t.Errorf("enc row %d (unused) = %x, want zero", r, enc[r])
						}
					}
					first := append(enc[s][:], enc[s+1][:]...)
					if !bytes.Equal(first[:size], key) {
						t.Errorf("enc rows %d.. = %x, want the key %x", s, first[:size], key)
					}
					if want, ok := fips[hex.EncodeToString(key)]; ok {
						if got := hex.EncodeToString(enc[14][:]); got != want {
							t.Errorf("last round key %s, want %s (FIPS-197 Appendix A)", got, want)
						}
					}
					if !withDec {
						for r := range 15 {
							if !bytes.Equal(g.ks.dec[r][:], fill) {
								t.Fatalf("dec written although nil")
							}
						}
						continue
					}
					d := g.ks.dec
					for r := range s {
						if d[r] != ([16]byte{}) {
							t.Errorf("dec row %d (unused) = %x, want zero", r, d[r])
						}
					}
					if d[s] != enc[14] || d[14] != enc[s] {
						t.Errorf("dec rows %d and 14 are not enc rows 14 and %d", s, s)
					}
					for i := 1; i < rounds; i++ {
						if got := ksMixColumns(d[s+i]); got != enc[14-i] {
							t.Errorf("MixColumns(dec row %d) = %x, want enc row %d %x", s+i, got, 14-i, enc[14-i])
						}
					}
				}
			})
		}
	}
}

// newKeySchedule on arm64: 64-byte aligned, rounds set, the data key's
// rows from expandKey with dec, the tweak key's without, and wipe clears
// it all.
func TestNewKeyScheduleARM64(t *testing.T) {
	if !cpu.ARM64.HasAES {
		t.Skip("CPU lacks the AES instructions (or GODEBUG=cpu.aes=off)")
	}
	for _, size := range []int{32, 48, 64} {
		key := make([]byte, size)
		rand.Read(key)
		ks := newKeySchedule(key)
		if p := uintptr(unsafe.Pointer(ks)); p%64 != 0 {
			t.Errorf("AES-%d-XTS: schedule at %#x, not 64-byte aligned", 4*size, p)
		}
		rounds := 6 + size/8
		if ks.rounds != uint64(rounds) {
			t.Errorf("AES-%d-XTS: rounds %d, want %d", 4*size, ks.rounds, rounds)
		}
		var enc, dec, tweak [15][16]byte
		expandKey(&key[0], rounds, &enc, &dec)
		expandKey(&key[size/2], rounds, &tweak, nil)
		if ks.enc != enc || ks.dec != dec || ks.tweak != tweak {
			t.Errorf("AES-%d-XTS: schedule differs from expandKey of its halves", 4*size)
		}
		ks.wipe()
		if *ks != (keySchedule{}) {
			t.Errorf("AES-%d-XTS: wipe left a non-zero schedule", 4*size)
		}
	}
}
