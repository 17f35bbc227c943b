package veracrypt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fastxts/xts/internal/fdeimages"
)

// imagesDir unpacks cryptsetup's TCRYPT test images into a temporary
// folder and returns it, or skips when ../shared/fde-images is absent.
func imagesDir(t *testing.T) string {
	t.Helper()
	return filepath.Join(fdeimages.Unpack(t, "tcrypt-images.tar.xz"), "tcrypt-images")
}

// image is one test image and what opening it should give.
type image struct {
	name      string
	password  []byte
	keyfiles  bool
	pim       int
	prf       string
	mode      string // "xts", "lrw", "cbc"
	cipher    string
	hidden    bool
	system    bool
	truecrypt bool
}

// parseImage reads an image's parameters from its name, as cryptsetup's
// test script does: PREFIX-PRF-MODE-CIPHER[-hidden].
func parseImage(name string) (image, bool) {
	im := image{name: name, password: []byte("aaaaaaaaaaaa")}
	parts := strings.Split(name, "-")
	if len(parts) < 4 {
		return im, false
	}
	prefix := parts[0]
	im.prf, im.mode = parts[1], parts[2]
	rest := parts[3:]
	if rest[len(rest)-1] == "hidden" {
		im.hidden = true
		rest = rest[:len(rest)-1]
	}
	im.cipher = strings.Join(rest, "-")
	switch {
	case strings.HasPrefix(prefix, "sys_"):
		im.system = true
	case strings.HasPrefix(prefix, "tck_"):
		im.keyfiles, im.truecrypt = true, true
	case strings.HasPrefix(prefix, "tc_"):
		im.truecrypt = true
	case strings.HasPrefix(prefix, "vck_"):
		im.keyfiles = true
		switch {
		case strings.Contains(prefix, "_nopw"):
			im.password = nil
		case strings.Contains(prefix, "_pw72"):
			im.password = []byte("aaaaaaaaaaaabbbbbbbbbbbbccccccccccccddddddddddddeeeeeeeeeeeeffffffffffff")
		}
	case strings.HasPrefix(prefix, "vcpim_"):
		f := strings.Split(prefix, "_")
		n, err := strconv.Atoi(f[len(f)-1])
		if err != nil {
			return im, false
		}
		im.pim = n
		im.password = []byte("cccccccccccccccccccc")
	}
	return im, true
}

// fsSerial returns the FAT volume serial (FAT12/16 or FAT32 boot sector)
// of a decrypted volume's first sector, and whether it has one.
func fsSerial(boot []byte) (uint32, bool) {
	if len(boot) < 512 || boot[510] != 0x55 || boot[511] != 0xaa {
		return 0, false
	}
	if bytes.HasPrefix(boot[0x52:], []byte("FAT32")) {
		return binary.LittleEndian.Uint32(boot[0x43:]), true
	}
	if bytes.HasPrefix(boot[0x36:], []byte("FAT")) {
		return binary.LittleEndian.Uint32(boot[0x27:]), true
	}
	return 0, false
}

// skipReason says why an image cannot be opened by this build, or "".
func (im image) skipReason() string {
	ps := findPRF(im.prf)
	if len(ps) == 0 {
		return "unknown PRF " + im.prf
	}
	if err := ps[0].check(); err != nil {
		return err.Error()
	}
	if im.mode == "cbc" {
		if _, ok := isCBCChain(im.cipher); !ok {
			return "unknown CBC chain " + im.cipher
		}
		return ""
	}
	cn, _ := CanonicalChain(im.cipher)
	if err := chainAvailable(cn); err != nil {
		return err.Error()
	}
	return ""
}

