//go:build !purego

package xts

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"regexp"
	"strings"
	"testing"

	"github.com/fastxts/xts/internal/cpuid"
	"github.com/fastxts/xts/twofish"
)

// TestTwofishNeeds: each feature the variant lists, taken away alone from
// a CPU that has them all, makes it unavailable and is named; this CPU,
// when it has them all, gets the variant by default.
func TestTwofishNeeds(t *testing.T) {
	all := cpuid.X86{AVX: true, AVX2: true, AVX512F: true, AVX512BW: true, AVX512VL: true,
		AVX512VBMI: true, GFNI: true, VPCLMULQDQ: true, OSXSAVE: true, OSYMM: true, OSZMM: true}
	if why := missing(needsAVX512VBMIGFNI(all)); why != "" {
		t.Fatalf("every feature: missing %q", why)
	}
	for _, tc := range []struct {
		name string
		drop func(*cpuid.X86)
	}{
		{"AVX-512F", func(c *cpuid.X86) { c.AVX512F = false }},
		{"AVX-512BW", func(c *cpuid.X86) { c.AVX512BW = false }},
		{"AVX-512VL", func(c *cpuid.X86) { c.AVX512VL = false }},
		{"AVX-512VBMI", func(c *cpuid.X86) { c.AVX512VBMI = false }},
		{"GFNI", func(c *cpuid.X86) { c.GFNI = false }},
		{"VPCLMULQDQ", func(c *cpuid.X86) { c.VPCLMULQDQ = false }},
		{"ZMM", func(c *cpuid.X86) { c.OSZMM = false }},
	} {
		c := all
		tc.drop(&c)
		if why := missing(needsAVX512VBMIGFNI(c)); !strings.Contains(why, tc.name) {
			t.Errorf("without %s: missing %q, want it named", tc.name, why)
		}
	}
	// A CPU that has what the variant needs gets it by default.
	if host, _ := cpuid.Host(); missing(needsAVX512VBMIGFNI(host)) == "" {
		c, err := NewCipher(twofish.NewCipher, randKey(newRand(t), 64))
		if err != nil || c.Implementation() != "twofish-avx512" {
			t.Errorf("this CPU runs twofish-avx512 but the default is %v (%v)", c, err)
		}
	}
}

// twofishRefEncrypt is Twofish encryption written from the paper over the
// schedule twofishKeySchedule fills, independently of the generated code:
// g is the S-boxes s0..s3 followed by the MDS matrix.
func twofishRefEncrypt(ks *[twofishKSWords]uint32, dst, src []byte) {
	sb := func(j int, x byte) byte { return byte(ks[40+64*j+int(x)/4] >> (8 * (x % 4))) }
	mul := func(a, b byte) byte {
		var p byte
		for ; b != 0; b >>= 1 {
			if b&1 != 0 {
				p ^= a
			}
			hi := a & 0x80
			a <<= 1
			if hi != 0 {
				a ^= 0x69 // x^8+x^6+x^5+x^3+1 without x^8
			}
		}
		return p
	}
	mds := [4][4]byte{{0x01, 0xEF, 0x5B, 0x5B}, {0x5B, 0xEF, 0xEF, 0x01}, {0xEF, 0x5B, 0x01, 0xEF}, {0xEF, 0x01, 0xEF, 0x5B}}
	g := func(x uint32) uint32 {
		var z uint32
		for i := range 4 {
			var v byte
			for j := range 4 {
				v ^= mul(mds[i][j], sb(j, byte(x>>(8*j))))
			}
			z |= uint32(v) << (8 * i)
		}
		return z
	}
	var r [4]uint32
	for i := range r {
		r[i] = binary.LittleEndian.Uint32(src[4*i:]) ^ ks[i]
	}
	for round := range 16 {
		t0 := g(r[0])
		t1 := g(bits.RotateLeft32(r[1], 8))
		r[2] = bits.RotateLeft32(r[2]^(t0+t1+ks[2*round+8]), -1)
		r[3] = bits.RotateLeft32(r[3], 1) ^ (t0 + 2*t1 + ks[2*round+9])
		r[0], r[1], r[2], r[3] = r[2], r[3], r[0], r[1]
	}
	for i := range 4 {
		binary.LittleEndian.PutUint32(dst[4*i:], r[(i+2)%4]^ks[4+i])
	}
}

// TestTwofishKeySchedule: the constant-time schedule, run through the
// reference encryption above, agrees with package twofish for every key
// size; each S-box is a permutation (q stages and XORs are).
func TestTwofishKeySchedule(t *testing.T) {
	r := newRand(t)
	for _, n := range []int{16, 24, 32} {
		for range 20 {
			key := randBytes(r, n)
			var ks [twofishKSWords]uint32
			twofishKeySchedule(&ks, key)
			ref, err := twofish.NewCipher(key)
			if err != nil {
				t.Fatal(err)
			}
			for range 4 {
				src := randBytes(r, 16)
				got, want := make([]byte, 16), make([]byte, 16)
				twofishRefEncrypt(&ks, got, src)
				ref.Encrypt(want, src)
				if !bytes.Equal(got, want) {
					t.Fatalf("key %x block %x: %x, package twofish %x", key, src, got, want)
				}
			}
			for j := range 4 {
				var seen [256]bool
				for x := range 256 {
					seen[byte(ks[40+64*j+x/4]>>(8*(x%4)))] = true
				}
				for v, ok := range seen {
					if !ok {
						t.Fatalf("key %x: s%d never yields %#x", key, j, v)
					}
				}
			}
		}
	}
	// The paper's q tables begin A9 67 B3 E8 (q0) and 75 F3 C6 F4 (q1).
	for i, want := range [2][4]byte{{0xA9, 0x67, 0xB3, 0xE8}, {0x75, 0xF3, 0xC6, 0xF4}} {
		for x, w := range want {
			if got := twofishQPerm(i, byte(x)); got != w {
				t.Errorf("q%d(%d) = %#x, want %#x", i, x, got, w)
			}
		}
	}
}

