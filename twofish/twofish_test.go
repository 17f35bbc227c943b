// Copyright 2026 The fastxts Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package twofish

import (
	"bufio"
	"bytes"
	"crypto/cipher"
	"encoding/hex"
	"errors"
	"math/rand/v2"

	//lint:ignore SA1019 x/crypto/twofish is deprecated for new uses; here it is only an oracle for the tests.
	xtwofish "golang.org/x/crypto/twofish"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// vector is one line of a testdata file: key, plaintext, ciphertext and
// how many times the plaintext is encrypted.
type vector struct {
	line        int
	key, pt, ct []byte
	iterations  int
}

func readVectors(t *testing.T, name string) []vector {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var vs []vector
	s := bufio.NewScanner(f)
	for n := 1; s.Scan(); n++ {
		line := strings.TrimSpace(s.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 3 || len(fields) > 4 {
			t.Fatalf("%s:%d: want 3 or 4 fields", name, n)
		}
		v := vector{line: n, iterations: 1}
		for i, p := range []*[]byte{&v.key, &v.pt, &v.ct} {
			if *p, err = hex.DecodeString(fields[i]); err != nil {
				t.Fatalf("%s:%d: %v", name, n, err)
			}
		}
		if len(fields) == 4 {
			if v.iterations, err = strconv.Atoi(fields[3]); err != nil || v.iterations < 1 {
				t.Fatalf("%s:%d: bad iteration count", name, n)
			}
		}
		vs = append(vs, v)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	if len(vs) == 0 {
		t.Fatalf("%s: no vectors", name)
	}
	return vs
}

// checkVectors encrypts and decrypts every vector, also in place.
func checkVectors(t *testing.T, name string, vs []vector) {
	t.Helper()
	sizes := map[int]int{}
	for _, v := range vs {
		c, err := NewCipher(v.key)
		if err != nil {
			t.Fatalf("%s:%d: %v", name, v.line, err)
		}
		sizes[len(v.key)]++
		got := slices.Clone(v.pt)
		for range v.iterations {
			c.Encrypt(got, got)
		}
		if !bytes.Equal(got, v.ct) {
			t.Errorf("%s:%d: encrypt = %x, want %x", name, v.line, got, v.ct)
			continue
		}
		for range v.iterations {
			c.Decrypt(got, got)
		}
		if !bytes.Equal(got, v.pt) {
			t.Errorf("%s:%d: decrypt = %x, want %x", name, v.line, got, v.pt)
		}
	}
	t.Logf("%s: vectors per key size %v", name, sizes)
}

func TestPaper(t *testing.T) {
	checkVectors(t, "paper.txt", readVectors(t, "testdata/paper.txt"))
}

// TestECBTable runs the chain of ECB_TBL.TXT for each key size and checks
// its published last ciphertext (I=49). Each step encrypts the previous
// ciphertext under a key made of the previous plaintext followed by the
// first len(key)-16 bytes of the previous key, starting from zeros.
func TestECBTable(t *testing.T) {
	for _, tc := range []struct {
		keyLen int
		last   string
	}{
		{16, "5d9d4eeffa9151575524f115815a12e0"},
		{24, "e75449212beef9f4a390bd860a640941"},
		{32, "37fe26ff1cf66175f5ddf4c33b97a205"},
	} {
		key, pt := make([]byte, tc.keyLen), make([]byte, BlockSize)
		ct := make([]byte, BlockSize)
		for range 49 {
			c, err := NewCipher(key)
			if err != nil {
				t.Fatal(err)
			}
			c.Encrypt(ct, pt)
			back := make([]byte, BlockSize)
			c.Decrypt(back, ct)
			if !bytes.Equal(back, pt) {
				t.Fatalf("%d-byte key %x: decrypt does not invert encrypt", tc.keyLen, key)
			}
			key = append(slices.Clone(pt), key[:tc.keyLen-16]...)
			pt = slices.Clone(ct)
		}
		if got := hex.EncodeToString(ct); got != tc.last {
			t.Errorf("%d-byte key: I=49 ciphertext %s, want %s", tc.keyLen, got, tc.last)
		}
	}
}

// TestGcryptVectors checks ECB blocks that libgcrypt 1.10.1 computed for
// random keys and plaintexts (written by go test -tags gcrypt -run
// TestGcryptWriteVectors -gcrypt.update).
func TestGcryptVectors(t *testing.T) {
	checkVectors(t, "gcrypt_ecb.txt", readVectors(t, "testdata/gcrypt_ecb.txt"))
}

// TestXCrypto compares with golang.org/x/crypto/twofish for random keys of
// every size and random blocks.
func TestXCrypto(t *testing.T) {
	rng := rand.NewChaCha8([32]byte{1})
	for _, n := range []int{16, 24, 32} {
		for range 300 {
			key, pt := make([]byte, n), make([]byte, BlockSize)
			rng.Read(key)
			rng.Read(pt)
			a, err := NewCipher(key)
			if err != nil {
				t.Fatal(err)
			}
			b, err := xtwofish.NewCipher(key)
			if err != nil {
				t.Fatal(err)
			}
			got, want := make([]byte, BlockSize), make([]byte, BlockSize)
			a.Encrypt(got, pt)
			b.Encrypt(want, pt)
			if !bytes.Equal(got, want) {
				t.Fatalf("key %x pt %x: encrypt %x, x/crypto %x", key, pt, got, want)
			}
			a.Decrypt(got, pt)
			b.Decrypt(want, pt)
			if !bytes.Equal(got, want) {
				t.Fatalf("key %x ct %x: decrypt %x, x/crypto %x", key, pt, got, want)
			}
		}
	}
}

func TestKeySizes(t *testing.T) {
	for n := range 65 {
		c, err := NewCipher(make([]byte, n))
		switch n {
		case 16, 24, 32:
			if err != nil || c == nil || c.BlockSize() != BlockSize {
				t.Errorf("NewCipher(%d bytes) = %v, %v", n, c, err)
			}
		default:
			var ks KeySizeError
			if !errors.As(err, &ks) || int(ks) != n || c != nil {
				t.Errorf("NewCipher(%d bytes) = %v, %v; want KeySizeError(%d)", n, c, err, n)
			}
		}
	}
	if got, want := KeySizeError(7).Error(), "twofish: invalid key size 7"; got != want {
		t.Errorf("KeySizeError(7).Error() = %q, want %q", got, want)
	}
}

func TestPanics(t *testing.T) {
	c, _ := NewCipher(make([]byte, 16))
	buf := make([]byte, 48)
	for _, tc := range []struct {
		name     string
		dst, src []byte
		msg      string
	}{
		{"short src", buf[:16], buf[16:31], "twofish: input not full block"},
		{"short dst", buf[:15], buf[16:32], "twofish: output not full block"},
		{"overlap", buf[1:17], buf[0:16], "twofish: invalid buffer overlap"},
		{"overlap2", buf[0:16], buf[15:31], "twofish: invalid buffer overlap"},
	} {
		for _, f := range []func([]byte, []byte){c.Encrypt, c.Decrypt} {
			func() {
				defer func() {
					if r := recover(); r != tc.msg {
						t.Errorf("%s: panic %v, want %q", tc.name, r, tc.msg)
					}
				}()
				f(tc.dst, tc.src)
			}()
		}
	}
	// Adjacent blocks and longer slices are fine.
	c.Encrypt(buf[16:], buf[:16])
	c.Decrypt(buf[:17], buf[16:40])
}

func TestNoAllocs(t *testing.T) {
	c, _ := NewCipher(make([]byte, 32))
	buf := make([]byte, 16)
	if n := testing.AllocsPerRun(100, func() {
		c.Encrypt(buf, buf)
		c.Decrypt(buf, buf)
	}); n != 0 {
		t.Errorf("Encrypt+Decrypt allocate %v times", n)
	}
}

// TestConcurrent uses one Block from several goroutines (run with -race).
func TestConcurrent(t *testing.T) {
	vs := readVectors(t, "testdata/paper.txt")
	blocks := make([]cipher.Block, len(vs))
	for i, v := range vs {
		blocks[i], _ = NewCipher(v.key)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 8 {
		wg.Go(func() {
			out := make([]byte, 16)
			for range 50 {
				for i, v := range vs {
					if v.iterations != 1 {
						continue
					}
					blocks[i].Encrypt(out, v.pt)
					if !bytes.Equal(out, v.ct) {
						errs <- "concurrent Encrypt gave a wrong result"
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}
