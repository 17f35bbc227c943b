package luks

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAddKeyCheckedByCryptsetup adds keyslots with the package to images
// cryptsetup made (LUKS2 with a token, which must survive; LUKS1) and to
// images the package made, then checks every passphrase with cryptsetup
// and that cryptsetup can still add a keyslot of its own after them.
func TestAddKeyCheckedByCryptsetup(t *testing.T) {
	needCryptsetup(t)
	cases := []struct {
		name    string
		make    func(t *testing.T) *csImage
		kdf     KDFOptions
		version int
	}{
		{"cryptsetup-luks2-token", func(t *testing.T) *csImage {
			im := csEncrypt(t, randBytes(t, 64<<10), false, false, fastArgon2id...)
			tok := filepath.Join(filepath.Dir(im.img), "token.json")
			writeFile(t, tok, []byte(`{"type":"test-token","keyslots":["0"],"note":"kept"}`))
			cs(t, "token", "import", "--batch-mode", "--json-file", tok, "--token-id", "3", im.img)
			return im
		}, fastKDF["argon2id"], 2},
		{"cryptsetup-luks1", func(t *testing.T) *csImage {
			return csEncrypt(t, randBytes(t, 64<<10), false, true, fastPBKDF2...)
		}, fastKDF["pbkdf2"], 1},
		{"package-luks2-detached", func(t *testing.T) *csImage { return pkgImage(t, CreateOptions{Detached: true, KDF: fastKDF["pbkdf2"]}) }, fastKDF["argon2i"], 2},
		{"package-luks1", func(t *testing.T) *csImage { return pkgImage(t, CreateOptions{Version: 1, KDF: fastKDF["pbkdf2"]}) }, fastKDF["pbkdf2"], 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			im := tc.make(t)
			f, h, key := openUnlocked(t, im.headerDev, im.pass)
			p1, p5 := []byte("added one"), []byte("added five")
			if id, err := h.AddKey(f, key, p1, AnyKeyslot, tc.kdf); err != nil || id != 1 {
				t.Fatalf("AddKey: slot %d, %v", id, err)
			}
			if id, err := h.AddKey(f, key, p5, 5, tc.kdf); err != nil || id != 5 {
				t.Fatalf("AddKey slot 5: %d, %v", id, err)
			}
			if _, err := h.AddKey(f, key, p5, 5, tc.kdf); err == nil {
				t.Fatal("AddKey to a slot in use succeeded")
			}
			if _, err := h.AddKey(f, randBytes(t, len(key)), p5, AnyKeyslot, tc.kdf); err == nil {
				t.Fatal("AddKey with a wrong volume key succeeded")
			}
			for slot, p := range map[int][]byte{0: im.pass, 1: p1, 5: p5} {
				if !testPassphrase(t, im.img, im.hdr, p, slot) {
					t.Fatalf("cryptsetup refuses the passphrase of slot %d", slot)
				}
				if _, got, err := h.Unlock(f, p, AnyKeyslot); err != nil || got != slot {
					t.Fatalf("Unlock: slot %d, %v; want %d", got, err, slot)
				}
			}
			if testPassphrase(t, im.img, im.hdr, p1, 5) {
				t.Fatal("cryptsetup opens slot 5 with slot 1's passphrase")
			}
			kf := filepath.Join(filepath.Dir(im.keyFile), "cs-added")
			writeFile(t, kf, []byte("by cryptsetup"))
			cs(t, append(append(append([]string{"luksAddKey", "--batch-mode", "--key-file", im.keyFile}, im.hdrArgs()...), fastPBKDF2...), im.img, kf)...)
			dump := cs(t, append([]string{"luksDump"}, hdrOr(im.hdr, im.img)...)...)
			if tc.version == 2 && strings.Contains(tc.name, "token") && !strings.Contains(dump, "test-token") {
				t.Fatalf("the token was lost:\n%s", dump)
			}
		})
	}
}

// pkgImage makes an image with Create and returns it in the terms the
// cryptsetup helpers use.
func pkgImage(t *testing.T, o CreateOptions) *csImage {
	dir := t.TempDir()
	im := &csImage{img: filepath.Join(dir, "img"), keyFile: filepath.Join(dir, "pass"), pass: []byte("made here")}
	writeFile(t, im.keyFile, im.pass)
	im.headerDev = im.img
	if o.Detached {
		im.hdr = filepath.Join(dir, "hdr")
		im.headerDev = im.hdr
		writeFile(t, im.img, make([]byte, 64<<10))
	}
	f, err := os.Create(im.headerDev)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, key, err := Create(f, im.pass, &o)
	if err != nil {
		t.Fatal(err)
	}
	if !o.Detached {
		if err := f.Truncate(int64(h.Segments[0].Offset) + 64<<10); err != nil {
			t.Fatal(err)
		}
	}
	if bytes.Equal(key, make([]byte, len(key))) {
		t.Fatal("all-zero volume key")
	}
	return im
}
