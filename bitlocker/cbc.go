package bitlocker

import (
	"crypto/aes"
	"crypto/subtle"
	"sync"

	"github.com/fastxts/xts"
)

// AES-CBC decryption is P_j = D(C_j) xor C_(j-1): the block decryptions are
// independent, but crypto/cipher's CBC decrypter runs them one at a time
// on x86-64 (about 0.7 GB/s on Zen 5). This module's XTS assembly decrypts
// many blocks at once, and XTS decryption under the key pair (FVEK, K2)
// maps X_j to D(X_j xor T_j) xor T_j, where the masks T_j depend only on K2
// and the sector number: fed C_j xor T_j it returns D(C_j) xor T_j. With a
// fixed K2 and the sectors of every batch numbered from 0, the masks are
// one table, computed once; CBC then costs the XTS pass and three XORs.

// cbcBatch is how many bytes of sectors one XTS call of cbcDecrypter
// decrypts: the mask table's size. Small enough to stay in L1 with its
// data.
const cbcBatch = 16 << 10

// cbcDecrypter decrypts whole AES-CBC sectors with XTS; sector IVs come from
// the caller.
type cbcDecrypter struct {
	x    *xts.Cipher
	size int    // sector size
	mask []byte // T_j of sectors 0, 1, ... of a batch, block after block
}

// cbcTweakKey is K2. Any key serves: the masks are not secret (they hide
// nothing: they are XORed in and out again), they only have to be the ones
// the XTS code uses.
var cbcTweakKey [32]byte

// newCBCDecrypter returns the XTS-based decrypter for the AES key key, or
// nil where XTS would run block by block too (no assembly for AES here,
// or FIPS 140 mode): crypto/cipher's CBC is then as fast.
func newCBCDecrypter(key []byte, sectorSize int) *cbcDecrypter {
	k2 := cbcTweakKey[:len(key)]
	x, err := xts.NewCipher(aes.NewCipher, append(append([]byte(nil), key...), k2...),
		xts.AllowEqualKeyHalves(), xts.WithoutParallelism())
	if err != nil || x.Implementation() == "generic" {
		return nil
	}
	t, err := aes.NewCipher(k2)
	if err != nil {
		return nil
	}
	d := &cbcDecrypter{x: x, size: sectorSize, mask: make([]byte, cbcBatch/sectorSize*sectorSize)}
	for s := 0; s*sectorSize < len(d.mask); s++ {
		tw := xts.SectorTweak(uint64(s))
		m := d.mask[s*sectorSize : (s+1)*sectorSize]
		t.Encrypt(m[:16], tw[:])
		for j := 16; j < len(m); j += 16 {
			mulAlpha(m[j:j+16], m[j-16:j])
		}
	}
	return d
}

// mulAlpha sets dst to src times alpha in GF(2^128), as IEEE 1619 numbers
// the blocks of a data unit: a 128-bit little-endian shift left by one,
// reduced by x^128 = x^7 + x^2 + x + 1 (0x87).
func mulAlpha(dst, src []byte) {
	carry := src[15] >> 7
	for i := 15; i > 0; i-- {
		dst[i] = src[i]<<1 | src[i-1]>>7
	}
	dst[0] = src[0]<<1 ^ 0x87&-carry
}

// scratchPool holds cbcBatch-byte buffers for in-place decryption, which
// needs the ciphertext after the block decryptions.
var scratchPool = sync.Pool{New: func() any { b := make([]byte, cbcBatch); return &b }}

// decrypt decrypts the whole sectors of src into dst (dst is src or does
// not overlap it); iv(i) writes the IV of the i-th sector of src.
func (d *cbcDecrypter) decrypt(dst, src []byte, iv func(i int, iv []byte)) {
	var bp *[]byte
	if len(src) > 0 && &dst[0] == &src[0] {
		bp = scratchPool.Get().(*[]byte)
		defer scratchPool.Put(bp)
	}
	var v [16]byte
	for first := 0; len(src) > 0; {
		n := min(len(src), len(d.mask))
		s, out := src[:n], dst[:n]
		if bp != nil {
			out = (*bp)[:n]
		}
		subtle.XORBytes(out, s, d.mask[:n])     // C_j xor T_j
		d.x.DecryptSectors(out, out, d.size, 0) // D(C_j) xor T_j
		subtle.XORBytes(out, out, d.mask[:n])   // D(C_j)
		for o := 0; o < n; o += d.size {
			iv(first+o/d.size, v[:])
			subtle.XORBytes(out[o:o+16], out[o:o+16], v[:])
			subtle.XORBytes(out[o+16:o+d.size], out[o+16:o+d.size], s[o:o+d.size-16])
		}
		if bp != nil {
			copy(dst[:n], out)
			clear(out)
		}
		first += n / d.size
		src, dst = src[n:], dst[n:]
	}
}

// wipe drops the XTS key schedule.
func (d *cbcDecrypter) wipe() { d.x.Wipe() }
