//go:build !purego

package xts

import (
	"crypto/cipher"
	"math/bits"

	"github.com/fastxts/xts/internal/cpuid"
)

// This file is the one place that lists the x86-64 Camellia-XTS variants
// (the generator in _asm/camellia emits their routine) and adapts
// Camellia's key schedule (camellia_schedule_amd64.go) to the routine's
// byte-sliced layout.
var camelliaX86Variants = []x86Variant[camelliaFuncs]{
	{"camellia-gfni-avx512", needsCamelliaGFNIAVX512, camelliaFuncs{camelliaXTSGFNI, camelliaBlockGFNI}},
}

// camelliaFuncs are a Camellia variant's generated routines.
type camelliaFuncs struct {
	bulk  camelliaBulkFunc
	block camelliaBlockFunc
}

// camelliaBulkFunc is the signature of the generated Camellia routine:
// len(src)/256 groups of 16 blocks, the tweak in and out by value, with
// the encryption or the decryption schedule.
type camelliaBulkFunc func(ks *[320]uint32, rounds int, dst, src []byte, tweakLo, tweakHi uint64) (lo, hi uint64)

// camelliaBlockFunc is the signature of the generated single-block
// routine (for the tweak of a unit and the blocks after its last group).
type camelliaBlockFunc func(ks *[40]uint64, rounds int, dst, src *[16]byte)

// needsCamelliaGFNIAVX512: VGF2P8AFFINEQB and VGF2P8AFFINEINVQB on zmm
// are GFNI with AVX-512F; VPUNPCK[LH]BW, VPADDB and VPSLLDQ on zmm are
// AVX-512BW; VPXORD on xmm (the final zeroing) AVX-512VL; VPCLMULQDQ on
// zmm the VPCLMULQDQ bit. VMOVQ and VPEXTRQ on xmm0 are plain AVX;
// VPBROADCASTQ from memory to xmm (the single-block routine) is AVX2.
func needsCamelliaGFNIAVX512(c cpuid.X86) []requirement {
	return []requirement{
		{"AVX2", c.AVX2, false},
		{"AVX-512F", c.AVX512F, false},
		{"AVX-512BW", c.AVX512BW, false},
		{"AVX-512VL", c.AVX512VL, false},
		{"GFNI", c.GFNI, false},
		{"VPCLMULQDQ", c.VPCLMULQDQ, false},
		{"ZMM", c.UsableZMM(), true},
	}
}

func init() {
	registerFamily(cipherFamily{cipher: "Camellia", symbol: camelliaNewCipher, impls: camelliaX86Implementations})
}

// camelliaNewCipher is the symbol of camellia.NewCipher (package
// github.com/fastxts/xts/camellia), matched by name (cipher_select.go).
const camelliaNewCipher = "github.com/fastxts/xts/camellia.NewCipher"

func camelliaX86Implementations() []otherImpl {
	return x86FamilyImplementations(camelliaX86Variants, "Camellia keys only (camellia.NewCipher): byte-sliced, GFNI S-boxes, 64 blocks at a time, constant time",
		func(f camelliaFuncs, key []byte, _, _ cipher.Block) engine {
			// k1, k2 (package camellia's table-driven blocks) are not
			// used: see newCamelliaAsmEngine.
			return newCamelliaAsmEngine(f.bulk, f.block, key)
		})
}

// camelliaKeys are the byte-sliced schedules of one XTS key: the data
// key's and the tweak key's, for encryption and decryption.
type camelliaKeys struct {
	enc, dec, tweak, tweakDec *[320]uint32
	rounds, tweakRounds       int
	// blk are the same four folded for the single-block routine: data
	// encryption, decryption, tweak encryption, decryption.
	blk [4][40]uint64
}

// camelliaRoutines are the bulkRoutines of one Camellia variant and key:
// whole groups of 16 blocks.
type camelliaRoutines struct {
	ks   *camelliaKeys
	bulk camelliaBulkFunc
}

func newCamelliaAsmEngine(bulk camelliaBulkFunc, block camelliaBlockFunc, key []byte) *bulkAsmEngine {
	half := len(key) / 2
	ks := &camelliaKeys{enc: new([320]uint32), dec: new([320]uint32), tweak: new([320]uint32), tweakDec: new([320]uint32)}
	var enc, dec camelliaSchedule
	ks.rounds = camelliaExpand(&enc, &dec, key[:half])
	sliceCamelliaSchedule(ks.enc, &enc, ks.rounds)
	sliceCamelliaSchedule(ks.dec, &dec, ks.rounds)
	blockCamelliaSchedule(&ks.blk[0], &enc, ks.rounds)
	blockCamelliaSchedule(&ks.blk[1], &dec, ks.rounds)
	ks.tweakRounds = camelliaExpand(&enc, &dec, key[half:])
	sliceCamelliaSchedule(ks.tweak, &enc, ks.tweakRounds)
	sliceCamelliaSchedule(ks.tweakDec, &dec, ks.tweakRounds)
	blockCamelliaSchedule(&ks.blk[2], &enc, ks.tweakRounds)
	blockCamelliaSchedule(&ks.blk[3], &dec, ks.tweakRounds)
	clear(enc[:])
	clear(dec[:])
	// The generic engine's blocks (the tweak of a unit, the blocks after
	// the last whole group, units shorter than a group) run the routine
	// too, not package camellia's table lookups: constant time throughout.
	k1 := &camelliaAsmBlock{enc: &ks.blk[0], dec: &ks.blk[1], rounds: ks.rounds, block: block}
	k2 := &camelliaAsmBlock{enc: &ks.blk[2], dec: &ks.blk[3], rounds: ks.tweakRounds, block: block}
	return newBulkAsmEngine(&camelliaRoutines{ks: ks, bulk: bulk}, 256, k1, k2)
}

