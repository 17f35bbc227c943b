package pbkdf2

import (
	"bytes"
	stdpbkdf2 "crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"hash"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/crypto/blake2s"

	"github.com/fastxts/xts/internal/hash/ripemd160"
	"github.com/fastxts/xts/internal/hash/streebog"
	"github.com/fastxts/xts/internal/hash/whirlpool"
)

func blake2s256() hash.Hash {
	h, err := blake2s.New256(nil)
	if err != nil {
		panic(err)
	}
	return h
}

// opaque hides every method but hash.Hash's, so Key must take its path
// for hashes that cannot save their state.
type opaque struct{ hash.Hash }

func opaqueSHA256() hash.Hash { return opaque{sha256.New()} }

var hashes = []struct {
	name string
	h    func() hash.Hash
}{
	{"SHA-1", sha1.New},
	{"SHA-256", sha256.New},
	{"SHA-512", sha512.New},
	{"BLAKE2s-256", blake2s256},
	{"Whirlpool", whirlpool.New},
	{"RIPEMD-160", ripemd160.New},
	{"Streebog-512", streebog.New512},
	{"Streebog-256", streebog.New256},
	{"SHA-256, no MarshalBinary", opaqueSHA256},
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// RFC 6070 (PBKDF2-HMAC-SHA-1), RFC 7914, section 11
// (PBKDF2-HMAC-SHA-256), R 50.1.111-2016, section 4.1 (TC26's
// PBKDF2-HMAC-Streebog-512, RFC 6070's inputs), plus one
// PBKDF2-HMAC-RIPEMD-160 value computed with OpenSSL (Python's
// hashlib.pbkdf2_hmac).
func TestVectors(t *testing.T) {
	for _, v := range []struct {
		name, hash     string
		h              func() hash.Hash
		password, salt string
		iter           int
		want           string
		long           bool
	}{
		{"RFC 6070 1", "SHA-1", sha1.New, "password", "salt", 1, "0c60c80f961f0e71f3a9b524af6012062fe037a6", false},
		{"RFC 6070 2", "SHA-1", sha1.New, "password", "salt", 2, "ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957", false},
		{"RFC 6070 3", "SHA-1", sha1.New, "password", "salt", 4096, "4b007901b765489abead49d926f721d065a429c1", false},
		{"RFC 6070 4", "SHA-1", sha1.New, "password", "salt", 16777216, "eefe3d61cd4da4e4e9945b3d6ba2158c2634e984", true},
		{"RFC 6070 5", "SHA-1", sha1.New, "passwordPASSWORDpassword", "saltSALTsaltSALTsaltSALTsaltSALTsalt", 4096, "3d2eec4fe41c849b80c8d83662c0e44a8b291a964cf2f07038", false},
		{"RFC 6070 6", "SHA-1", sha1.New, "pass\x00word", "sa\x00lt", 4096, "56fa6aa75548099dcc37d7f03425e0c3", false},
		{"RFC 7914 1", "SHA-256", sha256.New, "passwd", "salt", 1, "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783", false},
		{"RFC 7914 2", "SHA-256", sha256.New, "Password", "NaCl", 80000, "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d", false},
		{"RFC 7914 2 opaque", "SHA-256", opaqueSHA256, "Password", "NaCl", 80000, "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d", false},
		{"R 50.1.111 1", "Streebog-512", streebog.New512, "password", "salt", 1, "64770af7f748c3b1c9ac831dbcfd85c26111b30a8a657ddc3056b80ca73e040d2854fd36811f6d825cc4ab66ec0a68a490a9e5cf5156b3a2b7eecddbf9a16b47", false},
		{"R 50.1.111 2", "Streebog-512", streebog.New512, "password", "salt", 2, "5a585bafdfbb6e8830d6d68aa3b43ac00d2e4aebce01c9b31c2caed56f0236d4d34b2b8fbd2c4e89d54d46f50e47d45bbac301571743119e8d3c42ba66d348de", false},
		{"R 50.1.111 3", "Streebog-512", streebog.New512, "password", "salt", 4096, "e52deb9a2d2aaff4e2ac9d47a41f34c20376591c67807f0477e32549dc341bc7867c09841b6d58e29d0347c996301d55df0d34e47cf68f4e3c2cdaf1d9ab86c3", false},
		{"R 50.1.111 5", "Streebog-512", streebog.New512, "passwordPASSWORDpassword", "saltSALTsaltSALTsaltSALTsaltSALTsalt", 4096, "b2d8f1245fc4d29274802057e4b54e0a0753aa22fc53760b301cf008679e58fe4bee9addcae99ba2b0b20f431a9c5e50f395c89387d0945aedeca6eb4015dfc2bd2421ee9bb71183ba882ceebfef259f33f9e27dc6178cb89dc37428cf9cc52a2baa2d3a", false},
		{"R 50.1.111 6", "Streebog-512", streebog.New512, "pass\x00word", "sa\x00lt", 4096, "50df062885b69801a3c10248eb0a27ab6e522ffeb20c991c660f001475d73a4e167f782c18e97e92976d9c1d970831ea78ccb879f67068cdac1910740844e830", false},
		{"OpenSSL RIPEMD-160", "RIPEMD-160", ripemd160.New, "password", "salt", 1000, "b5c5682c46fdb315930cfc54e82d0987e6ef938fee9320191bfbac2700de4ed4518152edc1ea7755", false},
	} {
		t.Run(v.name, func(t *testing.T) {
			if v.long && testing.Short() {
				t.Skip("16,777,216 iterations; skipped with -short")
			}
			want := unhex(t, v.want)
			got := Key(v.h, []byte(v.password), []byte(v.salt), v.iter, len(want))
			if !bytes.Equal(got, want) {
				t.Errorf("%s: got %x, want %x", v.hash, got, want)
			}
		})
	}
}

// TestAgainstStd compares Key with crypto/pbkdf2 for every hash, over
// passwords shorter than, equal to and longer than the block size, and
// key lengths around the digest size (several blocks, partial last
// block).
func TestAgainstStd(t *testing.T) {
	passwords := []string{"", "p", strings.Repeat("x", 63), strings.Repeat("y", 64), strings.Repeat("z", 65), strings.Repeat("w", 129), strings.Repeat("v", 200)}
	for _, hh := range hashes {
		t.Run(hh.name, func(t *testing.T) {
			size := hh.h().Size()
			for _, pw := range passwords {
				for _, keyLen := range []int{1, size - 1, size, size + 1, 3 * size, 192} {
					if keyLen < 1 {
						continue
					}
					for _, iter := range []int{1, 2, 7} {
						salt := []byte("salt/" + pw[:min(len(pw), 3)])
						want, err := stdpbkdf2.Key(hh.h, pw, salt, iter, keyLen)
						if err != nil {
							t.Fatal(err)
						}
						got := Key(hh.h, []byte(pw), salt, iter, keyLen)
						if !bytes.Equal(got, want) {
							t.Fatalf("password %d bytes, keyLen %d, iter %d: got %x, crypto/pbkdf2 %x", len(pw), keyLen, iter, got, want)
						}
						if len(got) != keyLen || cap(got) != keyLen {
							t.Fatalf("len %d cap %d, want %d", len(got), cap(got), keyLen)
						}
					}
				}
			}
		})
	}
}

// TestSerialAndParallel checks that the blocks come out the same on one
// goroutine and on several.
func TestSerialAndParallel(t *testing.T) {
	want, err := stdpbkdf2.Key(whirlpool.New, "pw", []byte("salt"), 50, 192)
	if err != nil {
		t.Fatal(err)
	}
	for _, procs := range []int{1, 2, 4} {
		old := runtime.GOMAXPROCS(procs)
		got := Key(whirlpool.New, []byte("pw"), []byte("salt"), 50, 192)
		runtime.GOMAXPROCS(old)
		if !bytes.Equal(got, want) {
			t.Errorf("GOMAXPROCS %d: got %x, want %x", procs, got, want)
		}
	}
}

// TestFastPath checks which hashes take the restore-with-message path:
// those whose digest is shorter than their block, so that the message
// waits in the saved buffer.
func TestFastPath(t *testing.T) {
	for _, c := range []struct {
		name string
		h    func() hash.Hash
		fast bool
	}{
		{"SHA-256", sha256.New, true},
		{"SHA-512", sha512.New, true},
		{"SHA-1", sha1.New, true},
		{"RIPEMD-160", ripemd160.New, true},
		{"Whirlpool", whirlpool.New, false},      // 64-byte digest, 64-byte block
		{"Streebog-512", streebog.New512, false}, // likewise
		{"Streebog-256", streebog.New256, true},
		// BLAKE2s keeps a full block unhashed until more input comes:
		// the saved state already has the pad block compressed.
		{"BLAKE2s-256", blake2s256, true},
		{"opaque", opaqueSHA256, false},
	} {
		p := newPRF(c.h, []byte("password"))
		if got := p.ioff >= 0 && p.ooff >= 0; got != c.fast {
			t.Errorf("%s: fast path %v (offsets %d, %d), want %v", c.name, got, p.ioff, p.ooff, c.fast)
		}
	}
}

func TestPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"iter 0":        func() { Key(sha256.New, nil, nil, 0, 32) },
		"keyLen 0":      func() { Key(sha256.New, nil, nil, 1, 0) },
		"keyLen -1":     func() { Key(sha256.New, nil, nil, 1, -1) },
		"iter negative": func() { Key(sha256.New, nil, nil, -5, 32) },
	} {
		func() {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || !strings.HasPrefix(s, "pbkdf2: ") {
					t.Errorf("%s: recovered %v, want a pbkdf2 panic", name, r)
				}
			}()
			f()
		}()
	}
}

// BenchmarkKey runs 10,000 iterations of one output block per hash, ours
// and crypto/pbkdf2's alternately; iters/s is PBKDF2 iterations per
// second on one core.
func BenchmarkKey(b *testing.B) {
	const iter = 10000
	for _, hh := range hashes {
		size := hh.h().Size()
		b.Run(hh.name+"/ours", func(b *testing.B) {
			for b.Loop() {
				Key(hh.h, []byte("password"), []byte("salt"), iter, size)
			}
			b.ReportMetric(float64(iter)*float64(b.N)/b.Elapsed().Seconds(), "iters/s")
		})
		b.Run(hh.name+"/std", func(b *testing.B) {
			for b.Loop() {
				stdpbkdf2.Key(hh.h, "password", []byte("salt"), iter, size)
			}
			b.ReportMetric(float64(iter)*float64(b.N)/b.Elapsed().Seconds(), "iters/s")
		})
	}
}
