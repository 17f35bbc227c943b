// Package argon2 implements the Argon2i and Argon2id password hashing
// functions of RFC 9106 (version 0x13) for the luks package, which unlocks
// LUKS2 keyslots with them.
//
// It exists, instead of golang.org/x/crypto/argon2, for the memory: the
// whole work area (cryptsetup's default is 1 GiB) is one region allocated
// for the call — on Linux an anonymous mapping advised for transparent huge
// pages, so the kernel faults it in 2 MiB at a time instead of 4 KiB at a
// time — and it is zeroed and released before the call returns, since it
// holds password-derived data. On amd64 the compression function runs in
// generated AVX2 assembly when the CPU has it.
//
// The functions and their parameters match x/crypto's, so callers can swap
// one for the other; the outputs are identical (the tests check it).
package argon2

// Version is the Argon2 version this package implements (RFC 9106: 0x13).
const Version = 0x13

// Argon2 type codes (the y parameter of RFC 9106 section 3.2).
const (
	typeArgon2i  = 1
	typeArgon2id = 2
)

// Key derives keyLen bytes from password and salt with Argon2i (RFC 9106,
// data-independent memory access): time passes over memory KiB using threads
// lanes.
//
// As in golang.org/x/crypto/argon2, memory is rounded down to a multiple of
// 4*threads KiB, and raised to 8*threads KiB when it is smaller (RFC 9106
// would reject such a memory size); H0 still hashes the memory value given.
// It panics if time, threads or keyLen is zero.
func Key(password, salt []byte, time, memory uint32, threads uint8, keyLen uint32) []byte {
	return deriveKey(typeArgon2i, password, salt, nil, nil, time, memory, threads, keyLen)
}

// IDKey derives keyLen bytes from password and salt with Argon2id (RFC 9106,
// the hybrid: data-independent addressing for the first half of the first
// pass, data-dependent after), the variant LUKS2 uses by default. The
// parameters are those of Key, with the same rounding of memory.
func IDKey(password, salt []byte, time, memory uint32, threads uint8, keyLen uint32) []byte {
	return deriveKey(typeArgon2id, password, salt, nil, nil, time, memory, threads, keyLen)
}

// deriveKey is Argon2 of type y with the optional secret K and associated
// data X of RFC 9106 section 3.2 (the test vectors use them; LUKS does not).
func deriveKey(y uint32, password, salt, secret, data []byte, time, memory uint32, threads uint8, keyLen uint32) []byte {
	if time < 1 {
		panic("argon2: number of passes (time) must be at least 1")
	}
	if threads < 1 {
		panic("argon2: parallelism degree (threads) must be at least 1")
	}
	if keyLen < 1 {
		panic("argon2: key length must be at least 1")
	}
	h0 := initialHash(y, password, salt, secret, data, time, memory, uint32(threads), keyLen)
	lanes := uint32(threads)
	blocks := memory / (syncPoints * lanes) * (syncPoints * lanes)
	if blocks < 2*syncPoints*lanes {
		blocks = 2 * syncPoints * lanes
	}
	m := newMatrix(blocks, lanes)
	defer m.release()
	m.fill(y, &h0, time)
	clear(h0[:])
	return m.finalize(keyLen)
}
