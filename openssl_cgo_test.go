//go:build openssl && cgo

package xts_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/fastxts/xts"
	"github.com/fastxts/xts/internal/osslxts"
)

// TestOpenSSL compares every implementation with OpenSSL's libcrypto
// AES-128-XTS and AES-256-XTS (OpenSSL has no AES-192-XTS), an independent
// implementation in C: every length 16…300 and a few hundred random lengths
// up to 70000, random keys with distinct halves, random tweaks (some with
// the top bit set, some in the sector-number form), both directions.
// Decryption is checked on random input, not on our own ciphertext.
//
// Needs cgo and libssl-dev: go test -tags openssl -run OpenSSL ./...
func TestOpenSSL(t *testing.T) {
	rng := testRand(t)
	impls := availableImpls(t)
	var lengths []int
	for n := 16; n <= 300; n++ {
		lengths = append(lengths, n)
	}
	randomLengths := 300
	if testing.Short() {
		randomLengths = 40
	}
	for range randomLengths {
		lengths = append(lengths, 301+rng.IntN(70000-301+1))
	}
	lengths = append(lengths, 70000, 65536, 65536+15, 4096+1)

	fails := &failBudget{t: t, left: 20}
	got := make([]byte, 70000)
	for i, n := range lengths {
		keyLen := 32 << (i % 2) // alternate AES-128 and AES-256
		key := randKey(rng, keyLen)
		var tweak [16]byte
		copy(tweak[:], randBytes(rng, 16))
		sectorForm := i%4 == 1
		var sector uint64
		switch {
		case sectorForm:
			sector = randSector(rng)
			tweak = [16]byte{}
			binary.LittleEndian.PutUint64(tweak[:], sector)
		case i%4 == 2:
			tweak[15] |= 0x80 // top bit of the 128-bit tweak
		}
		pt := randBytes(rng, n)
		ct := randBytes(rng, n)
		wantCT := osslxts.MustXTS(true, key, tweak[:], pt)
		wantPT := osslxts.MustXTS(false, key, tweak[:], ct)

		for _, name := range impls {
			c := newImplCipher(t, name, key)
			out := got[:n]
			if sectorForm {
				c.Encrypt(out, pt, sector)
			} else {
				c.EncryptWithTweak(out, pt, tweak)
			}
			if !bytes.Equal(out, wantCT) {
				fails.errorf("%s: AES-%d, len %d, tweak %x: encryption differs from OpenSSL", name, keyLen*4, n, tweak)
			}
			if sectorForm {
				c.Decrypt(out, ct, sector)
			} else {
				c.DecryptWithTweak(out, ct, tweak)
			}
			if !bytes.Equal(out, wantPT) {
				fails.errorf("%s: AES-%d, len %d, tweak %x: decryption differs from OpenSSL", name, keyLen*4, n, tweak)
			}
		}
	}
}

// TestOpenSSLInPlace runs the same comparison in place (dst == src) on the
// lengths around ciphertext stealing, where an implementation must read the
// source's partial block before overwriting it.
func TestOpenSSLInPlace(t *testing.T) {
	rng := testRand(t)
	fails := &failBudget{t: t, left: 20}
	for _, name := range availableImpls(t) {
		for n := 16; n <= 300; n++ {
			keyLen := 32 << (n % 2)
			key := randKey(rng, keyLen)
			var tweak [16]byte
			copy(tweak[:], randBytes(rng, 16))
			pt := randBytes(rng, n)
			want := osslxts.MustXTS(true, key, tweak[:], pt)
			c := newImplCipher(t, name, key)
			buf := bytes.Clone(pt)
			c.EncryptWithTweak(buf, buf, tweak)
			if !bytes.Equal(buf, want) {
				fails.errorf("%s: AES-%d, len %d: in-place encryption differs from OpenSSL", name, keyLen*4, n)
			}
			c.DecryptWithTweak(buf, buf, tweak)
			if !bytes.Equal(buf, pt) {
				fails.errorf("%s: AES-%d, len %d: in-place decryption does not restore the plaintext", name, keyLen*4, n)
			}
		}
	}
}

// TestOpenSSLSectors checks the bulk sector API against OpenSSL run sector
// by sector, so the sector numbering is tested against an outside
// implementation too: one tweak per sector, and dm-crypt's 512-byte tweak
// units (WithTweakUnit(512)), with first sectors whose number wraps past
// 2^64-1 inside the buffer.
func TestOpenSSLSectors(t *testing.T) {
	rng := testRand(t)
	fails := &failBudget{t: t, left: 20}
	for _, name := range availableImpls(t) {
		for _, unit := range []int{0, 512} {
			for _, sectorSize := range []int{512, 4096, 528} {
				if unit != 0 && sectorSize%unit != 0 {
					continue
				}
				for _, first := range []uint64{rng.Uint64N(1 << 40), 1<<32 - 3, 1<<64 - 3} {
					key := randKey(rng, 32<<rng.IntN(2))
					c := newImplCipher(t, name, key)
					step := uint64(1)
					if unit != 0 {
						c = newImplCipher(t, name, key, xts.WithTweakUnit(unit))
						step = uint64(sectorSize / unit)
					}
					count := 1 + rng.IntN(8)
					pt := randBytes(rng, count*sectorSize)
					got := make([]byte, len(pt))
					c.EncryptSectors(got, pt, sectorSize, first)
					for k := range count {
						var tweak [16]byte
						binary.LittleEndian.PutUint64(tweak[:], first+uint64(k)*step)
						want := osslxts.MustXTS(true, key, tweak[:], pt[k*sectorSize:(k+1)*sectorSize])
						if !bytes.Equal(got[k*sectorSize:(k+1)*sectorSize], want) {
							fails.errorf("%s: tweak unit %d, sector size %d, first %#x: sector %d differs from OpenSSL", name, unit, sectorSize, first, k)
						}
					}
					back := make([]byte, len(pt))
					c.DecryptSectors(back, got, sectorSize, first)
					if !bytes.Equal(back, pt) {
						fails.errorf("%s: tweak unit %d, sector size %d, first %#x: DecryptSectors does not invert", name, unit, sectorSize, first)
					}
				}
			}
		}
	}
}
