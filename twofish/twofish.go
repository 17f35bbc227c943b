// Copyright 2026 The fastxts Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package twofish

import (
	"crypto/cipher"
	"encoding/binary"
	"math/bits"
	"strconv"
)

// BlockSize is the Twofish block size in bytes.
const BlockSize = 16

// KeySizeError is returned by NewCipher for a key whose length is not 16,
// 24 or 32 bytes. Its value is the length that was given.
type KeySizeError int

func (k KeySizeError) Error() string {
	return "twofish: invalid key size " + strconv.Itoa(int(k))
}

// twofishCipher is a keyed Twofish: the key-dependent S-boxes fused with
// the MDS matrix (s[i][x] is the contribution of input byte i = x to the
// g function) and the 40 subkeys. It is never written after NewCipher
// returns, so one value may be used from many goroutines.
type twofishCipher struct {
	s [4][256]uint32
	k [40]uint32
}

// NewCipher returns a Twofish cipher.Block for a 16, 24 or 32-byte key
// (Twofish-128, -192, -256).
func NewCipher(key []byte) (cipher.Block, error) {
	switch len(key) {
	case 16, 24, 32:
	default:
		return nil, KeySizeError(len(key))
	}
	tf := new(twofishCipher)
	tf.expandKey(key)
	return tf, nil
}

// BlockSize returns BlockSize.
func (tf *twofishCipher) BlockSize() int { return BlockSize }

