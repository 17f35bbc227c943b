package argon2

// compress is G; on this platform the Go version.
func compress(out, x, y, tmp *block, xor bool) { compressGeneric(out, x, y, tmp, xor) }
