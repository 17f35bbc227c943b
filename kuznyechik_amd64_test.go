//go:build !purego

package xts

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/fastxts/xts/internal/cpuid"

	"github.com/fastxts/xts/kuznyechik"
)

// kuznyechikRefEncrypt and kuznyechikRefDecrypt run Kuznyechik a block at
// a time on round keys K_1..K_10 with this file's S and L, as RFC 7801
// writes the cipher: what the key schedule gives the routines, checked
// against package kuznyechik.
func kuznyechikRefEncrypt(k *[10]kuznyechikBlock, x kuznyechikBlock) kuznyechikBlock {
	m := kuznyechikLinear()
	for r := range 10 {
		if r > 0 {
			x = kuznyechikApply(&m.l, kuznyechikSub(x))
		}
		x = kuznyechikBlock{x[0] ^ k[r][0], x[1] ^ k[r][1]}
	}
	return x
}

// kuznyechikInvSub is S^-1, by search (test only, not constant time).
func kuznyechikInvSub(x kuznyechikBlock) (y kuznyechikBlock) {
	for i := range 16 {
		v := byte(x[i/8] >> (8 * (i % 8)))
		for u := range 256 {
			if kuznyechikSbox[u] == v {
				y[i/8] |= uint64(u) << (8 * (i % 8))
			}
		}
	}
	return y
}

func kuznyechikRefDecrypt(k *[10]kuznyechikBlock, x kuznyechikBlock) kuznyechikBlock {
	m := kuznyechikLinear()
	for r := 9; r >= 0; r-- {
		x = kuznyechikBlock{x[0] ^ k[r][0], x[1] ^ k[r][1]}
		if r > 0 {
			x = kuznyechikInvSub(kuznyechikApply(&m.lInv, x))
		}
	}
	return x
}

func kuznyechikToBlock(b []byte) kuznyechikBlock {
	return kuznyechikBlock{le64(b[:8]), le64(b[8:16])}
}

func le64(b []byte) uint64 {
	var v uint64
	for i := range 8 {
		v |= uint64(b[i]) << (8 * i)
	}
	return v
}

// TestKuznyechikKeySchedule: the round keys K_1..K_10 this package computes, with S
// and L here, encrypt and decrypt as package kuznyechik does, on random
// keys and blocks and on RFC 7801's example.
func TestKuznyechikKeySchedule(t *testing.T) {
	r := newRand(t)
	for i := range 20 {
		key := randKey(r, 32)
		if i == 0 {
			key = unhexT(t, "8899aabbccddeeff0011223344556677fedcba98765432100123456789abcdef")
		}
		k := kuznyechikRoundKeys(key)
		b, err := kuznyechik.NewCipher(key)
		if err != nil {
			t.Fatal(err)
		}
		for range 4 {
			pt := randBytes(r, 16)
			if i == 0 {
				pt = unhexT(t, "1122334455667700ffeeddccbbaa9988")
			}
			want := make([]byte, 16)
			b.Encrypt(want, pt)
			if got := kuznyechikRefEncrypt(&k, kuznyechikToBlock(pt)); got != kuznyechikToBlock(want) {
				t.Fatalf("key %x: encrypt %x: got %x, want %x", key, pt, got, want)
			}
			b.Decrypt(want, pt)
			if got := kuznyechikRefDecrypt(&k, kuznyechikToBlock(pt)); got != kuznyechikToBlock(want) {
				t.Fatalf("key %x: decrypt %x: got %x, want %x", key, pt, got, want)
			}
		}
	}
}

// TestKuznyechikRoutinesECB: with the tweak 0 the routines are ECB; every
// block of 512 and 1,536 bytes (the loop and the odd group) against
// package kuznyechik.
func TestKuznyechikRoutinesECB(t *testing.T) {
	r := newRand(t)
	key := randKey(r, 32)
	b, err := kuznyechik.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	var enc, dec [10][16]uint32
	kuznyechikKeySchedule(&enc, &dec, key)
	host, _ := cpuid.Host()
	for _, v := range kuznyechikX86Variants {
		if missing(v.needs(host)) != "" {
			t.Skipf("%s unavailable here", v.name)
		}
		for _, n := range []int{512, 1024, 1536} {
			src := randBytes(r, n)
			want := make([]byte, n)
			wantD := make([]byte, n)
			for i := 0; i < n; i += 16 {
				b.Encrypt(want[i:], src[i:])
				b.Decrypt(wantD[i:], src[i:])
			}
			got := make([]byte, n)
			v.funcs.encrypt(&enc, got, src, 0, 0)
			if !bytes.Equal(got, want) {
				t.Fatalf("%s encrypt n=%d: %s", v.name, n, firstDiff(got, want, 16))
			}
			v.funcs.decrypt(&dec, got, src, 0, 0)
			if !bytes.Equal(got, wantD) {
				t.Fatalf("%s decrypt n=%d: %s", v.name, n, firstDiff(got, wantD, 16))
			}
		}
	}
}

func unhexT(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestKuznyechikNeeds: on a CPU without the features the variant is
// unavailable and names each; with all of them it lacks nothing; without
// only VBMI or only GFNI (AVX-512 CPUs before Ice Lake, Zen 3) it names
// that one.
func TestKuznyechikNeeds(t *testing.T) {
	var none cpuid.X86
	why := missing(needsAVX512VBMIGFNI(none))
	for _, f := range []string{"AVX-512F/BW/VL", "AVX-512VBMI", "GFNI", "VPCLMULQDQ"} {
		if !strings.Contains(why, f) {
			t.Errorf("no features: %q does not name %s", why, f)
		}
	}
	all := cpuid.X86{AVX512F: true, AVX512BW: true, AVX512VL: true, AVX512VBMI: true, GFNI: true,
		VPCLMULQDQ: true, AVX: true, AVX2: true, OSXSAVE: true, OSYMM: true, OSZMM: true}
	if why := missing(needsAVX512VBMIGFNI(all)); why != "" {
		t.Errorf("every feature: missing %q", why)
	}
	noVBMI, noGFNI := all, all
	noVBMI.AVX512VBMI = false
	noGFNI.GFNI = false
	if why := missing(needsAVX512VBMIGFNI(noVBMI)); !strings.Contains(why, "VBMI") || strings.Contains(why, "GFNI") {
		t.Errorf("without VBMI: %q", why)
	}
	if why := missing(needsAVX512VBMIGFNI(noGFNI)); !strings.Contains(why, "GFNI") || strings.Contains(why, "VBMI") {
		t.Errorf("without GFNI: %q", why)
	}
}
