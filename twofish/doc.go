// Copyright 2026 The fastxts Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package twofish implements the Twofish block cipher (Schneier, Kelsey,
// Whiting, Wagner, Hall, Ferguson, 1998) with 128-, 192- and 256-bit keys,
// as a crypto/cipher.Block. It is meant for storage encryption such as
// LUKS twofish-xts-plain64 and VeraCrypt volumes, through
// github.com/fastxts/xts. It produces the same bytes as
// golang.org/x/crypto/twofish, libgcrypt, the Linux kernel's "twofish" and
// VeraCrypt.
//
// # Byte order
//
// As in the Twofish paper: the key and the block are read as little-endian
// 32-bit words, byte 0 first, and the ciphertext is written the same way.
// The paper's test vector files print bytes in memory order, so they apply
// unchanged.
//
// # Implementation and what is not constant time
//
// NewCipher does the paper's "full keying": it precomputes, for each of the
// four byte positions, a 256-entry table of 32-bit words that combines the
// key-dependent S-box with its column of the MDS matrix, plus the 40
// subkeys (4 KiB and 160 bytes per Block). A round is then eight table
// lookups, additions, XORs and rotations.
//
// Twofish's S-boxes depend on the key, so an implementation in portable
// code indexes memory with secret data, and this one does:
//
//   - Encrypt and Decrypt look up the four tables with every byte of the
//     round state (plaintext or ciphertext mixed with the key): 128 lookups
//     per block whose addresses depend on secret data. Which cache lines are
//     touched can be observed by another process or VM sharing the CPU's
//     caches (cache-timing attacks of the kind shown against table-based
//     AES), and can leak key and data bits. The tables themselves are key
//     material.
//   - NewCipher looks up the fixed permutations q0 and q1 (two 256-byte
//     tables) and the MDS matrix's column tables (4 KiB) with key bytes and
//     values derived from the key, so the key schedule has the same kind of
//     leak; its Reed-Solomon multiplications are done without branches or
//     lookups.
//   - There are no branches on secret data, and the time of a call does not
//     depend on the data other than through the cache.
//
// Use it where the attacker cannot share the CPU's caches with the
// process, or where compatibility (an existing Twofish volume) requires it.
// Serpent (github.com/fastxts/xts/serpent) and AES with hardware support
// are constant time.
//
// A Block is never written after NewCipher returns, so it may be used from
// many goroutines at once. Encrypt and Decrypt do not allocate. NewCipher
// clears its temporary copies of the key, but the subkeys and the keyed
// tables stay in the Block until the garbage collector frees it (there is
// no Wipe), and the Go runtime may copy key material elsewhere.
package twofish