// Encrypt encrypts the first block of src into dst. dst and src may be the
// same slice; they must not otherwise overlap.
func (tf *twofishCipher) Encrypt(dst, src []byte) {
	checkBlock(dst, src)
	k := &tf.k
	s0, s1, s2, s3 := &tf.s[0], &tf.s[1], &tf.s[2], &tf.s[3]
	a := binary.LittleEndian.Uint32(src[0:4]) ^ k[0]
	b := binary.LittleEndian.Uint32(src[4:8]) ^ k[1]
	c := binary.LittleEndian.Uint32(src[8:12]) ^ k[2]
	d := binary.LittleEndian.Uint32(src[12:16]) ^ k[3]
	var t0, t1 uint32
	// round 0
	t0 = s0[byte(a)] ^ s1[byte(a>>8)] ^ s2[byte(a>>16)] ^ s3[a>>24]
	t1 = s0[b>>24] ^ s1[byte(b)] ^ s2[byte(b>>8)] ^ s3[byte(b>>16)]
	c = bits.RotateLeft32(c^(t0+t1+k[8]), -1)
	d = bits.RotateLeft32(d, 1) ^ (t0 + 2*t1 + k[9])
	// round 1
	t0 = s0[byte(c)] ^ s1[byte(c>>8)] ^ s2[byte(c>>16)] ^ s3[c>>24]
	t1 = s0[d>>24] ^ s1[byte(d)] ^ s2[byte(d>>8)] ^ s3[byte(d>>16)]
	a = bits.RotateLeft32(a^(t0+t1+k[10]), -1)
	b = bits.RotateLeft32(b, 1) ^ (t0 + 2*t1 + k[11])
	// round 2
	t0 = s0[byte(a)] ^ s1[byte(a>>8)] ^ s2[byte(a>>16)] ^ s3[a>>24]
	t1 = s0[b>>24] ^ s1[byte(b)] ^ s2[byte(b>>8)] ^ s3[byte(b>>16)]
	c = bits.RotateLeft32(c^(t0+t1+k[12]), -1)
	d = bits.RotateLeft32(d, 1) ^ (t0 + 2*t1 + k[13])
	// round 3
	t0 = s0[byte(c)] ^ s1[byte(c>>8)] ^ s2[byte(c>>16)] ^ s3[c>>24]
	t1 = s0[d>>24] ^ s1[byte(d)] ^ s2[byte(d>>8)] ^ s3[byte(d>>16)]
	a = bits.RotateLeft32(a^(t0+t1+k[14]), -1)
	b = bits.RotateLeft32(b, 1) ^ (t0 + 2*t1 + k[15])
	// round 4
	t0 = s0[byte(a)] ^ s1[byte(a>>8)] ^ s2[byte(a>>16)] ^ s3[a>>24]
	t1 = s0[b>>24] ^ s1[byte(b)] ^ s2[byte(b>>8)] ^ s3[byte(b>>16)]
	c = bits.RotateLeft32(c^(t0+t1+k[16]), -1)
	d = bits.RotateLeft32(d, 1) ^ (t0 + 2*t1 + k[17])
	// round 5
	t0 = s0[byte(c)] ^ s1[byte(c>>8)] ^ s2[byte(c>>16)] ^ s3[c>>24]
	t1 = s0[d>>24] ^ s1[byte(d)] ^ s2[byte(d>>8)] ^ s3[byte(d>>16)]
	a = bits.RotateLeft32(a^(t0+t1+k[18]), -1)
	b = bits.RotateLeft32(b, 1) ^ (t0 + 2*t1 + k[19])
	// round 6
	t0 = s0[byte(a)] ^ s1[byte(a>>8)] ^ s2[byte(a>>16)] ^ s3[a>>24]
	t1 = s0[b>>24] ^ s1[byte(b)] ^ s2[byte(b>>8)] ^ s3[byte(b>>16)]
	c = bits.RotateLeft32(c^(t0+t1+k[20]), -1)
	d = bits.RotateLeft32(d, 1) ^ (t0 + 2*t1 + k[21])
	// round 7
	t0 = s0[byte(c)] ^ s1[byte(c>>8)] ^ s2[byte(c>>16)] ^ s3[c>>24]
	t1 = s0[d>>24] ^ s1[byte(d)] ^ s2[byte(d>>8)] ^ s3[byte(d>>16)]
	a = bits.RotateLeft32(a^(t0+t1+k[22]), -1)
	b = bits.RotateLeft32(b, 1) ^ (t0 + 2*t1 + k[23])
	// round 8
	t0 = s0[byte(a)] ^ s1[byte(a>>8)] ^ s2[byte(a>>16)] ^ s3[a>>24]
	t1 = s0[b>>24] ^ s1[byte(b)] ^ s2[byte(b>>8)] ^ s3[byte(b>>16)]
	c = bits.RotateLeft32(c^(t0+t1+k[24]), -1)
	d = bits.RotateLeft32(d, 1) ^ (t0 + 2*t1 + k[25])
	// round 9
	t0 = s0[byte(c)] ^ s1[byte(c>>8)] ^ s2[byte(c>>16)] ^ s3[c>>24]
	t1 = s0[d>>24] ^ s1[byte(d)] ^ s2[byte(d>>8)] ^ s3[byte(d>>16)]
	a = bits.RotateLeft32(a^(t0+t1+k[26]), -1)
	b = bits.RotateLeft32(b, 1) ^ (t0 + 2*t1 + k[27])
	// round 10
	t0 = s0[byte(a)] ^ s1[byte(a>>8)] ^ s2[byte(a>>16)] ^ s3[a>>24]
	t1 = s0[b>>24] ^ s1[byte(b)] ^ s2[byte(b>>8)] ^ s3[byte(b>>16)]
	c = bits.RotateLeft32(c^(t0+t1+k[28]), -1)
	d = bits.RotateLeft32(d, 1) ^ (t0 + 2*t1 + k[29])
	// round 11
	t0 = s0[byte(c)] ^ s1[byte(c>>8)] ^ s2[byte(c>>16)] ^ s3[c>>24]
	t1 = s0[d>>24] ^ s1[byte(d)] ^ s2[byte(d>>8)] ^ s3[byte(d>>16)]
	a = bits.RotateLeft32(a^(t0+t1+k[30]), -1)
	b = bits.RotateLeft32(b, 1) ^ (t0 + 2*t1 + k[31])
	// round 12
	t0 = s0[byte(a)] ^ s1[byte(a>>8)] ^ s2[byte(a>>16)] ^ s3[a>>24]
	t1 = s0[b>>24] ^ s1[byte(b)] ^ s2[byte(b>>8)] ^ s3[byte(b>>16)]
	c = bits.RotateLeft32(c^(t0+t1+k[32]), -1)
	d = bits.RotateLeft32(d, 1) ^ (t0 + 2*t1 + k[33])
	// round 13
	t0 = s0[byte(c)] ^ s1[byte(c>>8)] ^ s2[byte(c>>16)] ^ s3[c>>24]
	t1 = s0[d>>24] ^ s1[byte(d)] ^ s2[byte(d>>8)] ^ s3[byte(d>>16)]
	a = bits.RotateLeft32(a^(t0+t1+k[34]), -1)
	b = bits.RotateLeft32(b, 1) ^ (t0 + 2*t1 + k[35])
	// round 14
	t0 = s0[byte(a)] ^ s1[byte(a>>8)] ^ s2[byte(a>>16)] ^ s3[a>>24]
	t1 = s0[b>>24] ^ s1[byte(b)] ^ s2[byte(b>>8)] ^ s3[byte(b>>16)]
	c = bits.RotateLeft32(c^(t0+t1+k[36]), -1)
	d = bits.RotateLeft32(d, 1) ^ (t0 + 2*t1 + k[37])
	// round 15
	t0 = s0[byte(c)] ^ s1[byte(c>>8)] ^ s2[byte(c>>16)] ^ s3[c>>24]
	t1 = s0[d>>24] ^ s1[byte(d)] ^ s2[byte(d>>8)] ^ s3[byte(d>>16)]
	a = bits.RotateLeft32(a^(t0+t1+k[38]), -1)
	b = bits.RotateLeft32(b, 1) ^ (t0 + 2*t1 + k[39])
	binary.LittleEndian.PutUint32(dst[0:4], c^k[4])
	binary.LittleEndian.PutUint32(dst[4:8], d^k[5])
	binary.LittleEndian.PutUint32(dst[8:12], a^k[6])
	binary.LittleEndian.PutUint32(dst[12:16], b^k[7])
}

