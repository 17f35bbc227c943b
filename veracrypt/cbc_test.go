package veracrypt

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// wiped reports whether the 512 bytes at the start of h's data area (plus
// fs) are all zero in the image: cryptsetup shrank its CBC cascade and
// Blowfish images to their headers, so no filesystem is there to check.
// Real ciphertext is never a zero sector; only images with a TrueCrypt
// CBC header may be wiped.
func wiped(t *testing.T, f *os.File, h *Header, fs int64) bool {
	t.Helper()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	start, _, err := h.dataArea(fi.Size())
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 512)
	if _, err := f.ReadAt(b, start+fs); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, make([]byte, 512)) {
		return false
	}
	if h.Mode != "cbc" || !(strings.Contains(h.Cipher, "-") || h.Cipher == "blowfish") {
		t.Fatalf("%s %s image with a zero first sector", h.Mode, h.Cipher)
	}
	return true
}

// checkCBC checks what opening a TrueCrypt CBC image gives: the old
// header format, the mode, the key size, and a read-only volume.
func checkCBC(t *testing.T, v *Volume, f *os.File, im image) {
	t.Helper()
	h := v.Header()
	if h.Mode != "cbc" || h.Version > 2 || !h.TrueCrypt {
		t.Errorf("mode %s version %d TrueCrypt %v, want cbc, 1 or 2, true", h.Mode, h.Version, h.TrueCrypt)
	}
	if h.KeySize != cbcKeySize(im.cipher) || len(h.MasterKey()) != h.KeySize {
		t.Errorf("key size %d, want %d", h.KeySize, cbcKeySize(im.cipher))
	}
	if !v.ReadOnly() {
		t.Error("CBC volume opened writable")
	}
	if _, err := v.WriteAt(make([]byte, 512), 0); err == nil {
		t.Error("write to a CBC volume accepted")
	}
	// Opened again from a writable device, it stays read-only.
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	dev := &memDev{b: b}
	w, err := Open(dev, im.password, &Options{PRF: im.prf, Cipher: im.cipher, NoVeraCrypt: true, Hidden: h.Hidden})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.WriteAt([]byte("x"), 0); err == nil || !w.ReadOnly() {
		t.Errorf("write to a CBC volume from a writable device: %v", err)
	}
	if !bytes.Equal(dev.b, b) {
		t.Error("the device changed")
	}
}

// TestCBCVector checks the CBC mode against an independent computation
// with crypto/cipher's CBC: sector 5 of an AES volume.
func TestCBCVector(t *testing.T) {
	key := make([]byte, 64)
	for i := range key {
		key[i] = byte(i*7 + 1)
	}
	c, err := newCBCChain("aes", key)
	if err != nil {
		t.Fatal(err)
	}
	pt := bytes.Repeat([]byte("TrueCrypt 3.1a! "), 32)
	ct := make([]byte, 512)
	c.crypt(ct, pt, 5, true)

	// The IV: seed bytes 0..15, each half XOR 5 (little-endian); the
	// whitening from seed bytes 16..31, XOR 5 the same way.
	iv := append([]byte(nil), key[:16]...)
	iv[0] ^= 5
	iv[8] ^= 5
	ws := append([]byte(nil), key[16:32]...)
	ws[0] ^= 5
	ws[8] ^= 5
	w := whitening(ws)
	b, _ := aes.NewCipher(key[32:64])
	want := make([]byte, 512)
	cipher.NewCBCEncrypter(b, iv).CryptBlocks(want, pt)
	for i := range want {
		want[i] ^= w[i%8]
	}
	if !bytes.Equal(ct, want) {
		t.Fatalf("sector 5:\n got %s\nwant %s", hex.EncodeToString(ct[:32]), hex.EncodeToString(want[:32]))
	}
	back := make([]byte, 512)
	c.crypt(back, ct, 5, false)
	if !bytes.Equal(back, pt) {
		t.Fatal("decrypt(encrypt) differs")
	}
}

// whitening computes TrueCrypt's 8-byte whitening from 16 seed bytes
// (already XORed with the sector number), by the formula of the format
// documentation, independently of cbcChain.sectorIV.
func whitening(s []byte) []byte {
	crc := func(b []byte) uint32 {
		c := ^uint32(0)
		for _, x := range b {
			c ^= uint32(x)
			for range 8 {
				c = c>>1 ^ 0xedb88320&-(c&1)
			}
		}
		return ^c
	}
	a := crc(s[0:4]) ^ crc(s[12:16])
	b := crc(s[4:8]) ^ crc(s[8:12])
	return []byte{byte(a), byte(a >> 8), byte(a >> 16), byte(a >> 24), byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24)}
}

