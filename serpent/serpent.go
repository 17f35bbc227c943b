// Copyright 2026 The fastxts Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package serpent

//go:generate go run gen_sbox.go

import (
	"crypto/cipher"
	"encoding/binary"
	"math/bits"
	"strconv"
)

// BlockSize is the Serpent block size in bytes.
const BlockSize = 16

// KeySizeError is returned by NewCipher for a key whose length is not 16,
// 24 or 32 bytes. Its value is the length that was given.
type KeySizeError int

func (k KeySizeError) Error() string {
	return "serpent: invalid key size " + strconv.Itoa(int(k))
}

// phi is the fractional part of the golden ratio, used by the key schedule.
const phi = 0x9e3779b9

// serpentCipher holds the 33 round keys, 132 words. It is never written
// after NewCipher returns, so one value may be used from many goroutines.
type serpentCipher struct {
	k [132]uint32
}

// NewCipher returns a Serpent cipher.Block for a 16, 24 or 32-byte key
// (Serpent-128, -192, -256). Keys shorter than 32 bytes are padded as the
// specification prescribes: a 0x01 byte, then zeros. The key is read in the
// byte order described in the package documentation.
func NewCipher(key []byte) (cipher.Block, error) {
	switch len(key) {
	case 16, 24, 32:
	default:
		return nil, KeySizeError(len(key))
	}
	c := new(serpentCipher)
	c.expandKey(key)
	return c, nil
}

// expandKey computes the round keys: the padded key as eight little-endian
// words w[-8..-1], the prekeys w[i] = (w[i-8]^w[i-5]^w[i-3]^w[i-1]^phi^i)
// <<< 11, and round key i as S-box (3-i) mod 8 applied to w[4i..4i+3].
func (c *serpentCipher) expandKey(key []byte) {
	var w [140]uint32
	var padded [32]byte
	copy(padded[:], key)
	if len(key) < 32 {
		padded[len(key)] = 1
	}
	for i := range 8 {
		w[i] = binary.LittleEndian.Uint32(padded[4*i:])
	}
	for i := 8; i < 140; i++ {
		x := w[i-8] ^ w[i-5] ^ w[i-3] ^ w[i-1] ^ phi ^ uint32(i-8)
		w[i] = bits.RotateLeft32(x, 11)
	}
	for i := range 33 {
		p := w[8+4*i : 12+4*i]
		c.k[4*i], c.k[4*i+1], c.k[4*i+2], c.k[4*i+3] = sboxFuncs[(35-i)%8](p[0], p[1], p[2], p[3])
	}
	clear(w[:])
	clear(padded[:])
}

// BlockSize returns BlockSize.
func (c *serpentCipher) BlockSize() int { return BlockSize }

// Encrypt encrypts the first block of src into dst. dst and src may be the
// same slice; they must not otherwise overlap.
func (c *serpentCipher) Encrypt(dst, src []byte) {
	checkBlock(dst, src)
	x0, x1, x2, x3 := encryptWords(&c.k,
		binary.LittleEndian.Uint32(src[0:4]), binary.LittleEndian.Uint32(src[4:8]),
		binary.LittleEndian.Uint32(src[8:12]), binary.LittleEndian.Uint32(src[12:16]))
	binary.LittleEndian.PutUint32(dst[0:4], x0)
	binary.LittleEndian.PutUint32(dst[4:8], x1)
	binary.LittleEndian.PutUint32(dst[8:12], x2)
	binary.LittleEndian.PutUint32(dst[12:16], x3)
}

// Decrypt decrypts the first block of src into dst. dst and src may be the
// same slice; they must not otherwise overlap.
func (c *serpentCipher) Decrypt(dst, src []byte) {
	checkBlock(dst, src)
	x0, x1, x2, x3 := decryptWords(&c.k,
		binary.LittleEndian.Uint32(src[0:4]), binary.LittleEndian.Uint32(src[4:8]),
		binary.LittleEndian.Uint32(src[8:12]), binary.LittleEndian.Uint32(src[12:16]))
	binary.LittleEndian.PutUint32(dst[0:4], x0)
	binary.LittleEndian.PutUint32(dst[4:8], x1)
	binary.LittleEndian.PutUint32(dst[8:12], x2)
	binary.LittleEndian.PutUint32(dst[12:16], x3)
}

// lt is Serpent's linear transformation. gen_sbox.go writes the same
// statements out in the unrolled rounds of zsbox.go; lt itself is the
// reference the tests check them against.
func lt(x0, x1, x2, x3 uint32) (uint32, uint32, uint32, uint32) {
	x0 = bits.RotateLeft32(x0, 13)
	x2 = bits.RotateLeft32(x2, 3)
	x1 ^= x0 ^ x2
	x3 ^= x2 ^ x0<<3
	x1 = bits.RotateLeft32(x1, 1)
	x3 = bits.RotateLeft32(x3, 7)
	x0 ^= x1 ^ x3
	x2 ^= x3 ^ x1<<7
	x0 = bits.RotateLeft32(x0, 5)
	x2 = bits.RotateLeft32(x2, 22)
	return x0, x1, x2, x3
}

// ltInv inverts lt (written out in zsbox.go the same way).
func ltInv(x0, x1, x2, x3 uint32) (uint32, uint32, uint32, uint32) {
	x2 = bits.RotateLeft32(x2, -22)
	x0 = bits.RotateLeft32(x0, -5)
	x2 ^= x3 ^ x1<<7
	x0 ^= x1 ^ x3
	x3 = bits.RotateLeft32(x3, -7)
	x1 = bits.RotateLeft32(x1, -1)
	x3 ^= x2 ^ x0<<3
	x1 ^= x0 ^ x2
	x2 = bits.RotateLeft32(x2, -3)
	x0 = bits.RotateLeft32(x0, -13)
	return x0, x1, x2, x3
}