// camelliaAsmBlock is one Camellia key as a cipher.Block that runs the
// generated single-block routine: constant time, unlike package
// camellia's Block.
type camelliaAsmBlock struct {
	enc, dec *[40]uint64
	rounds   int
	block    camelliaBlockFunc
}

func (b *camelliaAsmBlock) BlockSize() int { return 16 }

func (b *camelliaAsmBlock) Encrypt(dst, src []byte) { b.crypt(b.enc, dst, src) }

func (b *camelliaAsmBlock) Decrypt(dst, src []byte) { b.crypt(b.dec, dst, src) }

func (b *camelliaAsmBlock) crypt(ks *[40]uint64, dst, src []byte) {
	if len(src) < 16 || len(dst) < 16 {
		panic("xts: camellia block: input or output not a full block")
	}
	b.block(ks, b.rounds, (*[16]byte)(dst), (*[16]byte)(src))
}

// camelliaFolded is a schedule as the routine uses it: every half of the
// state holds the subkey of its next F-function from the moment it is
// last written, so that the S-boxes read it without an XOR. Entries:
//
//	[0], [1]        whitening: kw1 ⊕ k1 (L), kw2 (R)
//	[2+8g+j]        round 6g+j+1, XORed into its output half: that half's
//	                old subkey ⊕ its next one (k2, k1⊕k3, k2⊕k4, ...);
//	                the last round of the last group puts kw4 into L
//	[8+8g], [9+8g]  FL and FL⁻¹ after group g (unchanged)
//	[34+2g]         R's subkey out before FL⁻¹ (the group's last one)
//	[35+2g]         L's first subkey of group g+1 after FL
//	[32]            the last subkey out of R and kw3 in
//
// (subkeys counted from the start of a group of six: k1..k6).
type camelliaFolded [40]uint64

// foldCamelliaSchedule folds a schedule of the given rounds (18 or 24).
func foldCamelliaSchedule(dst *camelliaFolded, s *camelliaSchedule, rounds int) {
	*dst = camelliaFolded{}
	groups := rounds / 6
	k := func(g, j int) uint64 { return s[2+8*g+j] }
	dst[0] = s[0] ^ k(0, 0)
	dst[1] = s[1]
	for g := range groups {
		e := dst[2+8*g : 8+8*g]
		e[0] = k(g, 1)
		e[1] = k(g, 0) ^ k(g, 2)
		e[2] = k(g, 1) ^ k(g, 3)
		e[3] = k(g, 2) ^ k(g, 4)
		e[4] = k(g, 3) ^ k(g, 5)
		if g < groups-1 {
			e[5] = k(g, 4)
			dst[8+8*g], dst[9+8*g] = s[8+8*g], s[9+8*g]
			dst[34+2*g] = k(g, 5)
			dst[35+2*g] = k(g+1, 0)
		} else {
			e[5] = k(g, 4) ^ s[33]
			dst[32] = k(g, 5) ^ s[32]
		}
	}
}

// sliceCamelliaSchedule folds a schedule and lays it out for the routine:
// byte b (most significant first) of entry i, four times, in dword 8i+b,
// so that one VPXORD/VPANDD/VPTERNLOGD broadcast applies it to 64 blocks'
// byte b.
func sliceCamelliaSchedule(dst *[320]uint32, s *camelliaSchedule, rounds int) {
	var f camelliaFolded
	foldCamelliaSchedule(&f, s, rounds)
	for i, k := range f {
		for b := range 8 {
			dst[8*i+b] = uint32(byte(k>>(56-8*b))) * 0x01010101
		}
	}
	clear(f[:])
}

// blockCamelliaSchedule folds a schedule for the single-block routine:
// each entry's eight bytes in order (most significant first).
func blockCamelliaSchedule(dst *[40]uint64, s *camelliaSchedule, rounds int) {
	var f camelliaFolded
	foldCamelliaSchedule(&f, s, rounds)
	for i, k := range f {
		dst[i] = bits.ReverseBytes64(k)
	}
	clear(f[:])
}

func (r *camelliaRoutines) encrypt(dst, src []byte, lo, hi uint64) (uint64, uint64) {
	return r.bulk(r.ks.enc, r.ks.rounds, dst, src, lo, hi)
}

func (r *camelliaRoutines) decrypt(dst, src []byte, lo, hi uint64) (uint64, uint64) {
	return r.bulk(r.ks.dec, r.ks.rounds, dst, src, lo, hi)
}

// encryptTweaks runs the routine with the tweak key and the tweak 0 (XTS
// with the tweak 0 is ECB).
func (r *camelliaRoutines) encryptTweaks(b []byte) {
	r.bulk(r.ks.tweak, r.ks.tweakRounds, b, b, 0, 0)
}

func (r *camelliaRoutines) wipe() {
	r.ks.blk = [4][40]uint64{}
	*r.ks.enc = [320]uint32{}
	*r.ks.dec = [320]uint32{}
	*r.ks.tweak = [320]uint32{}
	*r.ks.tweakDec = [320]uint32{}
}
