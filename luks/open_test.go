package luks

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"testing"
)

// csCases are the images cryptsetup makes that the package must open.
var csCases = []struct {
	name       string
	luks1      bool
	detached   bool
	args       []string
	version    int
	encryption string
	keyBits    int
	sectorSize int
	kdf        string
}{
	{"luks2-xts512-4k-pbkdf2-sha256", false, false, []string{"--cipher", "aes-xts-plain64", "--key-size", "512", "--sector-size", "4096", "--hash", "sha256"}, 2, "aes-xts-plain64", 512, 4096, "pbkdf2"},
	{"luks2-xts256-512-pbkdf2-sha1", false, false, []string{"--cipher", "aes-xts-plain64", "--key-size", "256", "--sector-size", "512", "--hash", "sha1"}, 2, "aes-xts-plain64", 256, 512, "pbkdf2"},
	{"luks2-xts512-4k-argon2id", false, false, []string{"--key-size", "512", "--sector-size", "4096"}, 2, "aes-xts-plain64", 512, 4096, "argon2id"},
	{"luks2-xts256-2k-argon2i", false, false, []string{"--key-size", "256", "--sector-size", "2048"}, 2, "aes-xts-plain64", 256, 2048, "argon2i"},
	{"luks2-xts-plain-pbkdf2-sha512", false, false, []string{"--cipher", "aes-xts-plain", "--key-size", "512", "--sector-size", "4096", "--hash", "sha512"}, 2, "aes-xts-plain", 512, 4096, "pbkdf2"},
	{"luks2-cbc-essiv", false, false, []string{"--cipher", "aes-cbc-essiv:sha256", "--key-size", "256", "--sector-size", "4096"}, 2, "aes-cbc-essiv:sha256", 256, 4096, "pbkdf2"},
	{"luks2-cbc-plain64-aes128", false, false, []string{"--cipher", "aes-cbc-plain64", "--key-size", "128", "--sector-size", "512"}, 2, "aes-cbc-plain64", 128, 512, "pbkdf2"},
	{"luks2-detached-xts512-4k", false, true, []string{"--key-size", "512", "--sector-size", "4096"}, 2, "aes-xts-plain64", 512, 4096, "argon2id"},
	{"luks2-detached-cbc-plain", false, true, []string{"--cipher", "aes-cbc-plain", "--key-size", "256", "--sector-size", "512"}, 2, "aes-cbc-plain", 256, 512, "pbkdf2"},
	{"luks2-keyslot-cipher-cbc-essiv", false, false, []string{"--key-size", "512", "--sector-size", "4096", "--keyslot-cipher", "aes-cbc-essiv:sha256", "--keyslot-key-size", "256"}, 2, "aes-xts-plain64", 512, 4096, "pbkdf2"},
	{"luks1-xts512-sha256", true, false, []string{"--key-size", "512", "--sector-size", "512", "--hash", "sha256"}, 1, "aes-xts-plain64", 512, 512, "pbkdf2"},
	{"luks1-xts256-sha1", true, false, []string{"--key-size", "256", "--sector-size", "512", "--hash", "sha1"}, 1, "aes-xts-plain64", 256, 512, "pbkdf2"},
	{"luks1-cbc-essiv", true, false, []string{"--cipher", "aes-cbc-essiv:sha256", "--key-size", "256", "--sector-size", "512"}, 1, "aes-cbc-essiv:sha256", 256, 512, "pbkdf2"},
	{"luks1-detached-xts-plain", true, true, []string{"--cipher", "aes-xts-plain", "--key-size", "256", "--sector-size", "512", "--hash", "sha512"}, 1, "aes-xts-plain", 256, 512, "pbkdf2"},
}

func kdfArgs(kdf string) []string {
	switch kdf {
	case "argon2id":
		return fastArgon2id
	case "argon2i":
		return fastArgon2i
	}
	return fastPBKDF2
}

func openFile(t testing.TB, path string) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// openUnlocked opens the header device at path, reads its header and
// unlocks the volume key with pass (any keyslot).
func openUnlocked(t testing.TB, path string, pass []byte) (*os.File, *Header, []byte) {
	t.Helper()
	f := openFile(t, path)
	h, err := ReadHeader(f)
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := h.Unlock(f, pass, AnyKeyslot)
	if err != nil {
		t.Fatal(err)
	}
	return f, h, key
}

