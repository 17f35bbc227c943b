// Copyright 2026 The fastxts Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build gcrypt && cgo

package serpent

// These tests compare the package with libgcrypt, through the helpers in
// gcrypt_cgo.go (apt-get install libgcrypt20-dev; go test -tags gcrypt).
// libgcrypt's Serpent has the byte order of the Linux kernel's "serpent"
// and of VeraCrypt.

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/fastxts/xts"
)

func gcryptCrypt(t *testing.T, algo, mode int, enc bool, key, iv, in []byte) []byte {
	t.Helper()
	out, err := gcrypt(algo, mode, enc, key, iv, in)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func randBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// TestGcryptECB compares single blocks under random keys of every size.
func TestGcryptECB(t *testing.T) {
	for _, n := range []int{16, 24, 32} {
		for range 200 {
			key, pt := randBytes(n), randBytes(64)
			want := gcryptCrypt(t, gcryptAlgo(n), gcryModeECB, true, key, nil, pt)
			c, err := NewCipher(key)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]byte, len(pt))
			for i := 0; i < len(pt); i += 16 {
				c.Encrypt(got[i:], pt[i:])
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("key %x pt %x: got %x, libgcrypt %x", key, pt, got, want)
			}
			back := make([]byte, len(pt))
			for i := 0; i < len(pt); i += 16 {
				c.Decrypt(back[i:], got[i:])
			}
			if !bytes.Equal(back, pt) {
				t.Fatalf("key %x: decrypt gives %x, want %x", key, back, pt)
			}
			if dec := gcryptCrypt(t, gcryptAlgo(n), gcryModeECB, false, key, nil, want); !bytes.Equal(dec, pt) {
				t.Fatalf("libgcrypt does not decrypt its own output")
			}
		}
	}
}

// TestGcryptXTS compares xts.NewCipher(NewCipher, ...) with
// libgcrypt's XTS mode, whose IV is the tweak: the little-endian sector
// number.
func TestGcryptXTS(t *testing.T) {
	for _, keyLen := range []int{32, 64} {
		for _, sectorSize := range []int{16, 17, 512, 520, 4096} {
			for range 5 {
				key := randBytes(keyLen)
				for bytes.Equal(key[:keyLen/2], key[keyLen/2:]) {
					key = randBytes(keyLen)
				}
				c, err := xts.NewCipher(NewCipher, key)
				if err != nil {
					t.Fatal(err)
				}
				var sb [8]byte
				rand.Read(sb[:])
				sector := binary.LittleEndian.Uint64(sb[:])
				var iv [16]byte
				binary.LittleEndian.PutUint64(iv[:], sector)
				pt := randBytes(sectorSize)
				want := gcryptCrypt(t, gcryptAlgo(keyLen/2), gcryModeXTS, true, key, iv[:], pt)
				got := make([]byte, sectorSize)
				c.Encrypt(got, pt, sector)
				if !bytes.Equal(got, want) {
					t.Fatalf("key %d bytes, sector %d of %d bytes: differs from libgcrypt", keyLen, sector, sectorSize)
				}
				back := make([]byte, sectorSize)
				c.Decrypt(back, got, sector)
				if !bytes.Equal(back, pt) {
					t.Fatalf("decrypt does not invert encrypt")
				}
			}
		}
	}
}

var gcryptUpdate = flag.Bool("gcrypt.update", false, "rewrite testdata/gcrypt_ecb.txt from libgcrypt")

// TestGcryptWriteVectors writes testdata/gcrypt_ecb.txt, the libgcrypt
// ECB blocks that TestGcryptVectors checks without cgo, when
// -gcrypt.update is given.
func TestGcryptWriteVectors(t *testing.T) {
	if !*gcryptUpdate {
		t.Skip("-gcrypt.update not given")
	}
	v, err := gcryptVersion()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Serpent ECB blocks computed by libgcrypt %s (GCRY_CIPHER_SERPENT128/192/256,\n", v)
	fmt.Fprintf(&b, "# GCRY_CIPHER_MODE_ECB) for random keys and plaintexts, in the byte order\n")
	fmt.Fprintf(&b, "# libgcrypt reads and writes. Written by go test -tags gcrypt -run\n")
	fmt.Fprintf(&b, "# TestGcryptWriteVectors -gcrypt.update.\n#\n# Columns: key plaintext ciphertext.\n")
	for _, n := range []int{16, 24, 32} {
		for range 8 {
			key, pt := randBytes(n), randBytes(16)
			ct := gcryptCrypt(t, gcryptAlgo(n), gcryModeECB, true, key, nil, pt)
			fmt.Fprintf(&b, "%x %x %x\n", key, pt, ct)
		}
	}
	if err := os.WriteFile("testdata/gcrypt_ecb.txt", []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