// TestCBCRoundTrip: every CBC chain's sectors and header decrypt what
// they encrypt, differ per sector, and the chains key as documented.
func TestCBCRoundTrip(t *testing.T) {
	key := make([]byte, KeyAreaSize)
	for i := range key {
		key[i] = byte(i*13 + 5)
	}
	for _, name := range cbcChains {
		t.Run(name, func(t *testing.T) {
			c, err := newCBCChain(name, key[:cbcKeySize(name)])
			if err != nil {
				t.Fatal(err)
			}
			if _, err := newCBCChain(name, key[:cbcKeySize(name)-1]); err == nil {
				t.Error("short key accepted")
			}
			pt := make([]byte, 2048)
			ct := make([]byte, 2048)
			c.crypt(ct, pt, 9, true)
			if bytes.Equal(ct[:512], ct[512:1024]) {
				t.Error("two sectors encrypt alike")
			}
			back := make([]byte, 2048)
			c.crypt(back, ct, 9, false)
			if !bytes.Equal(back, pt) {
				t.Error("sectors do not round-trip")
			}
			h := make([]byte, 448)
			hb := make([]byte, 448)
			c.header(h, pt[:448], true)
			c.header(hb, h, false)
			if !bytes.Equal(hb, pt[:448]) {
				t.Error("header does not round-trip")
			}
		})
	}
	if _, err := newCBCChain("aes-xts", key); err == nil {
		t.Error("unknown chain accepted")
	}
}

// TestCBCCorruptHeader: a CBC image with flipped bytes in its salt or its
// encrypted header is refused with a clear error, without panicking or
// writing: ErrPassword, or (a flip in the fields, which headers before
// TrueCrypt 6.0 do not checksum) the geometry that does not fit.
func TestCBCCorruptHeader(t *testing.T) {
	dir := imagesDir(t)
	for _, off := range []int{0, 63, 64, 100, 300, 511} {
		dev := imageCopy(t, dir, "tc_1-sha1-cbc-cast5")
		dev.b[off] ^= 0x40
		orig := bytes.Clone(dev.b)
		_, err := Open(dev, []byte("aaaaaaaaaaaa"), &Options{PRF: "sha1", NoVeraCrypt: true})
		if err == nil || !strings.HasPrefix(err.Error(), "veracrypt: ") {
			t.Errorf("byte %d flipped: %v, want an error", off, err)
		}
		if off < 64 || off >= 256 {
			// The salt and the key area are checked.
			if !errors.Is(err, ErrPassword) {
				t.Errorf("byte %d flipped: %v, want ErrPassword", off, err)
			}
		}
		if !bytes.Equal(dev.b, orig) {
			t.Errorf("byte %d flipped: the device changed", off)
		}
	}
}

// TestCBCRefusals: Create refuses CBC-only ciphers, and a CBC chain named
// to Open is the only one tried.
func TestCBCRefusals(t *testing.T) {
	for _, c := range []string{"blowfish", "cast5", "des3_ede", "aes-blowfish"} {
		_, err := newHeaderFor("sha512", c, 512, seeded(1))
		if err == nil || !strings.Contains(err.Error(), "CBC") {
			t.Errorf("create with %s: %v", c, err)
		}
	}
	dir := imagesDir(t)
	dev := imageCopy(t, dir, "tc_1-sha1-cbc-des3_ede")
	if _, err := Open(dev, []byte("aaaaaaaaaaaa"), &Options{PRF: "sha1", Cipher: "cast5"}); !errors.Is(err, ErrPassword) {
		t.Errorf("wrong -c: %v", err)
	}
	v, err := Open(dev, []byte("aaaaaaaaaaaa"), &Options{PRF: "sha1", Cipher: "DES3_EDE"})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if c, m, b := v.Header().Cryptsetup(); c != "des3_ede" || m != "cbc-tcw" || b != 384 {
		t.Errorf("cryptsetup names %s %s %d", c, m, b)
	}
}

