package luks

import "golang.org/x/crypto/argon2"

// argon2idKey and argon2iKey are the Argon2 functions keyslots use, with
// golang.org/x/crypto/argon2's signature (memory in KiB, Argon2 version
// 0x13): (password, salt []byte, time, memory uint32, threads uint8,
// keyLen uint32) []byte. This file is the one place to change to put an
// implementation of our own (luks/internal/argon2) in their place.
var (
	argon2idKey = argon2.IDKey
	argon2iKey  = argon2.Key
)
