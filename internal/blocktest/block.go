package blocktest

import (
	"bytes"
	"crypto/cipher"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

// KeySizes checks that c.BlockSize is 16, that New accepts exactly c.KeySizes among lengths 0..64,
// returning a Block of BlockSize, and rejects every other length with a nil
// Block and an error that errors.As finds as a KeySizeError E holding the
// length, whose text is "<name>: invalid key size <n>".
func KeySizes[E interface {
	~int
	error
}](t *testing.T, c Cipher) {
	t.Helper()
	if c.BlockSize != BlockSize {
		t.Errorf("BlockSize = %d, want %d", c.BlockSize, BlockSize)
	}
	for n := range 65 {
		b, err := c.New(make([]byte, n))
		if c.validKeySize(n) {
			if err != nil || b == nil || b.BlockSize() != BlockSize {
				t.Errorf("NewCipher(%d bytes) = %v, %v", n, b, err)
			}
			continue
		}
		var ks E
		if !errors.As(err, &ks) || int(ks) != n || b != nil {
			t.Errorf("NewCipher(%d bytes) = %v, %v; want KeySizeError(%d)", n, b, err, n)
		}
	}
	if got, want := E(7).Error(), c.Name+": invalid key size 7"; got != want {
		t.Errorf("KeySizeError(7).Error() = %q, want %q", got, want)
	}
}

// Panics checks that Encrypt and Decrypt panic with the package's message
// on a short source or destination and, where c.Overlap, on inexactly
// overlapping buffers; and that adjacent blocks and longer slices are
// accepted.
func Panics(t *testing.T, c Cipher) {
	t.Helper()
	b, err := c.New(make([]byte, c.KeySizes[0]))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 48)
	cases := []struct {
		name     string
		dst, src []byte
		msg      string
	}{
		{"short src", buf[:16], buf[16:31], c.Name + ": input not full block"},
		{"short dst", buf[:15], buf[16:32], c.Name + ": output not full block"},
	}
	if c.Overlap {
		cases = append(cases, []struct {
			name     string
			dst, src []byte
			msg      string
		}{
			{"overlap", buf[1:17], buf[0:16], c.Name + ": invalid buffer overlap"},
			{"overlap2", buf[0:16], buf[15:31], c.Name + ": invalid buffer overlap"},
		}...)
	}
	for _, tc := range cases {
		for _, f := range []struct {
			name string
			fn   func(dst, src []byte)
		}{{"Encrypt", b.Encrypt}, {"Decrypt", b.Decrypt}} {
			func() {
				defer func() {
					if r := recover(); r != tc.msg {
						t.Errorf("%s %s: panic %v, want %q", f.name, tc.name, r, tc.msg)
					}
				}()
				f.fn(tc.dst, tc.src)
			}()
		}
	}
	// Adjacent blocks and longer slices are fine.
	b.Encrypt(buf[16:], buf[:16])
	b.Decrypt(buf[:17], buf[16:40])
}

// InPlaceAndLonger checks, for every key size, in-place use and that only
// the first block of longer buffers is read and written.
func InPlaceAndLonger(t *testing.T, c Cipher) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range c.KeySizes {
		key := make([]byte, size)
		fill(rng, key)
		b, err := c.New(key)
		if err != nil {
			t.Fatal(err)
		}
		src := make([]byte, 40)
		fill(rng, src)
		want := make([]byte, BlockSize)
		b.Encrypt(want, src[:BlockSize])

		dst := bytes.Repeat([]byte{0xAA}, 40)
		b.Encrypt(dst, src)
		if !bytes.Equal(dst[:16], want) || !bytes.Equal(dst[16:], bytes.Repeat([]byte{0xAA}, 24)) {
			t.Errorf("%d-byte key: Encrypt into a longer buffer: %x", size, dst)
		}
		buf := bytes.Clone(src)
		b.Encrypt(buf, buf)
		if !bytes.Equal(buf[:16], want) || !bytes.Equal(buf[16:], src[16:]) {
			t.Errorf("%d-byte key: in-place Encrypt: %x, want %x", size, buf[:16], want)
		}
		b.Decrypt(buf, buf)
		if !bytes.Equal(buf, src) {
			t.Errorf("%d-byte key: in-place Decrypt: %x, want %x", size, buf, src)
		}
	}
}

// KeyCopied checks that clearing the key slice after New does not change
// the cipher: v's first block must still encrypt to its ciphertext.
func KeyCopied(t *testing.T, c Cipher, v Vector) {
	t.Helper()
	key := bytes.Clone(v.Key)
	b, err := c.New(key)
	if err != nil {
		t.Fatal(err)
	}
	clear(key)
	got := make([]byte, BlockSize)
	b.Encrypt(got, v.PT)
	if !bytes.Equal(got, v.CT[:BlockSize]) {
		t.Errorf("after clearing the key: %x, want %x", got, v.CT[:BlockSize])
	}
}

// NoAllocs checks that Encrypt and Decrypt do not allocate, for every key
// size.
func NoAllocs(t *testing.T, c Cipher) {
	t.Helper()
	for _, size := range c.KeySizes {
		b, err := c.New(make([]byte, size))
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, BlockSize)
		if n := testing.AllocsPerRun(100, func() { b.Encrypt(buf, buf); b.Decrypt(buf, buf) }); n != 0 {
			t.Errorf("%d-byte key: %v allocations per Encrypt+Decrypt, want 0", size, n)
		}
	}
}

// Concurrent uses the same Blocks, one per vector of vs (those of one
// iteration), from 8 goroutines, each of which also calls New itself
// first, so that any lazy initialization in New races too (run with
// -race). Every result must match the vectors.
func Concurrent(t *testing.T, c Cipher, vs []Vector) {
	t.Helper()
	var once []Vector
	for _, v := range vs {
		if v.Iterations == 1 {
			once = append(once, v)
		}
	}
	if len(once) == 0 {
		t.Fatal("no vectors of one iteration")
	}
	shared := sync.OnceValues(func() ([]cipher.Block, error) {
		bs := make([]cipher.Block, len(once))
		for i, v := range once {
			var err error
			if bs[i], err = c.New(v.Key); err != nil {
				return nil, err
			}
		}
		return bs, nil
	})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			v := once[g%len(once)]
			own, err := c.New(v.Key)
			if err != nil {
				errs <- err
				return
			}
			if err := checkOnce(own, v); err != nil {
				errs <- err
				return
			}
			bs, err := shared()
			if err != nil {
				errs <- err
				return
			}
			for range 50 {
				for i, v := range once {
					if err := checkOnce(bs[i], v); err != nil {
						errs <- err
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// checkOnce encrypts and decrypts v (of one iteration) block by block.
func checkOnce(b cipher.Block, v Vector) error {
	var buf [BlockSize]byte
	for i := 0; i < len(v.PT); i += BlockSize {
		b.Encrypt(buf[:], v.PT[i:])
		if !bytes.Equal(buf[:], v.CT[i:i+BlockSize]) {
			return fmt.Errorf("line %d: concurrent Encrypt gave %x, want %x", v.Line, buf, v.CT[i:i+BlockSize])
		}
		b.Decrypt(buf[:], buf[:])
		if !bytes.Equal(buf[:], v.PT[i:i+BlockSize]) {
			return fmt.Errorf("line %d: concurrent Decrypt gave %x, want %x", v.Line, buf, v.PT[i:i+BlockSize])
		}
	}
	return nil
}

func fill(rng *rand.Rand, b []byte) {
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
}
