// Package camellia implements the Camellia block cipher of RFC 3713
// (also ISO/IEC 18033-3, NESSIE, CRYPTREC) with 128-, 192- and 256-bit
// keys, as a crypto/cipher.Block for use with the XTS mode of the parent
// package: LUKS camellia-xts-plain64 and VeraCrypt's Camellia volumes and
// cascades.
//
//	c, err := xts.NewCipher(camellia.NewCipher, key) // 64-byte key: Camellia-256-XTS
//
// # Algorithm and byte order
//
// Camellia is an 18-round (128-bit keys) or 24-round (192- and 256-bit
// keys) Feistel network on 128-bit blocks, with the FL/FLINV layers after
// every sixth round and key whitening before and after. The code follows
// RFC 3713 section by section. Keys, blocks and all 64- and 128-bit
// quantities of the RFC are big-endian: the first byte of a key or block is
// the most significant byte of the RFC's K or M, as in the RFC's test
// vectors, so no byte swapping is needed to match other implementations.
// The tests check the RFC 3713, NESSIE and designers' (NTT) vectors, random
// vectors from OpenSSL, XTS against libgcrypt (-tags gcrypt), and
// VeraCrypt's own start-up self-test of Camellia-XTS.
//
// The returned Block keeps only its key schedule, which is not modified
// after NewCipher: one Block may be used by any number of goroutines at
// once. Encrypt and Decrypt do not allocate.
//
// # Side channels: this implementation is not constant time
//
// The F-function is computed with eight lookup tables of 256 64-bit words
// (16 KiB in all), each combining one S-box with the P-function. Every
// round indexes them with the eight bytes of (half-block XOR round key), so
// the memory addresses read depend on the key and on the data. Each
// encryption or decryption makes 144 (128-bit keys) or 192 (192- and
// 256-bit keys) such secret-dependent loads, and the key schedule 32 or 48
// more. An attacker who shares a CPU cache with the process (another
// process or VM on the same core or socket, or code in the same process)
// and can observe which cache lines were touched (cache-timing attacks such
// as prime+probe or flush+reload) can learn key bits: with 64-byte lines,
// each line holds 8 table entries, so a line reveals the top 5 bits of
// each 8-bit index, that is of a byte of key XOR data. Execution time itself does not depend on the data apart
// from those cache effects: there are no data-dependent branches, and
// FL/FLINV are plain bitwise operations. Where such attackers are a
// concern, prefer AES-XTS (which the parent package runs with AES
// instructions) or run on hardware not shared with untrusted code.
package camellia
