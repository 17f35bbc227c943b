package xts

import "encoding/binary"

// An engine encrypts or decrypts one data unit, or one part of one, with a
// fixed key. Every implementation (generic Go, each assembly variant)
// provides one; the public API validates its arguments before calling it.
//
// Contract for both methods: len(src) >= 16, len(dst) >= len(src), dst and
// src are the same memory or do not overlap. Exactly len(src) bytes of src
// are read and of dst written; when len(src) is not a multiple of 16 the
// final partial block is handled by ciphertext stealing. flags is a
// combination of flagEncryptTweak and flagStoreTweak. The methods return
// the tweak that follows the last full block (T·x^(len(src)/16)) when
// flagStoreTweak is set, and an unspecified value otherwise.
//
// The tweak travels by value, as two 64-bit words: a pointer passed
// through an interface call escapes and would cost an allocation on every
// call, and a [16]byte goes through memory, where a 16-byte load of a
// value just written as 8-byte halves (a sector number and zero) cannot be
// forwarded from the pending stores and stalls every call (measured: half
// the speed of 16-byte units on Zen 4). Two words travel in registers.
type engine interface {
	encrypt(dst, src []byte, tweak tweak128, flags uint64) tweak128
	decrypt(dst, src []byte, tweak tweak128, flags uint64) tweak128
	// wipe clears the engine's key material (Cipher.Wipe); the engine is
	// not used after.
	wipe()
}

// A sectorEngine also processes many consecutive data units in one call:
// unit k of src (each sectorSize bytes, a multiple of 16) uses the IV
// SectorTweak(first + k*step), modulo 2^64. The AES variants are called
// directly (asmEngine); another engine with a bulk routine (serpent-avx512)
// is found through this interface.
type sectorEngine interface {
	encryptSectors(dst, src []byte, sectorSize int, first, step uint64)
	decryptSectors(dst, src []byte, sectorSize int, first, step uint64)
}

// tweak128 is a 16-byte tweak as a little-endian 128-bit integer: lo holds
// bytes 0-7, hi bytes 8-15. On little-endian machines its memory layout is
// the tweak's bytes, which is what the assembly routines read.
type tweak128 struct{ lo, hi uint64 }

func tweakFromBytes(b [16]byte) tweak128 {
	return tweak128{binary.LittleEndian.Uint64(b[:8]), binary.LittleEndian.Uint64(b[8:])}
}

func (t tweak128) bytes() [16]byte {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], t.lo)
	binary.LittleEndian.PutUint64(b[8:], t.hi)
	return b
}

// Flags for engines and the assembly routines (same values in both).
const (
	// flagEncryptTweak: *tweak holds the IV; encrypt it with the tweak key
	// first. Without it *tweak already holds the encrypted tweak of the
	// first block of src (the multi-part protocol's later parts).
	flagEncryptTweak = 1
	// flagStoreTweak: on return, store into *tweak the tweak that follows
	// the last full block processed (T·x^(len(src)/16)), so that a later
	// call can continue the data unit.
	flagStoreTweak = 2
)
