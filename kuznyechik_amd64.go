//go:build !purego

package xts

import (
	"crypto/cipher"
	"encoding/binary"
	"sync"

	"github.com/fastxts/xts/internal/cipherspec"
)

// This file is the one place that lists the x86-64 Kuznyechik-XTS
// variants (the generator in _asm/kuznyechik emits their routines), and
// holds the key schedule they run on: the root package cannot import
// package kuznyechik (its tests import this package), so the round keys
// are computed here again, from RFC 7801, in constant time.
var kuznyechikX86Variants = []x86Variant[kuznyechikFuncs]{
	{"kuznyechik-avx512", needsAVX512VBMIGFNI, kuznyechikFuncs{kuznyechikXTSEncryptAVX512, kuznyechikXTSDecryptAVX512}},
}

// kuznyechikFuncs are a Kuznyechik variant's generated routines.
type kuznyechikFuncs struct{ encrypt, decrypt kuznyechikBulkFunc }

// kuznyechikBulkFunc is the signature of the generated routines:
// len(src)/512 groups of 32 blocks, the tweak in and out by value.
type kuznyechikBulkFunc func(ks *[10][16]uint32, dst, src []byte, tweakLo, tweakHi uint64) (lo, hi uint64)

func init() {
	registerFamily(cipherFamily{cipher: "Kuznyechik", symbol: kuznyechikNewCipher, impls: kuznyechikX86Implementations})
}

// kuznyechikNewCipher is the symbol of kuznyechik.NewCipher (package
// github.com/fastxts/xts/kuznyechik), matched by name (cipher_select.go).
const kuznyechikNewCipher = "github.com/fastxts/xts/kuznyechik.NewCipher"

func kuznyechikX86Implementations() []otherImpl {
	return x86FamilyImplementations(kuznyechikX86Variants, "Kuznyechik keys only (kuznyechik.NewCipher): byte-sliced, table-free (S-box in registers, GFNI products), 64 blocks at a time",
		func(f kuznyechikFuncs, key []byte, k1, k2 cipher.Block) engine {
			return newKuznyechikAsmEngine(f.encrypt, f.decrypt, key, k1, k2)
		})
}

// kuznyechikKeys are the round keys of an XTS key in the routines' form.
type kuznyechikKeys struct {
	enc, dec [10][16]uint32 // the data key's
	tweak    [10][16]uint32 // the tweak key's, for encryption
}

// kuznyechikRoutines are the bulkRoutines of one variant and key: whole
// groups of 32 blocks.
type kuznyechikRoutines struct {
	ks               *kuznyechikKeys
	encBulk, decBulk kuznyechikBulkFunc
}

func newKuznyechikAsmEngine(enc, dec kuznyechikBulkFunc, key []byte, k1, k2 cipher.Block) *bulkAsmEngine {
	ks := new(kuznyechikKeys)
	half := len(key) / 2
	kuznyechikKeySchedule(&ks.enc, &ks.dec, key[:half])
	var unused [10][16]uint32
	kuznyechikKeySchedule(&ks.tweak, &unused, key[half:])
	clear(unused[:])
	return newBulkAsmEngine(&kuznyechikRoutines{ks: ks, encBulk: enc, decBulk: dec}, 512, k1, k2)
}

func (r *kuznyechikRoutines) encrypt(dst, src []byte, lo, hi uint64) (uint64, uint64) {
	return r.encBulk(&r.ks.enc, dst, src, lo, hi)
}

func (r *kuznyechikRoutines) decrypt(dst, src []byte, lo, hi uint64) (uint64, uint64) {
	return r.decBulk(&r.ks.dec, dst, src, lo, hi)
}

// encryptTweaks uses the encryption routine with the tweak key and the
// tweak 0 (XTS with a zero tweak is ECB).
func (r *kuznyechikRoutines) encryptTweaks(b []byte) { r.encBulk(&r.ks.tweak, b, b, 0, 0) }

func (r *kuznyechikRoutines) wipe() { *r.ks = kuznyechikKeys{} }

// kuznyechikSbox is Kuznyechik's substitution π (RFC 7801, section 4.1.1;
// internal/cipherspec).
var kuznyechikSbox = &cipherspec.KuznyechikPi

// kuznyechikLCoef are ℓ's coefficients (RFC 7801, section 4.1.2) for the
// block's bytes in memory order (byte 0 is a_15).
var kuznyechikLCoef = &cipherspec.KuznyechikLCoef

// kuznyechikBlock is a block as two little-endian words of bytes 0-7 and
// 8-15.
type kuznyechikBlock [2]uint64

// kuznyechikMaps holds GF(2)-linear maps of blocks as the images of the
// 128 unit vectors, built once from byte-oriented definitions (public
// inputs only), so that the key schedule applies them to secret blocks
// with masks rather than table indices: L, L^-1, and the two key
// injections below.
type kuznyechikMaps struct {
	l, lInv, injectL, injectLInv [128]kuznyechikBlock
}

