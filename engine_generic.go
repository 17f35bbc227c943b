package xts

import (
	"crypto/cipher"
	"encoding/binary"
)

// genericEngine is the portable implementation: XTS over any cipher.Block
// with a 16-byte block. It is the reference that every other engine is
// tested against, runs on every GOARCH and endianness, and is constant time
// when the block cipher is.
//
// Speed comes from doing nothing per block beyond the cipher call: the
// tweak lives in two uint64 words (a GF(2^128) doubling is a shift and a
// masked XOR), data is XORed eight bytes at a time, and each block is
// encrypted in place in dst, so no scratch buffer escapes to the heap.
type genericEngine struct {
	k1, k2 cipher.Block
}

func newGeneric(k1, k2 cipher.Block) *genericEngine {
	return &genericEngine{k1: k1, k2: k2}
}

// wipe drops the block ciphers (Cipher.Wipe): crypto/aes has no way to
// clear their key schedules.
func (g *genericEngine) wipe() { g.k1, g.k2 = nil, nil }

func (g *genericEngine) encrypt(dst, src []byte, tweak tweak128, flags uint64) tweak128 {
	return g.crypt(dst, src, tweak, flags, false)
}

func (g *genericEngine) decrypt(dst, src []byte, tweak tweak128, flags uint64) tweak128 {
	return g.crypt(dst, src, tweak, flags, true)
}

// mul2 multiplies the tweak (lo, hi: a 128-bit little-endian integer) by x
// in GF(2^128) modulo x^128 + x^7 + x^2 + x + 1, without branching on it.
func mul2(lo, hi uint64) (uint64, uint64) {
	carry := hi >> 63
	hi = hi<<1 | lo>>63
	lo = lo<<1 ^ (-carry & 0x87)
	return lo, hi
}

// xorBlock writes the 16 bytes of src XOR the tweak into dst.
func xorBlock(dst, src []byte, lo, hi uint64) {
	a := binary.LittleEndian.Uint64(src[:8]) ^ lo
	b := binary.LittleEndian.Uint64(src[8:16]) ^ hi
	binary.LittleEndian.PutUint64(dst[:8], a)
	binary.LittleEndian.PutUint64(dst[8:16], b)
}

func (g *genericEngine) crypt(dst, src []byte, tweak tweak128, flags uint64, decrypt bool) tweak128 {
	lo, hi := tweak.lo, tweak.hi
	if flags&flagEncryptTweak != 0 {
		// Encrypt the tweak in dst's first block: a local array passed to
		// the cipher.Block interface would escape and allocate on every
		// call. src's first block is saved and put back, so this is
		// harmless in place too (dst's first block is rewritten below).
		s0 := binary.LittleEndian.Uint64(src[:8])
		s1 := binary.LittleEndian.Uint64(src[8:16])
		d := dst[:16]
		binary.LittleEndian.PutUint64(d[:8], lo)
		binary.LittleEndian.PutUint64(d[8:], hi)
		g.k2.Encrypt(d, d)
		lo = binary.LittleEndian.Uint64(d[:8])
		hi = binary.LittleEndian.Uint64(d[8:])
		binary.LittleEndian.PutUint64(d[:8], s0)
		binary.LittleEndian.PutUint64(d[8:], s1)
	}

	block := g.k1.Encrypt
	if decrypt {
		block = g.k1.Decrypt
	}

	n := len(src)
	full := n &^ 15
	rem := n - full
	// With stealing, the last full block is handled together with the
	// partial one below.
	if rem != 0 {
		full -= 16
	}
	dst = dst[:n]
	for i := 0; i < full; i += 16 {
		d := dst[i : i+16]
		xorBlock(d, src[i:i+16], lo, hi)
		block(d, d)
		xorBlock(d, d, lo, hi)
		lo, hi = mul2(lo, hi)
	}

	if rem != 0 {
		// Ciphertext stealing (IEEE 1619 §5.3.2). Block m-1 is the last
		// full one, block m the partial one of rem bytes. Encryption uses
		// T_{m-1} then T_m; decryption T_m then T_{m-1}.
		nlo, nhi := mul2(lo, hi)
		t1lo, t1hi, t2lo, t2hi := lo, hi, nlo, nhi
		if decrypt {
			t1lo, t1hi, t2lo, t2hi = nlo, nhi, lo, hi
		}
		last := dst[full : full+16]
		xorBlock(last, src[full:full+16], t1lo, t1hi)
		block(last, last)
		xorBlock(last, last, t1lo, t1hi)
		// last now holds CC. The final rem output bytes are CC's first
		// rem bytes; CC's first rem bytes are replaced by the partial
		// input. Swapping byte by byte keeps this correct in place, where
		// the partial input and output share memory.
		tail := full + 16
		for j := 0; j < rem; j++ {
			last[j], dst[tail+j] = src[tail+j], last[j]
		}
		xorBlock(last, last, t2lo, t2hi)
		block(last, last)
		xorBlock(last, last, t2lo, t2hi)
		lo, hi = nlo, nhi
	}

	if flags&flagStoreTweak != 0 {
		tweak = tweak128{lo, hi}
	}
	return tweak
}
