package luks

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"
)

// TestCryptsetupMaintainedImages: images that lived a while under
// cryptsetup — converted between LUKS1 and LUKS2, keys added, changed and
// killed, keyslot priorities set, a header backup used as a detached
// header, custom LUKS2 area sizes — open with the passphrases cryptsetup
// would take, refuse the ones it would refuse, and decrypt to the
// plaintext.
func TestCryptsetupMaintainedImages(t *testing.T) {
	needCryptsetup(t)
	second := []byte("second passphrase")
	for _, tc := range []struct {
		name   string
		format []string                                       // reencrypt --encrypt flags
		then   func(t *testing.T, im *csImage, newKey string) // cryptsetup's maintenance
		hdr    func(im *csImage) string                       // the header to open with; nil: the image's own
		moved  bool                                           // only the second passphrase unlocks now; the first must be refused
	}{
		{name: "luks2-to-luks1-to-luks2", format: []string{"--sector-size", "512"},
			then: func(t *testing.T, im *csImage, _ string) {
				cs(t, "convert", "--batch-mode", "--type", "luks1", im.img)
				cs(t, "convert", "--batch-mode", "--type", "luks2", im.img)
			}},
		{name: "metadata-and-keyslots-sizes", format: []string{"--luks2-metadata-size", "64k", "--luks2-keyslots-size", "4m"}},
		{name: "key-added-then-slot-0-killed",
			then: func(t *testing.T, im *csImage, nk string) {
				cs(t, append(append([]string{"luksAddKey", "--batch-mode", "--key-file", im.keyFile}, fastPBKDF2...), im.img, nk)...)
				cs(t, "luksKillSlot", "--batch-mode", "--key-file", nk, im.img, "0")
			},
			moved: true},
		{name: "key-changed",
			then: func(t *testing.T, im *csImage, nk string) {
				cs(t, append(append([]string{"luksChangeKey", "--batch-mode", "--key-file", im.keyFile}, fastPBKDF2...), im.img, nk)...)
			},
			moved: true},
		{name: "slot-0-priority-ignore",
			then: func(t *testing.T, im *csImage, nk string) {
				cs(t, append(append([]string{"luksAddKey", "--batch-mode", "--key-file", im.keyFile}, fastPBKDF2...), im.img, nk)...)
				cs(t, "config", "--batch-mode", "--priority", "ignore", "--key-slot", "0", im.img)
			},
			moved: true},
		{name: "luks1-key-in-slot-5-slot-0-killed", format: []string{"--sector-size", "512"},
			then: func(t *testing.T, im *csImage, nk string) {
				cs(t, "convert", "--batch-mode", "--type", "luks1", im.img)
				cs(t, append(append([]string{"luksAddKey", "--batch-mode", "--key-file", im.keyFile, "--key-slot", "5"}, fastPBKDF2...), im.img, nk)...)
				cs(t, "luksKillSlot", "--batch-mode", "--key-file", nk, im.img, "0")
			},
			moved: true},
		{name: "header-backup-as-detached-header",
			then: func(t *testing.T, im *csImage, _ string) {
				cs(t, "luksHeaderBackup", "--batch-mode", im.img, "--header-backup-file", filepath.Join(filepath.Dir(im.img), "backup"))
			},
			hdr: func(im *csImage) string { return filepath.Join(filepath.Dir(im.img), "backup") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain := randBytes(t, 64<<10)
			im := csEncrypt(t, plain, false, false, append(append([]string{}, fastPBKDF2...), tc.format...)...)
			nk := filepath.Join(filepath.Dir(im.img), "newpass")
			writeFile(t, nk, second)
			if tc.then != nil {
				tc.then(t, im, nk)
			}
			opens, refuse := [][]byte{im.pass}, [][]byte(nil)
			if tc.moved {
				opens, refuse = [][]byte{second}, [][]byte{im.pass}
			}
			df := openFile(t, im.img)
			var o *Options
			if tc.hdr != nil {
				o = &Options{Header: openFile(t, tc.hdr(im))}
			}
			for _, pass := range opens {
				v, err := Open(df, pass, o)
				if err != nil {
					t.Fatalf("Open with %q: %v", pass, err)
				}
				got := make([]byte, len(plain))
				if _, err := v.ReadAt(got, 0); err != nil || !bytes.Equal(got, plain) {
					t.Fatalf("ReadAt: %v; data equal to the plaintext: %v", err, bytes.Equal(got, plain))
				}
				v.Close()
			}
			for _, pass := range refuse {
				if _, err := Open(df, pass, o); !errors.Is(err, ErrNoKey) {
					t.Fatalf("Open with %q: %v, want ErrNoKey (cryptsetup refuses it too)", pass, err)
				}
				if testPassphrase(t, im.img, "", pass, -1) {
					t.Fatalf("cryptsetup accepts %q, which the test expects refused", pass)
				}
			}
		})
	}
}
