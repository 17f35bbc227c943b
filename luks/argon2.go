package luks

import "github.com/fastxts/xts/internal/argon2"

// argon2idKey and argon2iKey are the Argon2 functions keyslots use:
// internal/argon2 (RFC 9106, memory in one huge-page region, the
// compression function in generated assembly), with
// golang.org/x/crypto/argon2's signature (memory in KiB, version 0x13):
// (password, salt []byte, time, memory uint32, threads uint8, keyLen
// uint32) []byte. Its tests check it against x/crypto/argon2.
var (
	argon2idKey = argon2.IDKey
	argon2iKey  = argon2.Key
)
