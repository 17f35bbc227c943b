//go:build !purego

package xts

import (
	"crypto/cipher"
	"encoding/binary"
	"math/bits"

	"github.com/fastxts/xts/internal/cipherspec"
)

// This file is the one place that lists the x86-64 Twofish-XTS variants
// (the generator in _asm/twofish emits their routines).
var twofishX86Variants = []x86Variant[twofishFuncs]{
	{"twofish-avx512", needsAVX512VBMIGFNI, twofishFuncs{twofishXTSEncryptAVX512, twofishXTSDecryptAVX512}},
}

// twofishFuncs are a Twofish variant's generated routines.
type twofishFuncs struct{ encrypt, decrypt twofishBulkFunc }

// twofishBulkFunc is the signature of the generated Twofish routines:
// len(src)/512 groups of 32 blocks, the tweak in and out by value.
type twofishBulkFunc func(ks *[twofishKSWords]uint32, dst, src []byte, tweakLo, tweakHi uint64) (lo, hi uint64)

func init() {
	registerFamily(cipherFamily{cipher: "Twofish", symbol: twofishNewCipher, impls: twofishX86Implementations})
}

// twofishNewCipher is the symbol of twofish.NewCipher (package
// github.com/fastxts/xts/twofish), matched by name (cipher_select.go).
const twofishNewCipher = "github.com/fastxts/xts/twofish.NewCipher"

func twofishX86Implementations() []otherImpl {
	return x86FamilyImplementations(twofishX86Variants, "Twofish keys only (twofish.NewCipher): key-dependent S-boxes read with VPERMI2B, MDS with GFNI, 64 blocks at a time",
		func(f twofishFuncs, key []byte, k1, k2 cipher.Block) engine {
			return newTwofishAsmEngine(f.encrypt, f.decrypt, key, k1, k2)
		})
}

// twofishRoutines are the bulkRoutines of one Twofish variant and key:
// whole groups of 32 blocks.
type twofishRoutines struct {
	ks               *[2][twofishKSWords]uint32 // the data key's, the tweak key's
	encBulk, decBulk twofishBulkFunc
}

func newTwofishAsmEngine(enc, dec twofishBulkFunc, key []byte, k1, k2 cipher.Block) *bulkAsmEngine {
	ks := new([2][twofishKSWords]uint32)
	half := len(key) / 2
	twofishKeySchedule(&ks[0], key[:half])
	twofishKeySchedule(&ks[1], key[half:])
	return newBulkAsmEngine(&twofishRoutines{ks: ks, encBulk: enc, decBulk: dec}, 512, k1, k2)
}

func (r *twofishRoutines) encrypt(dst, src []byte, lo, hi uint64) (uint64, uint64) {
	return r.encBulk(&r.ks[0], dst, src, lo, hi)
}

func (r *twofishRoutines) decrypt(dst, src []byte, lo, hi uint64) (uint64, uint64) {
	return r.decBulk(&r.ks[0], dst, src, lo, hi)
}

// encryptTweaks uses the encryption routine with the tweak key and the
// tweak 0 (XTS with a zero tweak is ECB).
func (r *twofishRoutines) encryptTweaks(b []byte) { r.encBulk(&r.ks[1], b, b, 0, 0) }

func (r *twofishRoutines) wipe() { *r.ks = [2][twofishKSWords]uint32{} }

// twofishKSWords is the size of the schedule the routines read: the 40
// subkey words, then the S-boxes s0..s3 (256 bytes each, byte x of s_j
// at byte offset 160 + 256j + x, little-endian in the words).
const twofishKSWords = 40 + 4*256/4

// twofishQ holds the nibble permutations t0..t3 of q0 and q1 (Twofish
// paper, section 4.3.5; internal/cipherspec.TwofishQ), each packed into a
// word: entry v in bits 4v..4v+3, so that a lookup is a shift (a secret
// shift count takes constant time on x86-64; no memory address depends
// on it).
var twofishQ = func() (q [2][4]uint64) {
	for i, ts := range &cipherspec.TwofishQ {
		for j, t := range ts {
			for v, e := range t {
				q[i][j] |= uint64(e) << (4 * v)
			}
		}
	}
	return q
}()

// twofishQPerm computes q_i(x) in constant time.
func twofishQPerm(i int, x byte) byte {
	t := &twofishQ[i]
	nib := func(tab uint64, v byte) byte { return byte(tab>>(4*(v&15))) & 15 }
	ror := func(v byte) byte { return (v>>1 | v<<3) & 15 }
	a, b := x>>4, x&15
	a, b = a^b, a^ror(b)^(a<<3&15)
	a, b = nib(t[0], a), nib(t[1], b)
	a, b = a^b, a^ror(b)^(a<<3&15)
	a, b = nib(t[2], a), nib(t[3], b)
	return b<<4 | a
}

// twofishSbox passes byte x of position j through the q stages and the
// key words l (k of them), as the h function does before the MDS matrix.
func twofishSbox(j int, x byte, l *[4]uint32, k int) byte {
	st := &cipherspec.TwofishQOrder[j]
	for s := 4 - k; s < 4; s++ {
		x = twofishQPerm(int(st[s]), x) ^ byte(l[3-s]>>(8*j))
	}
	return twofishQPerm(int(st[4]), x)
}

// twofishH is the paper's h function.
func twofishH(x uint32, l *[4]uint32, k int) uint32 {
	var y [4]byte
	for j := range 4 {
		y[j] = twofishSbox(j, byte(x>>(8*j)), l, k)
	}
	var z uint32
	for i := range 4 {
		var v byte
		for j := range 4 {
			v ^= cipherspec.GFMul(cipherspec.TwofishMDS[i][j], y[j], cipherspec.TwofishMDSPoly)
		}
		z |= uint32(v) << (8 * i)
	}
	return z
}

// twofishKeySchedule fills ks for a 16, 24 or 32-byte key: the subkeys
// K0..K39 and the key-dependent S-boxes s0..s3 (the q stages with the
// S-vector, without the MDS matrix, which the routines apply). Constant
// time: no branch or memory index depends on the key.
func twofishKeySchedule(ks *[twofishKSWords]uint32, key []byte) {
	k := len(key) / 8
	var me, mo, sv [4]uint32
	for i := range k {
		me[i] = binary.LittleEndian.Uint32(key[8*i:])
		mo[i] = binary.LittleEndian.Uint32(key[8*i+4:])
		var s uint32
		for r := range 4 {
			var v byte
			for c := range 8 {
				v ^= cipherspec.GFMul(cipherspec.TwofishRS[r][c], key[8*i+c], cipherspec.TwofishRSPoly)
			}
			s |= uint32(v) << (8 * r)
		}
		sv[k-1-i] = s // the S-box key lists S_{k-1} first
	}
	const rho = 0x01010101
	for i := range uint32(20) {
		a := twofishH(2*i*rho, &me, k)
		b := bits.RotateLeft32(twofishH((2*i+1)*rho, &mo, k), 8)
		ks[2*i] = a + b
		ks[2*i+1] = bits.RotateLeft32(a+2*b, 9)
	}
	for j := range 4 {
		for x := range 256 {
			w := &ks[40+64*j+x/4]
			if x%4 == 0 {
				*w = 0
			}
			*w |= uint32(twofishSbox(j, byte(x), &sv, k)) << (8 * (x % 4))
		}
	}
	clear(me[:])
	clear(mo[:])
	clear(sv[:])
}