// Decrypt decrypts the first block of src into dst. dst and src may be the
// same slice; they must not otherwise overlap.
func (tf *twofishCipher) Decrypt(dst, src []byte) {
	checkBlock(dst, src)
	k := &tf.k
	s0, s1, s2, s3 := &tf.s[0], &tf.s[1], &tf.s[2], &tf.s[3]
	c := binary.LittleEndian.Uint32(src[0:4]) ^ k[4]
	d := binary.LittleEndian.Uint32(src[4:8]) ^ k[5]
	a := binary.LittleEndian.Uint32(src[8:12]) ^ k[6]
	b := binary.LittleEndian.Uint32(src[12:16]) ^ k[7]
	var t0, t1 uint32
	// round 15
	t0 = s0[byte(c)] ^ s1[byte(c>>8)] ^ s2[byte(c>>16)] ^ s3[c>>24]
	t1 = s0[d>>24] ^ s1[byte(d)] ^ s2[byte(d>>8)] ^ s3[byte(d>>16)]
	a = bits.RotateLeft32(a, 1) ^ (t0 + t1 + k[38])
	b = bits.RotateLeft32(b^(t0+2*t1+k[39]), -1)
	// round 14
	t0 = s0[byte(a)] ^ s1[byte(a>>8)] ^ s2[byte(a>>16)] ^ s3[a>>24]
	t1 = s0[b>>24] ^ s1[byte(b)] ^ s2[byte(b>>8)] ^ s3[byte(b>>16)]
	c = bits.RotateLeft32(c, 1) ^ (t0 + t1 + k[36])
	d = bits.RotateLeft32(d^(t0+2*t1+k[37]), -1)
	// round 13
	t0 = s0[byte(c)] ^ s1[byte(c>>8)] ^ s2[byte(c>>16)] ^ s3[c>>24]
	t1 = s0[d>>24] ^ s1[byte(d)] ^ s2[byte(d>>8)] ^ s3[byte(d>>16)]
	a = bits.RotateLeft32(a, 1) ^ (t0 + t1 + k[34])
	b = bits.RotateLeft32(b^(t0+2*t1+k[35]), -1)
	// round 12
	t0 = s0[byte(a)] ^ s1[byte(a>>8)] ^ s2[byte(a>>16)] ^ s3[a>>24]
	t1 = s0[b>>24] ^ s1[byte(b)] ^ s2[byte(b>>8)] ^ s3[byte(b>>16)]
	c = bits.RotateLeft32(c, 1) ^ (t0 + t1 + k[32])
	d = bits.RotateLeft32(d^(t0+2*t1+k[33]), -1)
	// round 11
	t0 = s0[byte(c)] ^ s1[byte(c>>8)] ^ s2[byte(c>>16)] ^ s3[c>>24]
	t1 = s0[d>>24] ^ s1[byte(d)] ^ s2[byte(d>>8)] ^ s3[byte(d>>16)]
	a = bits.RotateLeft32(a, 1) ^ (t0 + t1 + k[30])
	b = bits.RotateLeft32(b^(t0+2*t1+k[31]), -1)
	// round 10
	t0 = s0[byte(a)] ^ s1[byte(a>>8)] ^ s2[byte(a>>16)] ^ s3[a>>24]
	t1 = s0[b>>24] ^ s1[byte(b)] ^ s2[byte(b>>8)] ^ s3[byte(b>>16)]
	c = bits.RotateLeft32(c, 1) ^ (t0 + t1 + k[28])
	d = bits.RotateLeft32(d^(t0+2*t1+k[29]), -1)
	// round 9
	t0 = s0[byte(c)] ^ s1[byte(c>>8)] ^ s2[byte(c>>16)] ^ s3[c>>24]
	t1 = s0[d>>24] ^ s1[byte(d)] ^ s2[byte(d>>8)] ^ s3[byte(d>>16)]
	a = bits.RotateLeft32(a, 1) ^ (t0 + t1 + k[26])
	b = bits.RotateLeft32(b^(t0+2*t1+k[27]), -1)
	// round 8
	t0 = s0[byte(a)] ^ s1[byte(a>>8)] ^ s2[byte(a>>16)] ^ s3[a>>24]
	t1 = s0[b>>24] ^ s1[byte(b)] ^ s2[byte(b>>8)] ^ s3[byte(b>>16)]
	c = bits.RotateLeft32(c, 1) ^ (t0 + t1 + k[24])
	d = bits.RotateLeft32(d^(t0+2*t1+k[25]), -1)
	// round 7
	t0 = s0[byte(c)] ^ s1[byte(c>>8)] ^ s2[byte(c>>16)] ^ s3[c>>24]
	t1 = s0[d>>24] ^ s1[byte(d)] ^ s2[byte(d>>8)] ^ s3[byte(d>>16)]
	a = bits.RotateLeft32(a, 1) ^ (t0 + t1 + k[22])
	b = bits.RotateLeft32(b^(t0+2*t1+k[23]), -1)
	// round 6
	t0 = s0[byte(a)] ^ s1[byte(a>>8)] ^ s2[byte(a>>16)] ^ s3[a>>24]
	t1 = s0[b>>24] ^ s1[byte(b)] ^ s2[byte(b>>8)] ^ s3[byte(b>>16)]
	c = bits.RotateLeft32(c, 1) ^ (t0 + t1 + k[20])
	d = bits.RotateLeft32(d^(t0+2*t1+k[21]), -1)
	// round 5
	t0 = s0[byte(c)] ^ s1[byte(c>>8)] ^ s2[byte(c>>16)] ^ s3[c>>24]
	t1 = s0[d>>24] ^ s1[byte(d)] ^ s2[byte(d>>8)] ^ s3[byte(d>>16)]
	a = bits.RotateLeft32(a, 1) ^ (t0 + t1 + k[18])
	b = bits.RotateLeft32(b^(t0+2*t1+k[19]), -1)
	// round 4
	t0 = s0[byte(a)] ^ s1[byte(a>>8)] ^ s2[byte(a>>16)] ^ s3[a>>24]
	t1 = s0[b>>24] ^ s1[byte(b)] ^ s2[byte(b>>8)] ^ s3[byte(b>>16)]
	c = bits.RotateLeft32(c, 1) ^ (t0 + t1 + k[16])
	d = bits.RotateLeft32(d^(t0+2*t1+k[17]), -1)
	// round 3
	t0 = s0[byte(c)] ^ s1[byte(c>>8)] ^ s2[byte(c>>16)] ^ s3[c>>24]
	t1 = s0[d>>24] ^ s1[byte(d)] ^ s2[byte(d>>8)] ^ s3[byte(d>>16)]
	a = bits.RotateLeft32(a, 1) ^ (t0 + t1 + k[14])
	b = bits.RotateLeft32(b^(t0+2*t1+k[15]), -1)
	// round 2
	t0 = s0[byte(a)] ^ s1[byte(a>>8)] ^ s2[byte(a>>16)] ^ s3[a>>24]
	t1 = s0[b>>24] ^ s1[byte(b)] ^ s2[byte(b>>8)] ^ s3[byte(b>>16)]
	c = bits.RotateLeft32(c, 1) ^ (t0 + t1 + k[12])
	d = bits.RotateLeft32(d^(t0+2*t1+k[13]), -1)
	// round 1
	t0 = s0[byte(c)] ^ s1[byte(c>>8)] ^ s2[byte(c>>16)] ^ s3[c>>24]
	t1 = s0[d>>24] ^ s1[byte(d)] ^ s2[byte(d>>8)] ^ s3[byte(d>>16)]
	a = bits.RotateLeft32(a, 1) ^ (t0 + t1 + k[10])
	b = bits.RotateLeft32(b^(t0+2*t1+k[11]), -1)
	// round 0
	t0 = s0[byte(a)] ^ s1[byte(a>>8)] ^ s2[byte(a>>16)] ^ s3[a>>24]
	t1 = s0[b>>24] ^ s1[byte(b)] ^ s2[byte(b>>8)] ^ s3[byte(b>>16)]
	c = bits.RotateLeft32(c, 1) ^ (t0 + t1 + k[8])
	d = bits.RotateLeft32(d^(t0+2*t1+k[9]), -1)
	binary.LittleEndian.PutUint32(dst[0:4], a^k[0])
	binary.LittleEndian.PutUint32(dst[4:8], b^k[1])
	binary.LittleEndian.PutUint32(dst[8:12], c^k[2])
	binary.LittleEndian.PutUint32(dst[12:16], d^k[3])
}
