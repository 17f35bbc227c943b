//go:build !purego

package xts

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/fastxts/xts/camellia"
	"github.com/fastxts/xts/internal/cpuid"
)

// TestCamelliaNeeds: on a CPU without the features the variant is
// unavailable and names them; with all of them it needs nothing more.
func TestCamelliaNeeds(t *testing.T) {
	var none cpuid.X86
	why := missing(needsCamelliaGFNIAVX512(none))
	for _, f := range []string{"AVX-512", "GFNI", "VPCLMULQDQ"} {
		if !strings.Contains(why, f) {
			t.Errorf("no features: %q, want %s named", why, f)
		}
	}
	all := cpuid.X86{AVX2: true, AVX512F: true, AVX512BW: true, AVX512VL: true, GFNI: true, VPCLMULQDQ: true,
		OSXSAVE: true, OSYMM: true, OSZMM: true}
	if why := missing(needsCamelliaGFNIAVX512(all)); why != "" {
		t.Errorf("every feature: missing %q", why)
	}
	noGFNI := all
	noGFNI.GFNI = false
	if why := missing(needsCamelliaGFNIAVX512(noGFNI)); !strings.Contains(why, "GFNI") {
		t.Errorf("without GFNI: %q, want GFNI named", why)
	}
}

// TestCamelliaS1: the constant-time S-box of the key schedule is SBOX1.
func TestCamelliaS1(t *testing.T) {
	for x := range 256 {
		if got := camelliaS1(byte(x)); got != camelliaSbox1[x] {
			t.Fatalf("camelliaS1(%#x) = %#x, want %#x", x, got, camelliaSbox1[x])
		}
	}
}

// TestCamelliaRoutineRFC3713: the RFC 3713 (appendix A) vectors through
// the generated routines themselves: the single-block one, and the XTS one
// with the tweak 0 (ECB) for 16 to 80 blocks (a partial and a full
// iteration), encrypting and decrypting, the schedule from camelliaExpand.
func TestCamelliaRoutineRFC3713(t *testing.T) {
	pt, _ := hex.DecodeString("0123456789abcdeffedcba9876543210")
	for _, tc := range []struct{ key, ct string }{
		{"0123456789abcdeffedcba9876543210", "67673138549669730857065648eabe43"},
		{"0123456789abcdeffedcba98765432100011223344556677", "b4993401b3e996f84ee5cee7d79b09b9"},
		{"0123456789abcdeffedcba987654321000112233445566778899aabbccddeeff", "9acc237dff16d76c20ef7c919e3a7509"},
	} {
		key, _ := hex.DecodeString(tc.key)
		ct, _ := hex.DecodeString(tc.ct)
		var enc, dec camelliaSchedule
		rounds := camelliaExpand(&enc, &dec, key)
		if want := map[int]int{16: 18, 24: 24, 32: 24}[len(key)]; rounds != want {
			t.Fatalf("%d-byte key: %d rounds, want %d", len(key), rounds, want)
		}
		for _, v := range camelliaX86Variants {
			t.Run(v.name+"/key="+tc.key[:8], func(t *testing.T) {
				c, _ := cpuid.Host()
				if why := missing(v.needs(c)); why != "" {
					t.Skipf("%s unavailable here: %s", v.name, why)
				}
				var ke, kd [320]uint32
				sliceCamelliaSchedule(&ke, &enc, rounds)
				sliceCamelliaSchedule(&kd, &dec, rounds)
				var be, bd [40]uint64
				blockCamelliaSchedule(&be, &enc, rounds)
				blockCamelliaSchedule(&bd, &dec, rounds)
				var blk [16]byte
				v.funcs.block(&be, rounds, &blk, (*[16]byte)(pt))
				if !bytes.Equal(blk[:], ct) {
					t.Fatalf("single block: encrypt %x, want %x", blk, ct)
				}
				v.funcs.block(&bd, rounds, &blk, &blk)
				if !bytes.Equal(blk[:], pt) {
					t.Fatalf("single block: decrypt %x, want %x", blk, pt)
				}
				for _, blocks := range []int{16, 32, 48, 64, 80} {
					buf := bytes.Repeat(pt, blocks)
					if lo, hi := v.funcs.bulk(&ke, rounds, buf, buf, 0, 0); lo != 0 || hi != 0 {
						t.Fatalf("tweak 0 came back as %#x:%#x", hi, lo)
					}
					if want := bytes.Repeat(ct, blocks); !bytes.Equal(buf, want) {
						t.Fatalf("%d blocks: encrypt %s", blocks, firstDiff(buf, want, 16))
					}
					v.funcs.bulk(&kd, rounds, buf, buf, 0, 0)
					if want := bytes.Repeat(pt, blocks); !bytes.Equal(buf, want) {
						t.Fatalf("%d blocks: decrypt %s", blocks, firstDiff(buf, want, 16))
					}
				}
			})
		}
	}
}

// BenchmarkCamelliaXTS: BenchmarkCamelliaXTS/key=K/op=enc|dec/size=N, the
// default implementation (camellia-gfni-avx512 where it runs), one call
// per data unit, and op=dec-sectors512 (DecryptSectors of N bytes in
// 512-byte sectors), one goroutine; key=128 and key=256 are Camellia-128 and
// -256 (32- and 64-byte XTS keys), for the comparison with libgcrypt's
// figures (scripts/gcrypt-sid.sh).
func BenchmarkCamelliaXTS(b *testing.B) {
	for _, bits := range []int{128, 256} {
		key := make([]byte, bits/4)
		for i := range key {
			key[i] = byte(i)
		}
		c, err := NewCipher(camellia.NewCipher, key, WithoutParallelism())
		if err != nil {
			b.Fatal(err)
		}
		for _, op := range []string{"enc", "dec", "dec-sectors512"} {
			for _, size := range []int{512, 4096, 65536} {
				b.Run(fmt.Sprintf("key=%d/op=%s/size=%d", bits, op, size), func(b *testing.B) {
					buf := make([]byte, size)
					b.SetBytes(int64(size))
					for i := 0; b.Loop(); i++ {
						switch op {
						case "enc":
							c.Encrypt(buf, buf, uint64(i))
						case "dec":
							c.Decrypt(buf, buf, uint64(i))
						default:
							c.DecryptSectors(buf, buf, 512, uint64(i))
						}
					}
				})
			}
		}
	}
}