// shortSet is the images TestImages opens under -short: one per PRF,
// cascade shape, keyfile and PIM kind, hidden and system.
var shortSet = map[string]bool{
	"vc_1-sha512-xts-aes": true, "tc_5-sha512-xts-aes-hidden": true, "vc_1-sha256-xts-aes": true,
	"vc_1-blake2s-xts-aes": true, "tc_4-sha512-xts-serpent-twofish-aes": true, "vck_1_pw72-sha512-xts-aes": true,
	"tck_5-sha512-xts-aes": true, "vcpim_1_1234-sha256-xts-aes": true, "vc_1-argon2id-xts-aes": true,
	"sys_vc_1_mbr_part-sha256-xts-aes": true, "tc_3-sha512-xts-aes-hidden": true, "vc_1-whirlpool-xts-aes": true,
	"vc_1-sha512-xts-camellia-serpent-kuznyechik": true, "vc_1-stribog512-xts-camellia": true,
	"tc_4-ripemd160-xts-aes": true, "vck_1_nopw-sha256-xts-aes": true,
	"tc_2-ripemd160-lrw-serpent-twofish-aes-hidden": true, "sys_vc_1_mbr_full-sha256-xts-aes": true,
	"tc_1-sha1-cbc-des3_ede": true, "tc_2-ripemd160-cbc-aes-hidden": true, "tc_2-ripemd160-cbc-aes-blowfish-serpent": true,
}

// systemPartition returns where the encrypted system partition of a
// drive image starts: MBR partition 1, or GPT partition 3.
func systemPartition(t *testing.T, f *os.File) int64 {
	t.Helper()
	mbr := make([]byte, 512)
	if _, err := f.ReadAt(mbr, 0); err != nil {
		t.Fatal(err)
	}
	if mbr[446+4] != 0xee {
		return int64(binary.LittleEndian.Uint32(mbr[446+8:])) * 512
	}
	gpt := make([]byte, 512)
	if _, err := f.ReadAt(gpt, 512); err != nil {
		t.Fatal(err)
	}
	entries := int64(binary.LittleEndian.Uint64(gpt[72:])) * 512
	entSize := int64(binary.LittleEndian.Uint32(gpt[84:]))
	e := make([]byte, 128)
	if _, err := f.ReadAt(e, entries+2*entSize); err != nil {
		t.Fatal(err)
	}
	return int64(binary.LittleEndian.Uint64(e[32:])) * 512
}

// checkSerial reads the first sector of the filesystem at off in v and
// checks its FAT serial.
func checkSerial(t *testing.T, v *Volume, off int64, want uint32) {
	t.Helper()
	boot := make([]byte, 512)
	if _, err := v.ReadAt(boot, off); err != nil {
		t.Fatal(err)
	}
	s, ok := fsSerial(boot)
	if !ok {
		t.Fatalf("no FAT boot sector in the decrypted volume: % x", boot[:64])
	}
	if s != want {
		t.Fatalf("FAT serial %#08x, want %#08x", s, want)
	}
	// The first FAT, after the reserved sectors, starts with the media
	// byte and 0xff 0xff: a check of a later sector's decryption.
	bps := int64(binary.LittleEndian.Uint16(boot[0x0b:]))
	reserved := int64(binary.LittleEndian.Uint16(boot[0x0e:]))
	fat := make([]byte, 3)
	if _, err := v.ReadAt(fat, off+reserved*bps); err != nil {
		t.Fatal(err)
	}
	if fat[0] != boot[0x15] || fat[1] != 0xff || fat[2] != 0xff {
		t.Fatalf("FAT at sector %d starts % x, want %02x ff ff", reserved, fat, boot[0x15])
	}
}

