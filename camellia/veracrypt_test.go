package camellia_test

import (
	"bytes"
	"hash/crc32"
	"testing"

	"github.com/fastxts/xts"
	"github.com/fastxts/xts/camellia"
)

// TestVeraCryptSelfTest reproduces VeraCrypt's start-up self-test of
// Camellia-XTS (TestSectorBufEncryption in src/Common/Tests.c), whose
// expected values are CRC-32s computed by VeraCrypt's own implementation.
// The primary key is the first key of IEEE 1619 vectors 10-14, the
// secondary (tweak) key the second, and each of four 512-byte data units
// holds the bytes 0..255 twice. The four units are encrypted with the
// 64-bit little-endian unit numbers first .. first+3, for first =
// 0xFFFFFFFFFF down to 0xFFFFFFFFFC (one case each), and once more with
// first = 0, as VeraCrypt encrypts a volume header buffer. Decryption must
// restore the plaintext.
func TestVeraCryptSelfTest(t *testing.T) {
	key := unhex(t, "2718281828459045235360287471352662497757247093699959574966967627"+
		"3141592653589793238462643383279502884197169399375105820974944592")
	c, err := xts.NewCipher(camellia.NewCipher, key)
	if err != nil {
		t.Fatal(err)
	}
	const unit = 512
	plain := make([]byte, 4*unit)
	for i := range plain {
		plain[i] = byte(i)
	}
	const plainCRC uint32 = 0x9f5edd58
	if got := crc32.ChecksumIEEE(plain); got != plainCRC {
		t.Fatalf("plaintext CRC-32 %#08x, want %#08x", got, plainCRC)
	}
	for _, tc := range []struct {
		first uint64
		crc   uint32
	}{
		{0xFFFFFFFFFF, 0x2436badb},
		{0xFFFFFFFFFE, 0x247d2272},
		{0xFFFFFFFFFD, 0x72b49cde},
		{0xFFFFFFFFFC, 0xb838d2c1},
		{0, 0x8176b223}, // the header buffer (EncryptBuffer)
	} {
		buf := bytes.Clone(plain)
		for i := range 4 {
			u := buf[i*unit : (i+1)*unit]
			c.Encrypt(u, u, tc.first+uint64(i))
		}
		if got := crc32.ChecksumIEEE(buf); got != tc.crc {
			t.Errorf("units from %#x: CRC-32 of the ciphertext %#08x, VeraCrypt's %#08x", tc.first, got, tc.crc)
		}
		c.DecryptSectors(buf, buf, unit, tc.first)
		if !bytes.Equal(buf, plain) {
			t.Errorf("units from %#x: decryption did not restore the plaintext", tc.first)
		}
	}
}
