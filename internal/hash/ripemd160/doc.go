// Package ripemd160 implements the RIPEMD-160 hash function (Dobbertin,
// Bosselaers and Preneel, 1996; ISO/IEC 10118-3), written from the
// algorithm's published description.
//
// It exists for the key derivation of TrueCrypt/VeraCrypt volumes and old
// LUKS1 keyslots, which use PBKDF2-HMAC-RIPEMD-160. golang.org/x/crypto's
// ripemd160 package is deprecated, so the module carries its own.
//
// The digest implements encoding.BinaryMarshaler, encoding.BinaryUnmarshaler
// and hash.Cloner, so crypto/hmac can save and restore keyed states.
// RIPEMD-160 uses no tables indexed by data, so its running time does not
// depend on the bytes hashed.
package ripemd160
