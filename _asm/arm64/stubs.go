package main

// declarations are the Go side of the routines, with their contracts.
var declarations = `
// expandKey expands an AES key of 16, 24 or 32 bytes (rounds 10, 12 or 14)
// into right-aligned encryption round keys (AES-256 rows 0..14, AES-192
// rows 2..14, AES-128 rows 4..14) and, if dec is not nil, the decryption
// round keys of the equivalent inverse cipher in order of use:
// dec[last-r] = InvMixColumns(enc[r]) for the middle rounds, with the first
// and last rows copied unchanged (the order AESD and AESIMC consume them).
// Constant time. Requires the ARMv8 AES instructions.
//
//go:noescape
func expandKey(key *byte, rounds int, enc, dec *[15][16]byte)
` + unitDecl("encryptARMv8") + unitDecl("decryptARMv8") +
	sectorsDecl("encryptSectorsARMv8") + sectorsDecl("decryptSectorsARMv8")

func unitDecl(name string) string {
	return `
// ` + name + ` processes one whole data unit, or a part of one, with
// the armv8-ce variant. Preconditions, checked by the Go callers:
// len(src) >= 16, len(dst) >= len(src), and dst and src the same memory
// or not overlapping. It reads exactly len(src) bytes of src, writes
// exactly len(src) bytes of dst, and steals ciphertext when len(src) is
// not a multiple of 16. With flags&1 the tweak is the IV, encrypted first
// with the tweak key; with flags&2 it returns T·x^(len(src)/16),
// otherwise an unspecified value.
//
//go:noescape
func ` + name + `(ks *keySchedule, dst, src []byte, tweakLo, tweakHi, flags uint64) (lo, hi uint64)
`
}

func sectorsDecl(name string) string {
	return `
// ` + name + ` processes whole data units with the armv8-ce
// variant: unit k of src (each sectorSize bytes) with the IV
// SectorTweak(first + k*step), modulo 2^64, exactly as one unit call with
// flags&1 per unit would. Preconditions, checked by the Go callers:
// sectorSize a positive multiple of 16, len(src) a multiple of it,
// len(dst) >= len(src), dst and src the same memory or not overlapping. It
// reads exactly len(src) bytes of src and writes exactly len(src) bytes of
// dst (defensively it returns at once on a bad sectorSize and stops before
// a partial last unit).
//
//go:noescape
func ` + name + `(ks *keySchedule, dst, src []byte, sectorSize int, first, step uint64)
`
}
