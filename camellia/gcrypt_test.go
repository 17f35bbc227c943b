//go:build gcrypt && cgo

package camellia_test

import (
	"testing"

	"github.com/fastxts/xts/internal/blocktest"
	"github.com/fastxts/xts/internal/gcry"
)

// TestGcryptECB compares blocks with libgcrypt's Camellia for every key
// size: random keys, random blocks, both directions (decryption of random
// input, not of our own ciphertext).
//
// Needs cgo and libgcrypt20-dev: go test -tags gcrypt ./camellia
func TestGcryptECB(t *testing.T) { blocktest.GcryptECB(t, spec, gcry.Camellia) }

// TestGcryptXTS compares Camellia-XTS through the root package with
// libgcrypt's GCRY_CIPHER_MODE_XTS and the 16-byte little-endian sector
// number as IV (dm-crypt's plain64), for every key size and sector sizes
// 512, 4096 and a few lengths that are not multiples of 16 (ciphertext
// stealing).
func TestGcryptXTS(t *testing.T) { blocktest.GcryptXTS(t, spec, gcry.Camellia) }
