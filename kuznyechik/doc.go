// Package kuznyechik implements Kuznyechik ("Grasshopper"), the 128-bit
// block cipher of GOST R 34.12-2015 (RFC 7801), with its 256-bit key, as a
// crypto/cipher.Block for use with the XTS mode of the parent package
// (VeraCrypt's Kuznyechik volumes and cascades).
//
//	c, err := xts.NewCipher(kuznyechik.NewCipher, key) // 64-byte key
//
// # Algorithm and byte order
//
// Kuznyechik is a substitution-permutation network: nine rounds of key
// addition X, byte substitution S (the permutation π) and the linear map L
// over GF(2^8) modulo x^8 + x^7 + x^6 + x + 1, then a tenth key addition;
// the ten round keys come from a 32-round Feistel network over the two key
// halves (RFC 7801, section 4). Keys and blocks are byte strings in the
// order of the standard's examples: the first byte is the most significant
// byte a_15 of the standard's a_15 || ... || a_0, and the first 16 key
// bytes are K_1. That is the order of the RFC's hexadecimal examples, of
// the OpenSSL GOST provider (gost-engine) and of VeraCrypt, so no byte
// swapping is needed to interoperate; the tests check all three (VeraCrypt
// through its start-up self-test of Kuznyechik-XTS). Some other
// implementations reverse the bytes of keys and blocks.
//
// Per block only table lookups and XORs run. The tables are derived, on
// first use, from a byte-oriented reference of S, R and L written from the
// RFC; the tests check that reference against every intermediate value
// the RFC gives (S, R, L, the key schedule's constants and Feistel rounds,
// every round of the example encryption and decryption), every table
// entry against it, and the cipher against a reference cipher built on it.
//
// The returned Block keeps only its key schedule, which is not modified
// after NewCipher: one Block may be used by any number of goroutines at
// once. Encrypt and Decrypt do not allocate. The package's lookup tables
// (2 x 64 KiB) are built on the first call to NewCipher.
//
// # Side channels: this implementation is not constant time
//
// Each round (S and L together) is computed with a table of 16 x 256
// entries of 16 bytes (64 KiB) for encryption and another for decryption:
// the round reads entry [i][x_i] for each byte x_i of the state after the
// key addition, so the memory addresses read depend on the key and on the
// data. An encryption makes 144 such secret-dependent 16-byte loads (nine
// rounds of 16), a decryption 144 plus 32 single-byte lookups in π and π^-1,
// and the key schedule 512 (32 Feistel rounds) plus 256 for the decryption
// keys. With 64-byte cache lines each line holds 4 entries, so an attacker
// who shares a CPU cache with the process (another process or VM on the
// same core or socket, or code in the same process) and observes which
// lines were touched (prime+probe, flush+reload and similar cache-timing
// attacks) learns the top 6 bits of each index, a byte of key XOR data in
// the first round; the 128 KiB of tables also exceed most L1 data caches,
// so which lines stay cached shows up in timing as well. There are no
// data-dependent branches. Where such attackers are a concern, prefer
// AES-XTS (which the parent package runs with AES instructions) or run on
// hardware not shared with untrusted code.
package kuznyechik