// TestOpenCryptsetupImages opens images cryptsetup encrypted and checks the
// header against what was asked, the passphrase and the dumped volume key,
// and the data against the plaintext cryptsetup was given.
func TestOpenCryptsetupImages(t *testing.T) {
	needCryptsetup(t)
	for _, tc := range csCases {
		t.Run(tc.name, func(t *testing.T) {
			plain := randBytes(t, 256<<10+4096)
			im := csEncrypt(t, plain, tc.detached, tc.luks1, append(kdfArgs(tc.kdf), tc.args...)...)
			hf := openFile(t, im.headerDev)
			h, err := ReadHeader(hf)
			if err != nil {
				t.Fatal(err)
			}
			seg, err := h.DataSegment()
			if err != nil {
				t.Fatal(err)
			}
			k, ok := h.Keyslot(0)
			if want := keyslotCipher(tc.args); want != "" && (!ok || k.Area.Encryption != want || k.Area.KeySize != 32) {
				t.Fatalf("keyslot area %s, %d bytes; want %s", k.Area.Encryption, k.Area.KeySize, want)
			}
			if h.Version != tc.version || seg.Encryption != tc.encryption || seg.SectorSize != tc.sectorSize || !ok || k.KeySize*8 != tc.keyBits || k.KDF.Type != tc.kdf {
				t.Fatalf("header: version %d, %s, sector %d, keyslot 0 %+v; want version %d, %s, sector %d, %d bits, %s",
					h.Version, seg.Encryption, seg.SectorSize, k, tc.version, tc.encryption, tc.sectorSize, tc.keyBits, tc.kdf)
			}
			if tc.detached != (seg.Offset == 0) {
				t.Fatalf("segment offset %d with detached=%v", seg.Offset, tc.detached)
			}

			vk := im.volumeKey(t)
			key, slot, err := h.Unlock(hf, im.pass, AnyKeyslot)
			if err != nil || slot != 0 || !bytes.Equal(key, vk) {
				t.Fatalf("Unlock: slot %d, err %v, key matches cryptsetup's: %v", slot, err, bytes.Equal(key, vk))
			}
			if _, _, err := h.Unlock(hf, []byte("wrong"), AnyKeyslot); !errors.Is(err, ErrNoKey) {
				t.Fatalf("Unlock with a wrong passphrase: %v, want ErrNoKey", err)
			}

			df := openFile(t, im.img)
			var o *Options
			if tc.detached {
				o = &Options{Header: hf}
			}
			v, err := Open(df, im.pass, o)
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			got := make([]byte, len(plain))
			if n, err := v.ReadAt(got, 0); err != nil || n != len(plain) || !bytes.Equal(got, plain) {
				t.Fatalf("ReadAt: %d bytes, %v; data equal: %v", n, err, bytes.Equal(got, plain))
			}
			vv, err := OpenWithKey(df, vk, o)
			if err != nil {
				t.Fatal(err)
			}
			checkRandomReads(t, vv, plain)
			vv.Close()
			if _, err := OpenWithKey(df, randBytes(t, len(vk)), o); !errors.Is(err, ErrWrongKey) {
				t.Fatalf("OpenWithKey with a random key: %v, want ErrWrongKey", err)
			}
		})
	}
}

// checkRandomReads reads random ranges of v and compares them with plain
// (the start of the volume).
func checkRandomReads(t *testing.T, v *Volume, plain []byte) {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		off := r.IntN(len(plain))
		n := r.IntN(min(len(plain)-off, 3*v.SectorSize()) + 1)
		if i%20 == 0 {
			n = len(plain) - off
		}
		got := make([]byte, n)
		if m, err := v.ReadAt(got, int64(off)); (err != nil && err != io.EOF) || m != n || !bytes.Equal(got, plain[off:off+n]) {
			t.Fatalf("ReadAt(%d bytes at %d): %d, %v, equal %v", n, off, m, err, bytes.Equal(got, plain[off:off+n]))
		}
	}
}

func keyslotCipher(args []string) string {
	for i, a := range args {
		if a == "--keyslot-cipher" {
			return args[i+1]
		}
	}
	return ""
}

// TestLuksFormatImages: images made by `cryptsetup luksFormat` itself
// (no reencryption, LUKS1 not converted) unlock to the volume key that
// cryptsetup dumps, and their header fields are the ones luksFormat uses.
func TestLuksFormatImages(t *testing.T) {
	needCryptsetup(t)
	for _, tc := range []struct {
		name    string
		args    []string
		version int
		offset  uint64
	}{
		{"luks2-defaults-argon2id", []string{"--type", "luks2", "--pbkdf", "argon2id", "--pbkdf-force-iterations", "4", "--pbkdf-memory", "32"}, 2, 16 << 20},
		{"luks1-defaults", []string{"--type", "luks1", "--pbkdf-force-iterations", "1000"}, 1, 2 << 20},
		{"luks1-aes128-sha1", []string{"--type", "luks1", "--pbkdf-force-iterations", "1000", "--hash", "sha1", "--key-size", "256"}, 1, 2 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			im := &csImage{img: dir + "/img", keyFile: dir + "/pass", pass: []byte("formatted")}
			im.headerDev = im.img
			writeFile(t, im.keyFile, im.pass)
			writeFile(t, im.img, make([]byte, 20<<20))
			cs(t, append(append([]string{"luksFormat", "--batch-mode", "--key-file", im.keyFile}, tc.args...), im.img)...)
			f := openFile(t, im.img)
			h, err := ReadHeader(f)
			if err != nil {
				t.Fatal(err)
			}
			if h.Version != tc.version || h.Segments[0].Offset != tc.offset {
				t.Fatalf("version %d, data offset %d", h.Version, h.Segments[0].Offset)
			}
			key, _, err := h.Unlock(f, im.pass, AnyKeyslot)
			if err != nil || !bytes.Equal(key, im.volumeKey(t)) {
				t.Fatalf("Unlock: %v, or not cryptsetup's key", err)
			}
			v, err := Open(f, im.pass, nil)
			if err != nil {
				t.Fatal(err)
			}
			model := make([]byte, v.Size())
			checkRandomWrites(t, v, model)
			v.Close()
			if !testPassphrase(t, im.img, "", im.pass, -1) {
				t.Fatal("cryptsetup no longer opens the image after data writes")
			}
		})
	}
}
