package xts

// An engine encrypts or decrypts one data unit, or one part of one, with a
// fixed key. Every implementation (generic Go, each assembly variant)
// provides one; the public API validates its arguments before calling it.
//
// Contract for both methods: len(src) >= 16, len(dst) >= len(src), dst and
// src are the same memory or do not overlap. Exactly len(src) bytes of src
// are read and of dst written; when len(src) is not a multiple of 16 the
// final partial block is handled by ciphertext stealing. flags is a
// combination of flagEncryptTweak and flagStoreTweak.
type engine interface {
	encrypt(dst, src []byte, tweak *[16]byte, flags uint64)
	decrypt(dst, src []byte, tweak *[16]byte, flags uint64)
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
