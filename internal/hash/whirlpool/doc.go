// Package whirlpool implements the Whirlpool hash function in its final
// version (Barreto and Rijmen, 2003; ISO/IEC 10118-3:2004), written from
// the specification.
//
// It exists for the key derivation of TrueCrypt/VeraCrypt volumes and old
// LUKS1 keyslots, which use PBKDF2-HMAC-Whirlpool.
//
// The S-box is computed at start-up from the specification's 4-bit mini
// boxes E and R, and the round function is evaluated with eight tables of
// 256 64-bit words that merge the S-box with the MixRows matrix. Those
// table lookups are indexed by the data being hashed, which during key
// derivation is the password: a cache-timing side channel that an attacker
// sharing the CPU could in principle observe. VeraCrypt, OpenSSL and most
// other Whirlpool implementations share it; it is accepted here and
// documented rather than removed.
//
// The digest implements encoding.BinaryMarshaler, encoding.BinaryUnmarshaler
// and hash.Cloner, so crypto/hmac can save and restore keyed states.
package whirlpool
