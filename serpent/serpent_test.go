// Copyright 2026 The fastxts Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package serpent

import (
	"bufio"
	"bytes"
	"crypto/cipher"
	"encoding/hex"
	"errors"
	"math/rand/v2"
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

func TestNESSIE(t *testing.T) {
	vs := readVectors(t, "testdata/nessie.txt")
	checkVectors(t, "nessie.txt", vs)
}

// TestSubmission checks the AES-submission vectors, printed in the reverse
// byte order.
func TestSubmission(t *testing.T) {
	vs := readVectors(t, "testdata/submission.txt")
	for i := range vs {
		slices.Reverse(vs[i].key)
		slices.Reverse(vs[i].pt)
		slices.Reverse(vs[i].ct)
	}
	checkVectors(t, "submission.txt", vs)
}

// TestGcryptVectors checks ECB blocks that libgcrypt 1.10.1 computed for
// random keys and plaintexts (written by go test -tags gcrypt -run
// TestGcryptECB -gcrypt.update).
func TestGcryptVectors(t *testing.T) {
	vs := readVectors(t, "testdata/gcrypt_ecb.txt")
	checkVectors(t, "gcrypt_ecb.txt", vs)
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
	if got, want := KeySizeError(7).Error(), "serpent: invalid key size 7"; got != want {
		t.Errorf("KeySizeError(7).Error() = %q, want %q", got, want)
	}
}

// TestShortKeyPadding checks the specification's padding of short keys: a
// 16-byte key k is the 32-byte key k || 01 || 00...
func TestShortKeyPadding(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{16, 24} {
		key := make([]byte, n)
		for i := range key {
			key[i] = byte(rng.Uint32())
		}
		long := make([]byte, 32)
		copy(long, key)
		long[n] = 1
		a, _ := NewCipher(key)
		b, _ := NewCipher(long)
		if a.(*serpentCipher).k != b.(*serpentCipher).k {
			t.Errorf("%d-byte key: round keys differ from the padded 32-byte key's", n)
		}
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
		{"short src", buf[:16], buf[16:31], "serpent: input not full block"},
		{"short dst", buf[:15], buf[16:32], "serpent: output not full block"},
		{"overlap", buf[1:17], buf[0:16], "serpent: invalid buffer overlap"},
		{"overlap2", buf[0:16], buf[15:31], "serpent: invalid buffer overlap"},
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
	vs := readVectors(t, "testdata/nessie.txt")
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
