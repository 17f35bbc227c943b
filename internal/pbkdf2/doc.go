// Package pbkdf2 implements PBKDF2 (RFC 8018, section 5.2) with HMAC as
// the pseudorandom function, for any hash.Hash: SHA-1, SHA-256 and
// SHA-512 from the standard library, BLAKE2s-256 from
// golang.org/x/crypto, and the module's Whirlpool, RIPEMD-160 and
// Streebog, as TrueCrypt, VeraCrypt and LUKS1 use them.
//
// Unlike crypto/pbkdf2, Key works for every hash in every mode (the
// standard package refuses hashes outside FIPS 140-3 when
// GODEBUG=fips140=only), takes the password as bytes, and computes the
// output blocks of a key longer than one digest on separate goroutines.
//
// Speed: opening a VeraCrypt volume may run several PRFs at 500,000
// iterations each, so the per-iteration cost is the cost of opening. The
// HMAC is keyed once: the states after the inner and outer pad blocks are
// saved with MarshalBinary, and each iteration restores them with
// UnmarshalBinary, where the hash allows with the previous block already
// in the restored buffer (the offset is found and checked once per call),
// so that an iteration is two restores and two finalisations, the least
// the hash.Hash interface allows. Hashes that cannot save their state are
// re-keyed every iteration (one more block each time). README.md has the
// measurements against crypto/pbkdf2 and OpenSSL.
package pbkdf2