// TestImages opens every cryptsetup TCRYPT image with its password (PRF
// named, cipher found by trial), checks the decrypted filesystem's serial
// (DEAD-BABE, hidden volumes CAFE-BABE), and the backup headers.
func TestImages(t *testing.T) {
	dir := imagesDir(t)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var keyfiles [][]byte
	for _, k := range []string{"keyfile1", "keyfile2"} {
		b, err := os.ReadFile(filepath.Join(dir, k))
		if err != nil {
			t.Fatal(err)
		}
		keyfiles = append(keyfiles, b)
	}
	for _, e := range ents {
		im, ok := parseImage(e.Name())
		if !ok {
			continue
		}
		t.Run(im.name, func(t *testing.T) {
			if testing.Short() && !shortSet[im.name] {
				t.Skip("-short: not in the short set")
			}
			if r := im.skipReason(); r != "" {
				t.Skip(r)
			}
			if raceEnabled && testing.Short() && (im.prf == "whirlpool" || im.prf == "stribog512") {
				t.Skip("-race -short: PBKDF2 over pure-Go Whirlpool/Streebog takes minutes under the race detector")
			}
			if im.prf == "argon2id" && im.pim > 31 && testing.Short() {
				t.Skip("-short: Argon2id at PIM > 31 takes 1 GiB of memory")
			}
			t.Parallel()
			f, err := os.Open(filepath.Join(dir, im.name))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			o := &Options{PRF: im.prf, PIM: im.pim, System: im.system, ReadOnly: true}
			if im.keyfiles {
				o.Keyfiles = keyfiles
			}
			start := time.Now()
			v, err := Open(f, im.password, o)
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			h := v.Header()
			if CryptsetupChain(h.Cipher) != im.cipher {
				t.Errorf("cipher %s, want %s", h.Cipher, im.cipher)
			}
			if h.TrueCrypt != im.truecrypt {
				t.Errorf("TrueCrypt %v, want %v", h.TrueCrypt, im.truecrypt)
			}
			if im.mode == "cbc" {
				checkCBC(t, v, f, im)
			}
			var fs int64
			if im.system {
				// A whole-drive header's area starts after the first
				// track; the filesystem is in the partition.
				fs = systemPartition(t, f) - int64(h.EncryptedAreaStart)
			}
			if wiped(t, f, v.Header(), fs) {
				// cryptsetup's CBC cascade and Blowfish images: only
				// their headers were kept (cryptsetup cannot map them).
				t.Logf("data area wiped in the image: header checked, no filesystem to check")
			} else {
				checkSerial(t, v, fs, 0xdeadbabe)
			}
			t.Logf("%s %s v%d data [%d,+%d) ss %d, %v", h.PRF, h.Cipher, h.Version, h.EncryptedAreaStart, h.EncryptedAreaLength, h.SectorSize, time.Since(start).Round(time.Millisecond))
			if im.hidden {
				o.Hidden = true
				hv, err := Open(f, []byte("bbbbbbbbbbbb"), o)
				if err != nil {
					t.Fatalf("hidden: %v", err)
				}
				defer hv.Close()
				if wiped(t, f, hv.Header(), 0) {
					t.Logf("hidden data area wiped in the image: header checked, no filesystem to check")
				} else {
					checkSerial(t, hv, 0, 0xcafebabe)
				}
			}
		})
	}
}

// openImage opens a copy of an image in memory.
func imageCopy(t *testing.T, dir, name string) *memDev {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return &memDev{b: b}
}

