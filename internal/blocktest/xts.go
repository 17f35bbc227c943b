package blocktest

import (
	"bytes"
	"crypto/pbkdf2"
	"crypto/sha512"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/fastxts/xts"
	"github.com/fastxts/xts/internal/fdeimages"
)

// XTSVectors checks c's XTS mode through the root package against a file
// of lines "key unit plaintext ciphertext" (hex, the data unit number in
// decimal, its little-endian bytes the tweak), both directions; the file
// must hold at least min vectors.
func XTSVectors(t *testing.T, c Cipher, path string, min int) {
	t.Helper()
	vs := readLines(t, path, 4)
	for _, fs := range vs {
		unit, err := strconv.ParseUint(fs[1], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		key, pt, ct := Unhex(t, fs[0]), Unhex(t, fs[2]), Unhex(t, fs[3])
		if len(pt) != len(ct) || len(pt) < BlockSize {
			t.Fatalf("bad lengths in %.60q", fs)
		}
		x, err := xts.NewCipher(c.New, key)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]byte, len(pt))
		x.Encrypt(got, pt, unit)
		if !bytes.Equal(got, ct) {
			t.Errorf("%d-byte key, unit %d, %d bytes: Encrypt differs", len(key), unit, len(pt))
		}
		x.Decrypt(got, ct, unit)
		if !bytes.Equal(got, pt) {
			t.Errorf("%d-byte key, unit %d, %d bytes: Decrypt differs", len(key), unit, len(pt))
		}
	}
	if len(vs) < min {
		t.Errorf("%s has %d vectors, want at least %d", path, len(vs), min)
	}
}

// VeraCryptSelfTest reproduces VeraCrypt's start-up self-test of an XTS
// cipher (TestSectorBufEncryption in src/Common/Tests.c), whose expected
// values crcs are CRC-32s computed by VeraCrypt's own implementation. The
// primary key is the first key of IEEE 1619 vectors 10-14, the secondary
// (tweak) key the second, and each of four 512-byte data units holds the
// bytes 0..255 twice. The four units are encrypted with the 64-bit
// little-endian unit numbers first .. first+3, for first = 0xFFFFFFFFFF
// down to 0xFFFFFFFFFC (crcs[0..3]), and once more with first = 0
// (crcs[4]), as VeraCrypt encrypts a volume header buffer. Decryption must
// restore the plaintext.
func VeraCryptSelfTest(t *testing.T, c Cipher, crcs [5]uint32) {
	t.Helper()
	key := Unhex(t, "2718281828459045235360287471352662497757247093699959574966967627"+
		"3141592653589793238462643383279502884197169399375105820974944592")
	x, err := xts.NewCipher(c.New, key)
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
	for i, first := range []uint64{0xFFFFFFFFFF, 0xFFFFFFFFFE, 0xFFFFFFFFFD, 0xFFFFFFFFFC, 0} {
		buf := bytes.Clone(plain)
		for j := range 4 {
			u := buf[j*unit : (j+1)*unit]
			x.Encrypt(u, u, first+uint64(j))
		}
		if got := crc32.ChecksumIEEE(buf); got != crcs[i] {
			t.Errorf("units from %#x: CRC-32 of the ciphertext %#08x, VeraCrypt's %#08x", first, got, crcs[i])
		}
		x.DecryptSectors(buf, buf, unit, first)
		if !bytes.Equal(buf, plain) {
			t.Errorf("units from %#x: decryption did not restore the plaintext", first)
		}
	}
}

// TrueCryptVolume opens cryptsetup's TrueCrypt test volume name (of
// tcrypt-images.tar.xz in ../shared/fde-images), encrypted with c in XTS
// mode under a PBKDF2-HMAC-SHA512 header key (1000 iterations,
// TrueCrypt's count) of the password "aaaaaaaaaaaa": the header must
// decrypt to the magic "TRUE" with both CRC-32s right, and the first data
// sector with the master key to a FAT boot sector with the serial number
// DEAD-BABE. This checks the byte order against real TrueCrypt data. The
// test skips, saying why, where the images or tar are absent.
func TrueCryptVolume(t *testing.T, c Cipher, name string) {
	t.Helper()
	member := "tcrypt-images/" + name
	dir := fdeimages.Unpack(t, "tcrypt-images.tar.xz", member)
	img, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(member)))
	if err != nil {
		t.Fatal(err)
	}
	if len(img) < 512 {
		t.Fatalf("image of %d bytes", len(img))
	}
	dk, err := pbkdf2.Key(sha512.New, "aaaaaaaaaaaa", img[:64], 1000, 64)
	if err != nil {
		t.Fatal(err)
	}
	hc, err := xts.NewCipher(c.New, dk)
	if err != nil {
		t.Fatal(err)
	}
	// The header's bytes 64..511 are one XTS data unit, number 0.
	hdr := make([]byte, 448)
	hc.Decrypt(hdr, img[64:512], 0)
	if string(hdr[:4]) != "TRUE" {
		t.Fatalf("decrypted header starts %x, want \"TRUE\"", hdr[:4])
	}
	if got, want := crc32.ChecksumIEEE(hdr[192:448]), binary.BigEndian.Uint32(hdr[8:12]); got != want {
		t.Fatalf("master key area CRC-32 %08x, header says %08x", got, want)
	}
	if got, want := crc32.ChecksumIEEE(hdr[:188]), binary.BigEndian.Uint32(hdr[188:192]); got != want {
		t.Fatalf("header CRC-32 %08x, header says %08x", got, want)
	}
	start := binary.BigEndian.Uint64(hdr[44:52])
	if start%512 != 0 || start+512 > uint64(len(img)) {
		t.Fatalf("encrypted area starts at %d, outside the %d-byte image", start, len(img))
	}
	// The master key: data key then tweak key; data units are numbered by
	// their byte offset in the volume divided by 512.
	mc, err := xts.NewCipher(c.New, hdr[192:192+64])
	if err != nil {
		t.Fatal(err)
	}
	sector := make([]byte, 512)
	mc.Decrypt(sector, img[start:start+512], start/512)
	if sector[510] != 0x55 || sector[511] != 0xAA {
		t.Fatalf("first data sector does not end in a boot signature: %x", sector[496:])
	}
	if !bytes.Contains(sector[:90], []byte{0xBE, 0xBA, 0xAD, 0xDE}) {
		t.Fatalf("first data sector holds no volume serial DEAD-BABE: %x", sector[:90])
	}
}
