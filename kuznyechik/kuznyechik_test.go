package kuznyechik_test

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/fastxts/xts/kuznyechik"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

func fill(rng *rand.Rand, b []byte) {
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
}

const (
	rfcKey    = "8899aabbccddeeff0011223344556677fedcba98765432100123456789abcdef"
	rfcPlain  = "1122334455667700ffeeddccbbaa9988"
	rfcCipher = "7f679d90bebc24305a468d42b9d4edcd"
)

// TestOracleECB checks testdata/ecb.txt: random keys and blocks encrypted
// by the GOST provider for OpenSSL (gost-engine), an implementation written
// independently of this one (testdata/gen_ecb.py).
func TestOracleECB(t *testing.T) {
	f, err := os.Open("testdata/ecb.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) != 3 {
			t.Fatalf("bad line %q", line)
		}
		key, pt, ct := unhex(t, fs[0]), unhex(t, fs[1]), unhex(t, fs[2])
		if len(pt) != len(ct) || len(pt)%kuznyechik.BlockSize != 0 || len(pt) == 0 {
			t.Fatalf("bad lengths in %q", line)
		}
		b, err := kuznyechik.NewCipher(key)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]byte, len(pt))
		for i := 0; i < len(pt); i += kuznyechik.BlockSize {
			b.Encrypt(got[i:], pt[i:])
		}
		if !bytes.Equal(got, ct) {
			t.Errorf("key %x: Encrypt(%x) = %x, want %x", key, pt, got, ct)
		}
		for i := 0; i < len(ct); i += kuznyechik.BlockSize {
			b.Decrypt(got[i:], ct[i:])
		}
		if !bytes.Equal(got, pt) {
			t.Errorf("key %x: Decrypt(%x) = %x, want %x", key, ct, got, pt)
		}
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Errorf("testdata/ecb.txt has %d vectors, want at least 100", n)
	}
}

func TestKeySizes(t *testing.T) {
	for n := range 65 {
		_, err := kuznyechik.NewCipher(make([]byte, n))
		if n == 32 {
			if err != nil {
				t.Errorf("32-byte key: %v", err)
			}
			continue
		}
		var kse kuznyechik.KeySizeError
		if !errors.As(err, &kse) || int(kse) != n {
			t.Errorf("%d-byte key: err = %v, want KeySizeError(%d)", n, err, n)
		}
	}
	if got, want := kuznyechik.KeySizeError(7).Error(), "kuznyechik: invalid key size 7"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestBlockSize(t *testing.T) {
	b, err := kuznyechik.NewCipher(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	if b.BlockSize() != kuznyechik.BlockSize || kuznyechik.BlockSize != 16 {
		t.Errorf("BlockSize() = %d, BlockSize = %d, want 16", b.BlockSize(), kuznyechik.BlockSize)
	}
}

func TestKeyCopied(t *testing.T) {
	key := unhex(t, rfcKey)
	b, err := kuznyechik.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	clear(key)
	got := make([]byte, 16)
	b.Encrypt(got, unhex(t, rfcPlain))
	if hex.EncodeToString(got) != rfcCipher {
		t.Errorf("after clearing the key: %x, want %s", got, rfcCipher)
	}
}

// TestInPlaceAndLonger checks in-place use and that only the first block of
// longer buffers is read and written.
func TestInPlaceAndLonger(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	key := make([]byte, 32)
	fill(rng, key)
	b, err := kuznyechik.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	src := make([]byte, 40)
	fill(rng, src)
	want := make([]byte, 16)
	b.Encrypt(want, src[:16])

	dst := bytes.Repeat([]byte{0xAA}, 40)
	b.Encrypt(dst, src)
	if !bytes.Equal(dst[:16], want) || !bytes.Equal(dst[16:], bytes.Repeat([]byte{0xAA}, 24)) {
		t.Errorf("Encrypt into a longer buffer: %x", dst)
	}
	buf := bytes.Clone(src)
	b.Encrypt(buf, buf)
	if !bytes.Equal(buf[:16], want) || !bytes.Equal(buf[16:], src[16:]) {
		t.Errorf("in-place Encrypt: %x, want %x", buf[:16], want)
	}
	b.Decrypt(buf, buf)
	if !bytes.Equal(buf, src) {
		t.Errorf("in-place Decrypt: %x, want %x", buf, src)
	}
}

func TestShortBuffersPanic(t *testing.T) {
	b, err := kuznyechik.NewCipher(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	long, short := make([]byte, 16), make([]byte, 15)
	for _, tc := range []struct {
		name string
		fn   func()
	}{
		{"Encrypt short src", func() { b.Encrypt(long, short) }},
		{"Encrypt short dst", func() { b.Encrypt(short, long) }},
		{"Decrypt short src", func() { b.Decrypt(long, short) }},
		{"Decrypt short dst", func() { b.Decrypt(short, long) }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tc.name)
				}
			}()
			tc.fn()
		}()
	}
}

func TestNoAllocs(t *testing.T) {
	b, err := kuznyechik.NewCipher(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	if n := testing.AllocsPerRun(100, func() { b.Encrypt(buf, buf); b.Decrypt(buf, buf) }); n != 0 {
		t.Errorf("%v allocations per Encrypt+Decrypt, want 0", n)
	}
}

// TestConcurrent uses one Block, and the first NewCipher calls (which build
// the tables), from several goroutines (run with -race).
func TestConcurrent(t *testing.T) {
	key, pt, ct := unhex(t, rfcKey), unhex(t, rfcPlain), unhex(t, rfcCipher)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 8 {
		wg.Go(func() {
			b, err := kuznyechik.NewCipher(key)
			if err != nil {
				errs <- err.Error()
				return
			}
			buf := make([]byte, 16)
			for range 500 {
				b.Encrypt(buf, pt)
				if !bytes.Equal(buf, ct) {
					errs <- "Encrypt gave a wrong result"
					return
				}
				b.Decrypt(buf, buf)
				if !bytes.Equal(buf, pt) {
					errs <- "Decrypt gave a wrong result"
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestGOST3413ECB checks the ECB example of GOST R 34.13-2015, Appendix
// A.1.1: four blocks under the RFC 7801 key (VeraCrypt's start-up self-test
// uses the same four blocks).
func TestGOST3413ECB(t *testing.T) {
	b, err := kuznyechik.NewCipher(unhex(t, rfcKey))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range [][2]string{
		{"1122334455667700ffeeddccbbaa9988", "7f679d90bebc24305a468d42b9d4edcd"},
		{"00112233445566778899aabbcceeff0a", "b429912c6e0032f9285452d76718d08b"},
		{"112233445566778899aabbcceeff0a00", "f0ca33549d247ceef3f5a5313bd4b157"},
		{"2233445566778899aabbcceeff0a0011", "d0b09ccde830b9eb3a02c4c5aa8ada98"},
	} {
		pt, ct := unhex(t, v[0]), unhex(t, v[1])
		got := make([]byte, 16)
		b.Encrypt(got, pt)
		if !bytes.Equal(got, ct) {
			t.Errorf("Encrypt(%s) = %x, want %s", v[0], got, v[1])
		}
		b.Decrypt(got, ct)
		if !bytes.Equal(got, pt) {
			t.Errorf("Decrypt(%s) = %x, want %s", v[1], got, v[0])
		}
	}
}
