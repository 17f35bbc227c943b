// Copyright 2026 The fastxts Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package serpent implements the Serpent block cipher (Anderson, Biham,
// Knudsen; the variant submitted to the AES contest, "Serpent-1") with
// 128-, 192- and 256-bit keys, as a crypto/cipher.Block. It is meant for
// storage encryption such as LUKS serpent-xts-plain64 and VeraCrypt
// volumes, through github.com/fastxts/xts.
//
// # Byte order
//
// The 16 bytes of a block are the four 32-bit words X0..X3 of the
// specification's bitslice description, each little-endian (byte 0 is the
// least significant byte of X0). The key is likewise read as little-endian
// words, least significant first, and a key shorter than 32 bytes is padded
// with a 0x01 byte and zeros. This is the byte order of the Linux kernel's
// "serpent", of libgcrypt, of VeraCrypt/TrueCrypt and of the NESSIE test
// vector files. The designers' AES-submission files (ecb_vk.txt and so on)
// print every value as a big number, most significant byte first, so their
// key, plaintext and ciphertext must each be byte-reversed to be used here;
// the Linux kernel's "tnepres" is Serpent with that reversed order.
//
// # Implementation and constant time
//
// The cipher is bitsliced as in the designers' description: each round's
// 32 S-boxes are one sequence of 19 to 27 AND, OR, XOR and NOT
// operations on the four words (the sequences are found by gen_sbox.go
// and checked against the specification's tables by the tests), followed
// by the linear transformation of rotations, shifts and XORs; the 32
// rounds are unrolled (zsbox.go). There are
// no table lookups and no branches that depend on the key or the data, so
// encryption, decryption and the key schedule are constant time on CPUs
// whose 32-bit logic, shift and rotate instructions are (all common ones).
// NewCipher's error depends only on the key's length.
//
// A Block holds 132 words of round keys and nothing else; it is never
// written after NewCipher returns, so it may be used from many goroutines
// at once. Encrypt and Decrypt do not allocate. NewCipher clears its
// temporary copies of the key, but the round keys stay in the Block until
// the garbage collector frees it (there is no Wipe), and the Go runtime may
// copy key material elsewhere.
//
// This portable implementation does one block at a time. Serpent is much
// faster when many blocks are processed in parallel with vector
// instructions; XTS over many blocks is the place for that.
package serpent
