package camellia_test

import (
	"testing"

	"github.com/fastxts/xts/camellia"
	"github.com/fastxts/xts/internal/blocktest"
)

var spec = blocktest.Cipher{
	Name:      "camellia",
	New:       camellia.NewCipher,
	BlockSize: camellia.BlockSize,
	KeySizes:  []int{16, 24, 32},
}

func TestKeySizes(t *testing.T) { blocktest.KeySizes[camellia.KeySizeError](t, spec) }

func TestShortBuffersPanic(t *testing.T) { blocktest.Panics(t, spec) }

// TestInPlaceAndLonger checks in-place use and that only the first block of
// longer buffers is read and written.
func TestInPlaceAndLonger(t *testing.T) { blocktest.InPlaceAndLonger(t, spec) }

// TestKeyCopied checks that changing the key slice after NewCipher does not
// change the cipher.
func TestKeyCopied(t *testing.T) { blocktest.KeyCopied(t, spec, knownVectors(t)[2]) }

func TestNoAllocs(t *testing.T) { blocktest.NoAllocs(t, spec) }

// TestConcurrent uses Blocks from several goroutines (run with -race).
func TestConcurrent(t *testing.T) { blocktest.Concurrent(t, spec, knownVectors(t)) }

// TestXTSVectors checks Camellia-XTS through the root package against
// testdata/xts.txt: XTS computed from its definition by
// testdata/gen_xts.py over OpenSSL's Camellia through Python's
// cryptography package in ECB mode, with the little-endian data unit
// number as tweak. Decryption is checked too.
func TestXTSVectors(t *testing.T) { blocktest.XTSVectors(t, spec, "testdata/xts.txt", 8) }

// TestVeraCryptSelfTest reproduces VeraCrypt's start-up self-test of
// Camellia-XTS (TestSectorBufEncryption in src/Common/Tests.c), whose
// expected values are CRC-32s computed by VeraCrypt's own implementation
// (see blocktest.VeraCryptSelfTest).
func TestVeraCryptSelfTest(t *testing.T) {
	blocktest.VeraCryptSelfTest(t, spec, [5]uint32{0x2436badb, 0x247d2272, 0x72b49cde, 0xb838d2c1, 0x8176b223})
}
