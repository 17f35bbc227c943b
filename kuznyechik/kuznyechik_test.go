package kuznyechik_test

import (
	"testing"

	"github.com/fastxts/xts/internal/blocktest"
	"github.com/fastxts/xts/kuznyechik"
)

var spec = blocktest.Cipher{
	Name:      "kuznyechik",
	New:       kuznyechik.NewCipher,
	BlockSize: kuznyechik.BlockSize,
	KeySizes:  []int{32},
}

const (
	rfcKey    = "8899aabbccddeeff0011223344556677fedcba98765432100123456789abcdef"
	rfcPlain  = "1122334455667700ffeeddccbbaa9988"
	rfcCipher = "7f679d90bebc24305a468d42b9d4edcd"
)

// gost3413ECB is the ECB example of GOST R 34.13-2015, Appendix A.1.1:
// four blocks under the RFC 7801 key (VeraCrypt's start-up self-test uses
// the same four blocks).
func gost3413ECB(t testing.TB) blocktest.Vector {
	return blocktest.Vector{
		Key: blocktest.Unhex(t, rfcKey),
		PT: blocktest.Unhex(t, "1122334455667700ffeeddccbbaa9988"+"00112233445566778899aabbcceeff0a"+
			"112233445566778899aabbcceeff0a00"+"2233445566778899aabbcceeff0a0011"),
		CT: blocktest.Unhex(t, "7f679d90bebc24305a468d42b9d4edcd"+"b429912c6e0032f9285452d76718d08b"+
			"f0ca33549d247ceef3f5a5313bd4b157"+"d0b09ccde830b9eb3a02c4c5aa8ada98"),
		Iterations: 1,
	}
}

// rfcVector is the example of RFC 7801, section 5.5.
func rfcVector(t testing.TB) blocktest.Vector {
	return blocktest.Vector{Key: blocktest.Unhex(t, rfcKey), PT: blocktest.Unhex(t, rfcPlain), CT: blocktest.Unhex(t, rfcCipher), Iterations: 1}
}

// TestOracleECB checks testdata/ecb.txt: random keys and blocks encrypted
// by the GOST provider for OpenSSL (gost-engine), an implementation written
// independently of this one (testdata/gen_ecb.py).
func TestOracleECB(t *testing.T) {
	vs := blocktest.ReadVectors(t, "testdata/ecb.txt")
	blocktest.CheckVectors(t, spec, "ecb.txt", vs)
	if len(vs) < 100 {
		t.Errorf("testdata/ecb.txt has %d vectors, want at least 100", len(vs))
	}
}

// TestGOST3413ECB checks the four blocks of gost3413ECB.
func TestGOST3413ECB(t *testing.T) {
	blocktest.CheckVectors(t, spec, "GOST R 34.13-2015 A.1.1", []blocktest.Vector{gost3413ECB(t)})
}

func TestKeySizes(t *testing.T) { blocktest.KeySizes[kuznyechik.KeySizeError](t, spec) }

func TestShortBuffersPanic(t *testing.T) { blocktest.Panics(t, spec) }

// TestInPlaceAndLonger checks in-place use and that only the first block of
// longer buffers is read and written.
func TestInPlaceAndLonger(t *testing.T) { blocktest.InPlaceAndLonger(t, spec) }

func TestKeyCopied(t *testing.T) { blocktest.KeyCopied(t, spec, rfcVector(t)) }

func TestNoAllocs(t *testing.T) { blocktest.NoAllocs(t, spec) }

// TestConcurrent uses Blocks, and NewCipher calls, from several goroutines
// (run with -race).
func TestConcurrent(t *testing.T) {
	blocktest.Concurrent(t, spec, []blocktest.Vector{rfcVector(t), gost3413ECB(t)})
}

// TestXTSVectors checks Kuznyechik-XTS through the root package against
// testdata/xts.txt: XTS computed from its definition by
// testdata/gen_xts.py over the OpenSSL GOST provider's Kuznyechik in ECB
// mode, with the little-endian data unit number as tweak. Decryption is
// checked too.
func TestXTSVectors(t *testing.T) { blocktest.XTSVectors(t, spec, "testdata/xts.txt", 8) }

// TestVeraCryptSelfTest reproduces VeraCrypt's start-up self-test of
// Kuznyechik-XTS (TestSectorBufEncryption in src/Common/Tests.c), whose
// expected values are CRC-32s computed by VeraCrypt's own implementation
// (see blocktest.VeraCryptSelfTest).
func TestVeraCryptSelfTest(t *testing.T) {
	blocktest.VeraCryptSelfTest(t, spec, [5]uint32{0x6b86e72e, 0xa4f8637d, 0xfd83e76d, 0xb24fc47b, 0xd6d39cdb})
}