// The generated routines compute L (or L^-1) as sixteen steps of R (or
// R^-1), each making one new byte from ℓ of the current sixteen, and XOR
// byte c_s of the round key material into the new byte of step s. That
// byte feeds the later steps, so to end with L(x) XOR K the routine needs
// c = inject(K): step s's byte is final (it only moves afterwards), and
// must equal K's byte at the position where it ends, so c_s is that byte
// XOR ℓ of the state the steps before built, which is K's bytes shifted
// in so far. The map is linear in K.
var kuznyechikLinear = sync.OnceValue(func() *kuznyechikMaps {
	ell := func(a [16]byte) byte {
		var s byte
		for i, x := range a {
			s ^= cipherspec.GFMul(kuznyechikLCoef[i], x, 0x1C3) // x^8+x^7+x^6+x+1
		}
		return s
	}
	// R: ℓ of all bytes becomes byte 0, byte i moves to i+1; R^-1: byte i
	// moves to i-1, ℓ(bytes 1..15, byte 0) becomes byte 15. Each returns
	// ℓ of its operands and the moved state with new in place.
	r := func(a [16]byte, n func(byte) byte) [16]byte {
		v := n(ell(a))
		copy(a[1:], a[:15])
		a[0] = v
		return a
	}
	rInv := func(a [16]byte, n func(byte) byte) [16]byte {
		var o [16]byte
		copy(o[:15], a[1:])
		o[15] = a[0]
		o[15] = n(ell(o))
		return o
	}
	toBlock := func(a [16]byte) kuznyechikBlock {
		return kuznyechikBlock{binary.LittleEndian.Uint64(a[:8]), binary.LittleEndian.Uint64(a[8:])}
	}
	m := new(kuznyechikMaps)
	for bit := range 128 {
		var e [16]byte
		e[bit/8] = 1 << (bit % 8)
		a, b := e, e
		var c, d, sa, sb [16]byte
		for s := range 16 {
			same := func(v byte) byte { return v }
			a = r(a, same)
			b = rInv(b, same)
			// Injection: the new byte of step s must be e's byte at 15-s
			// (R) or s (R^-1).
			sa = r(sa, func(v byte) byte { c[15-s] = v ^ e[15-s]; return e[15-s] })
			sb = rInv(sb, func(v byte) byte { d[s] = v ^ e[s]; return e[s] })
		}
		m.l[bit], m.lInv[bit] = toBlock(a), toBlock(b)
		m.injectL[bit], m.injectLInv[bit] = toBlock(c), toBlock(d)
	}
	return m
})

// kuznyechikApply returns the linear map t of x: the XOR of the images of
// x's set bits, selected with masks.
func kuznyechikApply(t *[128]kuznyechikBlock, x kuznyechikBlock) (y kuznyechikBlock) {
	for bit := range 128 {
		m := -(x[bit/64] >> (bit % 64) & 1)
		y[0] ^= t[bit][0] & m
		y[1] ^= t[bit][1] & m
	}
	return y
}

// kuznyechikSub returns S(x) in constant time: every byte of x is compared
// with every value (eight bytes at a time, SWAR) and π of the value is
// kept where they are equal.
func kuznyechikSub(x kuznyechikBlock) (y kuznyechikBlock) {
	const ones, low7, high = 0x0101010101010101, 0x7f7f7f7f7f7f7f7f, 0x8080808080808080
	for v := range 256 {
		bv := uint64(v) * ones
		out := uint64(kuznyechikSbox[v]) * ones
		for w := range 2 {
			d := x[w] ^ bv
			z := ^((d & low7) + low7 | d) & high // 0x80 in the bytes where d is 0
			y[w] |= out & ((z >> 7) * 0xff)
		}
	}
	return y
}

// kuznyechikRoundKeys computes K_1..K_10 of a 32-byte key (RFC 7801,
// section 4.3): the key's halves, then eight Feistel rounds
// F[C](a1, a0) = (LSX[C](a1) XOR a0, a1) per further pair, with
// C_j = L(Vec128(j)).
func kuznyechikRoundKeys(key []byte) (k [10]kuznyechikBlock) {
	m := kuznyechikLinear()
	le := binary.LittleEndian
	a1 := kuznyechikBlock{le.Uint64(key[0:8]), le.Uint64(key[8:16])}
	a0 := kuznyechikBlock{le.Uint64(key[16:24]), le.Uint64(key[24:32])}
	k[0], k[1] = a1, a0
	for j := range 32 {
		// Vec128(j+1): byte 15 (a_0) is j+1.
		c := kuznyechikApply(&m.l, kuznyechikBlock{0, uint64(j+1) << 56})
		y := kuznyechikApply(&m.l, kuznyechikSub(kuznyechikBlock{a1[0] ^ c[0], a1[1] ^ c[1]}))
		a1, a0 = kuznyechikBlock{y[0] ^ a0[0], y[1] ^ a0[1]}, a1
		if j%8 == 7 {
			k[2+j/8*2], k[3+j/8*2] = a1, a0
		}
	}
	return k
}

// kuznyechikKeySchedule computes the generated routines' round keys of a
// 32-byte key, each byte repeated in a dword. Encryption XORs K_1, then
// each round's L injects enc[r] = injectL(K_(r+1)); decryption computes
// z = L^-1(x) XOR L^-1(K_10), z = L^-1(S^-1(z)) XOR L^-1(K_i) for
// i = 9..2 (L^-1 is linear), then S^-1(z) XOR K_1: dec[r] =
// injectLInv(L^-1(K_(10-r))) for r = 0..8 and dec[9] = K_1.
func kuznyechikKeySchedule(enc, dec *[10][16]uint32, key []byte) {
	m := kuznyechikLinear()
	k := kuznyechikRoundKeys(key)
	spread := func(dst *[16]uint32, b kuznyechikBlock) {
		for i := range 16 {
			dst[i] = uint32(byte(b[i/8]>>(8*(i%8)))) * 0x01010101
		}
	}
	spread(&enc[0], k[0])
	for r := 1; r < 10; r++ {
		spread(&enc[r], kuznyechikApply(&m.injectL, k[r]))
	}
	for r := range 9 {
		spread(&dec[r], kuznyechikApply(&m.injectLInv, kuznyechikApply(&m.lInv, k[9-r])))
	}
	spread(&dec[9], k[0])
	clear(k[:])
}
