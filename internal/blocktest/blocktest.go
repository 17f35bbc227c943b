// Package blocktest holds the tests that every 128-bit block cipher of this
// module (serpent, twofish, camellia, kuznyechik) must pass, written once:
// key sizes and KeySizeError, panics on short (and overlapping) buffers,
// in-place use, no allocations, concurrent use, known-answer files, XTS
// vectors through the root package, a fuzz round trip and benchmarks. With
// the build tags "gcrypt" and cgo it also compares a cipher with libgcrypt
// (package internal/gcry).
//
// Only tests import it; each package keeps its own vectors in testdata and
// calls these functions from its own Test, Fuzz and Benchmark functions.
package blocktest

import (
	"crypto/cipher"
	"slices"
)

// BlockSize is the block size of every cipher tested here.
const BlockSize = 16

// Cipher describes the block cipher under test.
type Cipher struct {
	// Name is the package name, the prefix of its errors and panics.
	Name string
	// New is the package's NewCipher.
	New func(key []byte) (cipher.Block, error)
	// BlockSize is the package's BlockSize constant, which must be 16.
	BlockSize int
	// KeySizes are the valid key lengths in bytes, ascending.
	KeySizes []int
	// Overlap says that Encrypt and Decrypt panic with
	// Name+": invalid buffer overlap" on inexactly overlapping buffers.
	Overlap bool
}

func (c Cipher) validKeySize(n int) bool { return slices.Contains(c.KeySizes, n) }