// TestCBCCryptsetupNames: tcryptDump's names and key sizes of the CBC
// chains, as cryptsetup's TCRYPT code lists them.
func TestCBCCryptsetupNames(t *testing.T) {
	tests := []struct {
		chain, csChain, mode string
		bits                 int
	}{
		{"aes", "aes", "cbc-tcw", 512},
		{"serpent", "serpent", "cbc-tcw", 512},
		{"cast5", "cast5", "cbc-tcw", 320},
		{"des3_ede", "des3_ede", "cbc-tcw", 384},
		{"blowfish", "blowfish_le", "cbc-tcrypt", 640},
		{"aes-twofish", "twofish-aes", "cbci-tcrypt", 768},
		{"serpent-twofish-aes", "aes-twofish-serpent", "cbci-tcrypt", 1024},
		{"aes-blowfish", "blowfish_le-aes", "cbc-tcrypt", 960},
		{"aes-blowfish-serpent", "serpent-blowfish_le-aes", "cbc-tcrypt", 1216},
	}
	for _, tc := range tests {
		h := &Header{Mode: "cbc", Cipher: tc.chain, KeySize: cbcKeySize(tc.chain)}
		c, m, b := h.Cryptsetup()
		if c != tc.csChain || m != tc.mode || b != tc.bits {
			t.Errorf("%s: %s %s %d, want %s %s %d", tc.chain, c, m, b, tc.csChain, tc.mode, tc.bits)
		}
	}
	h := &Header{Mode: "xts", Cipher: "kuznyechik-serpent-camellia", KeySize: 192}
	if c, m, b := h.Cryptsetup(); c != "camellia-serpent-kuznyechik" || m != "xts-plain64" || b != 1536 {
		t.Errorf("xts: %s %s %d", c, m, b)
	}
}

// FuzzCBC runs every CBC chain over arbitrary keys, sectors and headers:
// a key of the wrong size is refused, never a panic; decryption undoes
// encryption; and a decrypted block that parses as a header is one of
// TrueCrypt's (the trials take nothing else for a CBC chain).
func FuzzCBC(f *testing.F) {
	f.Add(bytes.Repeat([]byte{7}, 152), make([]byte, 512), uint8(0), uint64(1))
	f.Add([]byte("short key"), []byte("TRUE"), uint8(12), uint64(1<<63))
	f.Fuzz(func(t *testing.T, key, data []byte, which uint8, sector uint64) {
		name := cbcChains[int(which)%len(cbcChains)]
		c, err := newCBCChain(name, key)
		if len(key) < cbcKeySize(name) {
			if err == nil {
				t.Fatalf("%s: %d-byte key accepted", name, len(key))
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		n := len(data) &^ 511
		ct := make([]byte, n)
		c.crypt(ct, data[:n], sector, true)
		back := make([]byte, n)
		c.crypt(back, ct, sector, false)
		if !bytes.Equal(back, data[:n]) {
			t.Fatalf("%s: sectors do not round-trip", name)
		}
		blk := make([]byte, HeaderSize)
		copy(blk, data)
		dec := make([]byte, HeaderSize)
		copy(dec, blk[:SaltSize])
		if !cbcHeader(name, key, dec[SaltSize:], blk[SaltSize:]) {
			t.Fatalf("%s: header refused a full key", name)
		}
		if h, err := ParseHeader(dec); err == nil && !h.TrueCrypt && h.Magic != "VERA" {
			t.Fatalf("%s: header with magic %q parsed", name, h.Magic)
		}
	})
}

// Header.Cryptsetup names a TrueCrypt 3.x AES-Twofish CBC volume's chain
// as cryptsetup's tcryptDump does.
func ExampleHeader_Cryptsetup() {
	h := &Header{Mode: "cbc", Cipher: "aes-twofish", KeySize: 96}
	chain, mode, bits := h.Cryptsetup()
	fmt.Println(chain, mode, bits)
	// Output: twofish-aes cbci-tcrypt 768
}

// BenchmarkCBC decrypts 64 KiB of sectors with a few CBC chains.
func BenchmarkCBC(b *testing.B) {
	key := bytes.Repeat([]byte{0x5a}, KeyAreaSize)
	for _, name := range []string{"aes", "cast5", "des3_ede", "blowfish", "serpent-twofish-aes", "aes-blowfish-serpent"} {
		b.Run(name, func(b *testing.B) {
			c, err := newCBCChain(name, key)
			if err != nil {
				b.Fatal(err)
			}
			buf := make([]byte, 64<<10)
			b.SetBytes(int64(len(buf)))
			for b.Loop() {
				c.crypt(buf, buf, 1, false)
			}
		})
	}
}