// TestTwofishAsmZeroTweak: with the tweak 0 the routine is ECB (what
// encryptTweaks relies on), block by block package twofish's, over several
// groups and every key size.
func TestTwofishAsmZeroTweak(t *testing.T) {
	c, _ := cpuid.Host()
	if why := missing(needsAVX512VBMIGFNI(c)); why != "" {
		t.Skipf("twofish-avx512 cannot run here: %s", why)
	}
	r := newRand(t)
	for _, n := range []int{16, 24, 32} {
		key := randBytes(r, n)
		var ks [twofishKSWords]uint32
		twofishKeySchedule(&ks, key)
		ref, _ := twofish.NewCipher(key)
		src := randBytes(r, 3*512)
		got := make([]byte, len(src))
		lo, hi := twofishXTSEncryptAVX512(&ks, got, src, 0, 0)
		if lo != 0 || hi != 0 {
			t.Errorf("next tweak of 0: %#x %#x", lo, hi)
		}
		want := make([]byte, len(src))
		for i := 0; i < len(src); i += 16 {
			ref.Encrypt(want[i:], src[i:])
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("key size %d: ECB differs: %s", n, firstDiff(got, want, 16))
		}
		back := make([]byte, len(src))
		twofishXTSDecryptAVX512(&ks, back, got, 0, 0)
		if !bytes.Equal(back, src) {
			t.Fatalf("key size %d: decryption does not invert", n)
		}
	}
}

// TestTwofishAsmFeatures: every instruction in ztwofish_amd64.s maps to a
// CPU feature that needsAVX512VBMIGFNI lists (a new instruction fails here
// until it is classified), and the GP<->xmm moves use xmm0-15, where they
// are VEX-encoded (on xmm16-31 VPINSRQ and VPEXTRQ need AVX-512DQ).
func TestTwofishAsmFeatures(t *testing.T) {
	feature := map[string]string{
		"VPERMI2B":            "AVX-512VBMI",
		"VGF2P8AFFINEQB.BCST": "GFNI",
		"VPCLMULQDQ":          "VPCLMULQDQ",
		"VPSLLDQ":             "AVX-512BW",
		"VMOVQ":               "AVX", "VPINSRQ": "AVX", "VPEXTRQ": "AVX", "VZEROUPPER": "AVX",
	}
	for _, mn := range []string{"VMOVDQA64", "VMOVDQU64", "VPADDD", "VPADDD.BCST", "VPROLD", "VPRORD",
		"VPSLLQ", "VPSRLQ", "VPSLLVQ", "VPSRLVQ", "VPTERNLOGD", "VPUNPCKLDQ", "VPUNPCKHDQ",
		"VPUNPCKLQDQ", "VPUNPCKHQDQ", "VPXORD", "VPXORD.BCST", "VSHUFI64X2"} {
		feature[mn] = "AVX-512F"
	}
	scalar := map[string]bool{"ADDQ": true, "ANDQ": true, "DECQ": true, "JNZ": true, "JZ": true,
		"MOVQ": true, "RET": true, "SHRQ": true, "TESTQ": true}
	listed := map[string]bool{"AVX": true} // AVX-512F implies AVX
	for _, r := range needsAVX512VBMIGFNI(cpuid.X86{}) {
		listed[r.name] = true
	}
	highX := regexp.MustCompile(`\bX(1[6-9]|2[0-9]|3[01])\b`)
	_, rs := asmLintParse(t, "ztwofish_amd64.s")
	for _, r := range rs {
		for _, l := range r.lines[1:] {
			mn, ops, _ := strings.Cut(l, " ")
			if scalar[mn] {
				continue
			}
			f, ok := feature[mn]
			if !ok {
				t.Errorf("%s: %q: instruction not classified by CPU feature", r.name, l)
				continue
			}
			if !listed[f] {
				t.Errorf("%s: %q needs %s, which needsAVX512VBMIGFNI does not list", r.name, l, f)
			}
			if mn == "VPXORD" && strings.Contains(ops, "X") && !listed["AVX-512VL"] {
				t.Errorf("%s: %q needs AVX-512VL", r.name, l)
			}
			if f == "AVX" && highX.MatchString(ops) {
				t.Errorf("%s: %q: xmm16-31 makes it EVEX (AVX-512DQ for VPINSRQ/VPEXTRQ)", r.name, l)
			}
		}
	}
}
