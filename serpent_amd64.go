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
var serpentX86Variants = []struct {
	name             string
	needs            func(cpuid.X86) []requirement
	encrypt, decrypt serpentBulkFunc
}{
	{"serpent-avx512", needsSerpentAVX512, serpentXTSEncryptAVX512, serpentXTSDecryptAVX512},
}

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
	serpentPlatform = serpentX86Implementations
}

func serpentX86Implementations() []serpentImpl {
	c, _ := cpuid.Host()
	impls := make([]serpentImpl, 0, len(serpentX86Variants))
	for i := range serpentX86Variants {
		v := &serpentX86Variants[i]
		why := missing(v.needs(c))
		ok := why == ""
		note := "Serpent keys only (serpent.NewCipher): bitsliced, 32 blocks at a time"
		if !ok {
			note += "; " + why
		}
		impls = append(impls, serpentImpl{
			name:      v.name,
			available: ok,
			note:      note,
			newEngine: func(key []byte, k1, k2 cipher.Block) engine {
				return newSerpentAsmEngine(v.encrypt, v.decrypt, key, k1, k2)
			},
		})
	}
	return impls
}

// serpentAsmEngine runs the generated routines over whole groups of 16
// blocks and the generic engine over the rest of a data unit (the tweak
// encryption, the last blocks, ciphertext stealing) and over units shorter
// than 256 bytes. For runs of sectors it encrypts the tweaks 16 at a time
// with the generated routine too.
type serpentAsmEngine struct {
	ks               *[2][132]uint32 // the data key's, the tweak key's
	gen              *genericEngine
	encBulk, decBulk serpentBulkFunc
}

func newSerpentAsmEngine(enc, dec serpentBulkFunc, key []byte, k1, k2 cipher.Block) *serpentAsmEngine {
	ks := new([2][132]uint32)
	half := len(key) / 2
	serpentKeySchedule(&ks[0], key[:half])
	serpentKeySchedule(&ks[1], key[half:])
	return &serpentAsmEngine{ks: ks, gen: newGeneric(k1, k2), encBulk: enc, decBulk: dec}
}

func (e *serpentAsmEngine) wipe() {
	*e.ks = [2][132]uint32{}
	e.gen.wipe()
}

func (e *serpentAsmEngine) encrypt(dst, src []byte, t tweak128, flags uint64) tweak128 {
	return e.crypt(e.encBulk, dst, src, t, flags, false)
}

func (e *serpentAsmEngine) decrypt(dst, src []byte, t tweak128, flags uint64) tweak128 {
	return e.crypt(e.decBulk, dst, src, t, flags, true)
}

func (e *serpentAsmEngine) crypt(f serpentBulkFunc, dst, src []byte, t tweak128, flags uint64, dec bool) tweak128 {
	n := len(src)
	full := n &^ 15
	if full != n {
		full -= 16 // the last full block goes with the stolen one
	}
	bulk := full &^ 255
	if bulk == 0 {
		return e.gen.crypt(dst, src, t, flags, dec)
	}
	if flags&flagEncryptTweak != 0 {
		t = encryptTweakInDst(e.gen.k2, dst, src, t)
	}
	t.lo, t.hi = f(&e.ks[0], dst[:bulk], src[:bulk], t.lo, t.hi)
	if bulk == n {
		return t
	}
	return e.gen.crypt(dst[bulk:n], src[bulk:], t, flags&^flagEncryptTweak, dec)
}

// encryptTweakInDst returns the tweak t encrypted with k2, using dst's
// first block as scratch (a local array passed to the interface would
// escape and allocate): src's first block is saved and put back, so this
// is harmless in place too.
func encryptTweakInDst(k2 cipher.Block, dst, src []byte, t tweak128) tweak128 {
	s0 := binary.LittleEndian.Uint64(src[:8])
	s1 := binary.LittleEndian.Uint64(src[8:16])
	d := dst[:16]
	binary.LittleEndian.PutUint64(d[:8], t.lo)
	binary.LittleEndian.PutUint64(d[8:], t.hi)
	k2.Encrypt(d, d)
	t = tweak128{binary.LittleEndian.Uint64(d[:8]), binary.LittleEndian.Uint64(d[8:])}
	binary.LittleEndian.PutUint64(d[:8], s0)
	binary.LittleEndian.PutUint64(d[8:], s1)
	return t
}

func (e *serpentAsmEngine) encryptSectors(dst, src []byte, sectorSize int, first, step uint64) {
	e.sectors(e.encBulk, dst, src, sectorSize, first, step, false)
}

func (e *serpentAsmEngine) decryptSectors(dst, src []byte, sectorSize int, first, step uint64) {
	e.sectors(e.decBulk, dst, src, sectorSize, first, step, true)
}

// sectors runs whole sectors, sector k with the IV first + k*step. The
// IVs of 16 sectors at a time are encrypted together: XTS with the tweak
// 0 is ECB (every block's tweak 0·x^j is 0), so the generated routine,
// called directly (a call through a function value would move ivs to the
// heap), encrypts 16 of them with the tweak key for about what two or
// three cost one at a time (measured on Zen 5), which fewer sectors do.
func (e *serpentAsmEngine) sectors(f serpentBulkFunc, dst, src []byte, sectorSize int, first, step uint64, dec bool) {
	var ivs [16 * 16]byte
	for off := 0; off < len(src); {
		k := min(16, (len(src)-off)/sectorSize)
		if k < 3 {
			// 16 blocks at once take about what two or three take alone.
			for range k {
				e.crypt(f, dst[off:off+sectorSize], src[off:off+sectorSize], tweak128{lo: first}, flagEncryptTweak, dec)
				off += sectorSize
				first += step
			}
			continue
		}
		for i := range k {
			binary.LittleEndian.PutUint64(ivs[16*i:], first)
			binary.LittleEndian.PutUint64(ivs[16*i+8:], 0)
			first += step
		}
		serpentXTSEncryptAVX512(&e.ks[1], ivs[:], ivs[:], 0, 0)
		for i := range k {
			t := tweak128{binary.LittleEndian.Uint64(ivs[16*i:]), binary.LittleEndian.Uint64(ivs[16*i+8:])}
			e.crypt(f, dst[off:off+sectorSize], src[off:off+sectorSize], t, 0, dec)
			off += sectorSize
		}
	}
	clear(ivs[:])
}

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