// TestImageTrials opens images with no PRF or cipher named (every trial),
// refuses wrong passwords and missing keyfiles, and reads a header alone.
func TestImageTrials(t *testing.T) {
	dir := imagesDir(t)
	tests := []struct {
		name, password string
		o              Options
		err            bool
		cipher         string
	}{
		{name: "vc_1-sha512-xts-aes", password: "aaaaaaaaaaaa", cipher: "aes"},
		{name: "tc_4-sha512-xts-serpent-twofish-aes", password: "aaaaaaaaaaaa", o: Options{NoVeraCrypt: true}, cipher: "serpent-twofish-aes"},
		{name: "tc_5-sha512-xts-aes-hidden", password: "bbbbbbbbbbbb", o: Options{Hidden: true, NoVeraCrypt: true}, cipher: "aes"},
		{name: "vc_1-sha256-xts-aes", password: "aaaaaaaaaaab", o: Options{PRF: "sha256"}, err: true},
		{name: "tck_5-sha512-xts-aes", password: "aaaaaaaaaaaa", o: Options{NoVeraCrypt: true}, err: true},
		{name: "vcpim_1_1234-sha256-xts-aes", password: "cccccccccccccccccccc", o: Options{PRF: "sha256", PIM: 1233}, err: true},
		{name: "tc_2-ripemd160-cbc-aes-blowfish-serpent", password: "aaaaaaaaaaaa", o: Options{NoVeraCrypt: true}, cipher: "aes-blowfish-serpent"},
		{name: "tc_1-sha1-cbc-cast5", password: "aaaaaaaaaaaa", o: Options{NoVeraCrypt: true}, cipher: "cast5"},
		{name: "tc_1-sha1-cbc-cast5", password: "aaaaaaaaaaab", o: Options{NoVeraCrypt: true}, err: true},
		{name: "tc_1-sha1-cbc-cast5", password: "aaaaaaaaaaaa", o: Options{PRF: "ripemd160", NoVeraCrypt: true}, err: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if r := mustParse(t, tc.name).skipReason(); r != "" {
				t.Skip(r)
			}
			if testing.Short() && tc.o.PRF == "" && !tc.o.NoVeraCrypt {
				t.Skip("-short: every VeraCrypt PRF takes a minute")
			}
			dev := imageCopy(t, dir, tc.name)
			o := tc.o
			h, err := ReadHeader(dev, []byte(tc.password), &o)
			if tc.err {
				if !errors.Is(err, ErrPassword) {
					t.Fatalf("got %v, want ErrPassword", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := chainKeySize(tc.cipher)
			if h.Mode == "cbc" {
				want = cbcKeySize(tc.cipher)
			}
			if h.Cipher != tc.cipher || h.KeySize != want || len(h.MasterKey()) != h.KeySize {
				t.Fatalf("cipher %s key size %d", h.Cipher, h.KeySize)
			}
		})
	}
}

func mustParse(t *testing.T, name string) image {
	im, ok := parseImage(name)
	if !ok {
		t.Fatalf("bad image name %s", name)
	}
	return im
}

// TestImageWrite writes through an image's outer volume with hidden
// volume protection, and checks the writes read back, the hidden volume
// is intact and writes into it are refused.
func TestImageWrite(t *testing.T) {
	dir := imagesDir(t)
	for _, name := range []string{"vc_1-sha512-xts-aes-hidden", "tc_5-sha512-xts-aes-hidden"} {
		t.Run(name, func(t *testing.T) {
			dev := imageCopy(t, dir, name)
			hpw := []byte("bbbbbbbbbbbb")
			hv, err := Open(dev, hpw, &Options{Hidden: true, PRF: "sha512"})
			if err != nil {
				t.Fatal(err)
			}
			hidden := make([]byte, hv.Size())
			if _, err := hv.ReadAt(hidden, 0); err != nil {
				t.Fatal(err)
			}
			hstart := int64(hv.Header().EncryptedAreaStart)
			hv.Close()
			v, err := Open(dev, []byte("aaaaaaaaaaaa"), &Options{PRF: "sha512", Protect: &Credentials{Password: hpw, PRF: "sha512"}})
			if err != nil {
				t.Fatal(err)
			}
			rel := hstart - int64(v.Header().EncryptedAreaStart)
			msg := bytes.Repeat([]byte("written!"), 300)
			if _, err := v.WriteAt(msg, 4000); err != nil {
				t.Fatal(err)
			}
			if _, err := v.WriteAt(msg, rel-100); err == nil {
				t.Fatal("write into the protected hidden volume accepted")
			}
			got := make([]byte, len(msg))
			if _, err := v.ReadAt(got, 4000); err != nil || !bytes.Equal(got, msg) {
				t.Fatalf("read back: %v", err)
			}
			checkSerial(t, v, 0, 0xdeadbabe)
			v.Close()
			hv, err = Open(dev, hpw, &Options{Hidden: true, PRF: "sha512"})
			if err != nil {
				t.Fatal(err)
			}
			defer hv.Close()
			got = make([]byte, hv.Size())
			if _, err := hv.ReadAt(got, 0); err != nil || !bytes.Equal(got, hidden) {
				t.Fatalf("hidden volume changed (%v)", err)
			}
		})
	}
}
