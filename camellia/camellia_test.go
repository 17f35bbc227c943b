package camellia_test

import (
	"bytes"
	"crypto/cipher"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/fastxts/xts/camellia"
)

func TestKeySizes(t *testing.T) {
	for n := range 65 {
		_, err := camellia.NewCipher(make([]byte, n))
		switch n {
		case 16, 24, 32:
			if err != nil {
				t.Errorf("%d-byte key: %v", n, err)
			}
		default:
			var kse camellia.KeySizeError
			if !errors.As(err, &kse) || int(kse) != n {
				t.Errorf("%d-byte key: err = %v, want KeySizeError(%d)", n, err, n)
			}
		}
	}
	if got, want := camellia.KeySizeError(7).Error(), "camellia: invalid key size 7"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestBlockSize(t *testing.T) {
	b, err := camellia.NewCipher(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	if b.BlockSize() != camellia.BlockSize || camellia.BlockSize != 16 {
		t.Errorf("BlockSize() = %d, BlockSize = %d, want 16", b.BlockSize(), camellia.BlockSize)
	}
}

// TestKeyCopied checks that changing the key slice after NewCipher does not
// change the cipher.
func TestKeyCopied(t *testing.T) {
	key := unhex(t, knownAnswers[2].key)
	b, err := camellia.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	clear(key)
	got := make([]byte, 16)
	b.Encrypt(got, unhex(t, knownAnswers[2].plain))
	if want := unhex(t, knownAnswers[2].cipherT); !bytes.Equal(got, want) {
		t.Errorf("after clearing the key: %x, want %x", got, want)
	}
}

// TestInPlaceAndLonger checks in-place use and that only the first block of
// longer buffers is read and written.
func TestInPlaceAndLonger(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{16, 24, 32} {
		key := make([]byte, size)
		fill(rng, key)
		b, err := camellia.NewCipher(key)
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
			t.Errorf("%d: Encrypt into a longer buffer: %x", size, dst)
		}
		buf := bytes.Clone(src)
		b.Encrypt(buf, buf)
		if !bytes.Equal(buf[:16], want) || !bytes.Equal(buf[16:], src[16:]) {
			t.Errorf("%d: in-place Encrypt: %x, want %x", size, buf[:16], want)
		}
		b.Decrypt(buf, buf)
		if !bytes.Equal(buf, src) {
			t.Errorf("%d: in-place Decrypt: %x, want %x", size, buf, src)
		}
	}
}

func TestShortBuffersPanic(t *testing.T) {
	b, err := camellia.NewCipher(make([]byte, 16))
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
	for _, size := range []int{16, 32} {
		b, err := camellia.NewCipher(make([]byte, size))
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 16)
		if n := testing.AllocsPerRun(100, func() { b.Encrypt(buf, buf); b.Decrypt(buf, buf) }); n != 0 {
			t.Errorf("%d-byte key: %v allocations per Encrypt+Decrypt, want 0", size, n)
		}
	}
}

// TestConcurrent uses one Block from several goroutines (run with -race).
func TestConcurrent(t *testing.T) {
	b, err := camellia.NewCipher(unhex(t, knownAnswers[2].key))
	if err != nil {
		t.Fatal(err)
	}
	pt, ct := unhex(t, knownAnswers[2].plain), unhex(t, knownAnswers[2].cipherT)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 8 {
		wg.Go(func() {
			buf := make([]byte, 16)
			for range 500 {
				b.Encrypt(buf, pt)
				if !bytes.Equal(buf, ct) {
					errs <- "Encrypt"
					return
				}
				b.Decrypt(buf, buf)
				if !bytes.Equal(buf, pt) {
					errs <- "Decrypt"
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("concurrent %s gave a wrong result", e)
	}
}

func fill(rng *rand.Rand, b []byte) {
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
}

var _ cipher.Block = mustBlock()

func mustBlock() cipher.Block {
	b, err := camellia.NewCipher(make([]byte, 16))
	if err != nil {
		panic(err)
	}
	return b
}
