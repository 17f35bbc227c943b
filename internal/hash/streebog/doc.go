// Package streebog implements the GOST R 34.11-2012 hash function
// "Streebog" with 512-bit and 256-bit output, written from RFC 6986.
//
// It exists for the key derivation of VeraCrypt volumes, which use
// PBKDF2-HMAC-Streebog-512.
//
// Byte order: RFC 6986 writes messages and digests as big numbers, most
// significant byte first. This package, like every implementation used in
// practice (VeraCrypt, the OpenSSL GOST engine, the Linux kernel), reads
// the message as a byte string whose first byte is the least significant
// byte of the first 512-bit block, and writes the digest least
// significant byte first. The RFC's example hex values are therefore
// byte-reversed on both sides (see the tests).
//
// The LPS transformation is evaluated with eight tables of 256 64-bit
// words that merge the substitution π, the byte transposition τ and the
// linear map l. Those table lookups are indexed by the data being hashed,
// which during key derivation is the password: a cache-timing side
// channel that an attacker sharing the CPU could in principle observe.
// VeraCrypt and most other Streebog implementations share it; it is
// accepted here and documented rather than removed.
//
// The digests implement encoding.BinaryMarshaler,
// encoding.BinaryUnmarshaler and hash.Cloner, so crypto/hmac can save and
// restore keyed states.
package streebog
