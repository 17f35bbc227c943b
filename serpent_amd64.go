//go:build !purego

package xts

import (
	"crypto/cipher"
	"encoding/binary"
	"math/bits"

	"github.com/fastxts/xts/internal/cpuid"
)

// This file is the one place that lists the x86-64 Serpent-XTS variants
// (the generator in _asm/serpent emits their routines).
var serpentX86Variants = []x86Variant[serpentFuncs]{
	{"serpent-avx512", needsSerpentAVX512, serpentFuncs{serpentXTSEncryptAVX512, serpentXTSDecryptAVX512}},
}

// serpentFuncs are a Serpent variant's generated routines.
type serpentFuncs struct{ encrypt, decrypt serpentBulkFunc }

// serpentBulkFunc is the signature of the generated Serpent routines:
// len(src)/256 groups of 16 blocks, the tweak in and out by value.
type serpentBulkFunc func(ks *[132]uint32, dst, src []byte, tweakLo, tweakHi uint64) (lo, hi uint64)

// needsSerpentAVX512: VPSLLDQ on zmm is AVX-512BW, VPXORD on xmm (the
// final zeroing) AVX-512VL, VPCLMULQDQ on zmm the VPCLMULQDQ bit; VPEXTRQ
// and VMOVQ on xmm0 are plain AVX, which AVX-512F implies.
func needsSerpentAVX512(c cpuid.X86) []requirement {
	return []requirement{
		{"AVX-512F", c.AVX512F, false},
		{"AVX-512BW", c.AVX512BW, false},
		{"AVX-512VL", c.AVX512VL, false},
		{"VPCLMULQDQ", c.VPCLMULQDQ, false},
		{"ZMM", c.UsableZMM(), true},
	}
}

func init() {
	registerFamily(cipherFamily{cipher: "Serpent", symbol: serpentNewCipher, impls: serpentX86Implementations})
}

// serpentNewCipher is the symbol of serpent.NewCipher (package
// github.com/fastxts/xts/serpent), matched by name (cipher_select.go).
const serpentNewCipher = "github.com/fastxts/xts/serpent.NewCipher"

func serpentX86Implementations() []otherImpl {
	return x86FamilyImplementations(serpentX86Variants, "Serpent keys only (serpent.NewCipher): bitsliced, 64 blocks at a time",
		func(f serpentFuncs, key []byte, k1, k2 cipher.Block) engine {
			return newSerpentAsmEngine(f.encrypt, f.decrypt, key, k1, k2)
		})
}

// serpentRoutines are the bulkRoutines of one Serpent variant and key:
// whole groups of 16 blocks.
type serpentRoutines struct {
	ks               *[2][132]uint32 // the data key's, the tweak key's
	encBulk, decBulk serpentBulkFunc
}

func newSerpentAsmEngine(enc, dec serpentBulkFunc, key []byte, k1, k2 cipher.Block) *bulkAsmEngine {
	ks := new([2][132]uint32)
	half := len(key) / 2
	serpentKeySchedule(&ks[0], key[:half])
	serpentKeySchedule(&ks[1], key[half:])
	return newBulkAsmEngine(&serpentRoutines{ks: ks, encBulk: enc, decBulk: dec}, 256, k1, k2)
}

func (r *serpentRoutines) encrypt(dst, src []byte, lo, hi uint64) (uint64, uint64) {
	return r.encBulk(&r.ks[0], dst, src, lo, hi)
}

func (r *serpentRoutines) decrypt(dst, src []byte, lo, hi uint64) (uint64, uint64) {
	return r.decBulk(&r.ks[0], dst, src, lo, hi)
}

// encryptTweaks uses the encryption routine with the tweak key: any
// variant's encryption is Serpent's.
func (r *serpentRoutines) encryptTweaks(b []byte) { r.encBulk(&r.ks[1], b, b, 0, 0) }

func (r *serpentRoutines) wipe() { *r.ks = [2][132]uint32{} }

// serpentKeySchedule computes the 132 round-key words of Serpent for a
// 16, 24 or 32-byte key, in the byte order of package serpent (the Linux
// kernel's, libgcrypt's and VeraCrypt's). The S-boxes are evaluated in
// constant time: every table entry is read for every nibble.
func serpentKeySchedule(ks *[132]uint32, key []byte) {
	var w [140]uint32
	var padded [32]byte
	copy(padded[:], key)
	if len(key) < 32 {
		padded[len(key)] = 1
	}
	for i := range 8 {
		w[i] = binary.LittleEndian.Uint32(padded[4*i:])
	}
	for i := 8; i < 140; i++ {
		w[i] = bits.RotateLeft32(w[i-8]^w[i-5]^w[i-3]^w[i-1]^0x9e3779b9^uint32(i-8), 11)
	}
	for i := range 33 {
		s := &serpentSboxes[(35-i)%8]
		p := w[8+4*i : 12+4*i]
		var y [4]uint32
		for b := range 32 {
			v := p[0]>>b&1 | p[1]>>b&1<<1 | p[2]>>b&1<<2 | p[3]>>b&1<<3
			var out uint32
			for x := range uint32(16) {
				eq := uint32(int32((v^x)-1) >> 31) // all ones when v == x
				out |= uint32(s[x]) & eq
			}
			for j := range 4 {
				y[j] |= out >> j & 1 << b
			}
		}
		copy(ks[4*i:4*i+4], y[:])
	}
	clear(w[:])
	clear(padded[:])
}

// serpentSboxes are Serpent's S-boxes (the specification's tables).
var serpentSboxes = [8][16]uint8{
	{3, 8, 15, 1, 10, 6, 5, 11, 14, 13, 4, 2, 7, 0, 9, 12},
	{15, 12, 2, 7, 9, 0, 5, 10, 1, 11, 14, 8, 6, 13, 3, 4},
	{8, 6, 7, 9, 3, 12, 10, 15, 13, 1, 14, 4, 0, 11, 5, 2},
	{0, 15, 11, 8, 12, 9, 6, 3, 13, 1, 2, 4, 10, 7, 5, 14},
	{1, 15, 8, 3, 12, 0, 11, 6, 2, 5, 4, 10, 9, 14, 7, 13},
	{15, 5, 2, 11, 4, 10, 9, 12, 0, 3, 14, 8, 13, 6, 7, 1},
	{7, 2, 12, 5, 8, 4, 6, 11, 14, 9, 1, 15, 13, 3, 10, 0},
	{1, 13, 15, 0, 14, 8, 2, 11, 7, 4, 12, 10, 9, 3, 5, 6},
}
