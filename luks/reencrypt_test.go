package luks

import (
	"bytes"
	"context"
	"crypto/aes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fastxts/xts"
)

// reencImage is an image file for the reencryption tests: data (and a
// detached header, or ""), the passphrase in a key file, the plaintext.
type reencImage struct {
	dir, img, hdr, keyFile string
	pass, plain            []byte
}

func (im *reencImage) hdrDev() string {
	if im.hdr != "" {
		return im.hdr
	}
	return im.img
}

func (im *reencImage) hdrArgs() []string {
	if im.hdr != "" {
		return []string{"--header", im.hdr}
	}
	return nil
}

// newReencImage makes with cryptsetup a LUKS2 image of size bytes of
// random plaintext (detached: the header in its own file; plainOnly: a
// plain file, no LUKS at all, for encrypt). Keyslots are cheap pbkdf2.
func newReencImage(t testing.TB, size int, detached, plainOnly bool, format ...string) *reencImage {
	t.Helper()
	needCryptsetup(t)
	dir := t.TempDir()
	im := &reencImage{dir: dir, img: filepath.Join(dir, "img"), keyFile: filepath.Join(dir, "pass"), pass: []byte("reencrypt me")}
	writeFile(t, im.keyFile, im.pass)
	im.plain = randBytes(t, size)
	if plainOnly {
		writeFile(t, im.img, im.plain)
		im.hdr = filepath.Join(dir, "hdr")
		return im
	}
	if detached {
		im.hdr = filepath.Join(dir, "hdr")
		writeFile(t, im.img, make([]byte, size))
	} else if err := os.Truncate(writeEmpty(t, im.img), int64(size)+2<<20); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"luksFormat", "--batch-mode", "--type", "luks2", "--key-file", im.keyFile,
		"--luks2-metadata-size", "16k", "--luks2-keyslots-size", "2016k"}, fastPBKDF2...)
	args = append(append(args, format...), im.hdrArgs()...)
	cs(t, append(args, im.img)...)
	// The plaintext goes in through cryptsetup's own key and the root
	// xts package, not this package's volume code.
	key := im.key(t)
	h := readHeaderFile(t, im.hdrDev())
	seg := h.Segments[0]
	ct := xtsCrypt(t, key, im.plain, seg.SectorSize, false)
	f, err := os.OpenFile(im.img, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(ct, int64(seg.Offset)); err != nil {
		t.Fatal(err)
	}
	return im
}

func writeEmpty(t testing.TB, p string) string {
	writeFile(t, p, nil)
	return p
}

func readHeaderFile(t testing.TB, p string) *Header {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := ReadHeader(f)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// key is the volume key cryptsetup dumps.
func (im *reencImage) key(t testing.TB) []byte {
	c := &csImage{img: im.img, hdr: im.hdr, keyFile: im.keyFile}
	return c.volumeKey(t)
}

// xtsCrypt en- or decrypts a whole aes-xts-plain64 segment with the root
// xts package (IVs in 512-byte units from 0).
func xtsCrypt(t testing.TB, key, in []byte, sectorSize int, decrypt bool) []byte {
	t.Helper()
	c, err := xts.NewCipher(aes.NewCipher, key, xts.WithTweakUnit(512))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]byte, len(in))
	if decrypt {
		c.DecryptSectors(out, in, sectorSize, 0)
	} else {
		c.EncryptSectors(out, in, sectorSize, 0)
	}
	return out
}

// checkContent checks, independently of this package's volume code,
// that the image holds the plaintext: encrypted under the key cryptsetup
// dumps, or plain when the header has a linear segment (decrypt).
func (im *reencImage) checkContent(t testing.TB) {
	t.Helper()
	out := cs(t, append([]string{"luksDump", "--dump-json-metadata"}, append(im.hdrArgs(), im.hdrDev())...)...)
	if strings.Contains(out, "online-reencrypt") {
		t.Fatalf("the reencryption is still recorded:\n%s", out)
	}
	h := readHeaderFile(t, im.hdrDev())
	raw, err := os.ReadFile(im.img)
	if err != nil {
		t.Fatal(err)
	}
	seg := h.Segments[0]
	data := raw[seg.Offset : seg.Offset+uint64(len(im.plain))]
	if seg.Type == "linear" {
		if !bytes.Equal(data, im.plain) {
			t.Fatal("the decrypted image does not hold the plaintext")
		}
		return
	}
	if !testPassphrase(t, im.img, im.hdr, im.pass, -1) {
		t.Fatal("cryptsetup does not accept the passphrase after the reencryption")
	}
	got := xtsCrypt(t, im.key(t), data, seg.SectorSize, true)
	if !bytes.Equal(got, im.plain) {
		t.Fatal("the image does not decrypt to the plaintext")
	}
}

// open opens the image's files read-write.
func (im *reencImage) open(t testing.TB) (data, hdr *os.File) {
	t.Helper()
	d, err := os.OpenFile(im.img, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if im.hdr == "" {
		return d, d
	}
	fl := os.O_RDWR
	if _, err := os.Stat(im.hdr); err != nil {
		fl |= os.O_CREATE
	}
	h, err := os.OpenFile(im.hdr, fl, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return d, h
}

var reencKDF = KDFOptions{Type: "pbkdf2", Hash: "sha256", Iterations: 1000}

// TestReencryptDigestMatchesCryptsetup: for images cryptsetup
// initialised (each mode and resilience), the package parses the
// metadata, finds the keys, and computes the same verification digest.
func TestReencryptDigestMatchesCryptsetup(t *testing.T) {
	for _, tc := range []struct {
		name            string
		detached, plain bool
		args            []string
	}{
		{"reencrypt-checksum", false, false, nil},
		{"reencrypt-journal-512", false, false, []string{"--resilience", "journal", "--sector-size", "512", "--key-size", "256"}},
		{"reencrypt-none-sha1", false, false, []string{"--resilience", "none"}},
		{"reencrypt-checksum-sha512", true, false, []string{"--resilience-hash", "sha512"}},
		{"encrypt-detached", false, true, []string{"--encrypt"}},
		{"decrypt-detached", true, false, []string{"--decrypt"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			im := newReencImage(t, 1<<20, tc.detached, tc.plain)
			args := append([]string{"reencrypt", "--init-only", "--force-offline-reencrypt", "--batch-mode", "--key-file", im.keyFile}, fastPBKDF2...)
			args = append(append(args, tc.args...), im.hdrArgs()...)
			cs(t, append(args, im.img)...)
			h := readHeaderFile(t, im.hdrDev())
			st, err := parseReencrypt(h)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.progress(0); err != nil {
				t.Fatal(err)
			}
			data, hdr := im.open(t)
			_ = data
			var oldKey, newKey []byte
			if st.prevDigest != nil {
				if oldKey, _, err = unlockDigest(h, hdr, st.prevDigest, im.pass, AnyKeyslot); err != nil {
					t.Fatal(err)
				}
			}
			if st.finalDigest != nil {
				if newKey, _, err = unlockDigest(h, hdr, st.finalDigest, im.pass, AnyKeyslot); err != nil {
					t.Fatal(err)
				}
			}
			if err := st.verify(oldKey, newKey); err != nil {
				t.Fatalf("%v (mode %s, %s)", err, st.mode, st.resilience)
			}
			// A changed key must not verify.
			if newKey != nil {
				newKey[0] ^= 1
			} else {
				oldKey[0] ^= 1
			}
			if err := st.verify(oldKey, newKey); !errors.Is(err, ErrReencryptMetadata) {
				t.Fatalf("a wrong key verified: %v", err)
			}
			if err := h.CheckSupported(); err == nil || !strings.Contains(err.Error(), "resume") {
				t.Fatalf("CheckSupported of an image in reencryption: %v", err)
			}
		})
	}
}

type reencCase struct {
	name             string
	mode, resilience string
	detached         bool
	format           []string
	opts             ReencryptOptions
}

func reencCases() []reencCase {
	var out []reencCase
	for _, res := range []string{"checksum", "journal", "none"} {
		out = append(out,
			reencCase{name: "rotate-" + res, mode: "reencrypt", resilience: res},
			reencCase{name: "rotate-detached-512to4096-" + res, mode: "reencrypt", resilience: res, detached: true,
				format: []string{"--sector-size", "512"}, opts: ReencryptOptions{SectorSize: 4096, KeySize: 32}},
			reencCase{name: "encrypt-" + res, mode: "encrypt", resilience: res, detached: true},
			reencCase{name: "decrypt-" + res, mode: "decrypt", resilience: res, detached: true},
		)
	}
	return out
}

func (c reencCase) image(t testing.TB, size int) *reencImage {
	return newReencImage(t, size, c.detached, c.mode == "encrypt", c.format...)
}

func (c reencCase) options() ReencryptOptions {
	o := c.opts
	o.Mode, o.Resilience, o.KDF, o.Keyslot, o.HotzoneSize = c.mode, c.resilience, reencKDF, AnyKeyslot, 256<<10
	return o
}

// TestReencryptModes: each mode and resilience, start to end by the
// package; the result checked with cryptsetup's key and the root xts
// package.
func TestReencryptModes(t *testing.T) {
	for _, c := range reencCases() {
		t.Run(c.name, func(t *testing.T) {
			im := c.image(t, 3<<20)
			data, hdr := im.open(t)
			var calls int
			o := c.options()
			o.Progress = func(done, total uint64) { calls++ }
			if err := Reencrypt(context.Background(), data, hdr, im.pass, o); err != nil {
				t.Fatal(err)
			}
			if calls < 3 {
				t.Fatalf("Progress called %d times for 12 hotzones", calls)
			}
			im.checkContent(t)
		})
	}
}

// TestReencryptOtherKeyslots: a rotation with Keyslot N when several
// keyslots are active ends as cryptsetup reencrypt --key-slot N does:
// only the new keyslot (a fresh id) remains, the other passphrases open
// nothing, tokens stay with their keyslot references dropped.
func TestReencryptOtherKeyslots(t *testing.T) {
	im := newReencImage(t, 1<<20, false, false)
	for _, k := range []struct{ pass, slot string }{{"second", "1"}, {"third", "5"}} {
		kf := filepath.Join(im.dir, k.pass)
		writeFile(t, kf, []byte(k.pass))
		cs(t, append(append([]string{"luksAddKey", "--batch-mode", "--key-file", im.keyFile, "--key-slot", k.slot}, fastPBKDF2...), im.img, kf)...)
	}
	cs(t, "token", "add", "--key-description", "desc", "--key-slot", "5", im.img)
	second := filepath.Join(im.dir, "second")
	orig := readFile(t, im.img)
	type shape struct {
		Keyslots []int
		Digests  [][]int
		Tokens   [][]int
	}
	shapeOf := func() shape {
		h := readHeaderFile(t, im.img)
		var s shape
		for _, k := range h.Keyslots {
			s.Keyslots = append(s.Keyslots, k.ID)
		}
		for _, d := range h.Digests {
			s.Digests = append(s.Digests, d.Keyslots)
		}
		for _, tk := range h.Tokens {
			s.Tokens = append(s.Tokens, append([]int{}, tk.Keyslots...))
		}
		return s
	}
	cs(t, append(append([]string{"reencrypt", "--force-offline-reencrypt", "--batch-mode", "--key-file", second, "--key-slot", "1"}, fastPBKDF2...), im.img)...)
	want := shapeOf()
	t.Logf("cryptsetup --key-slot 1 leaves %+v", want)
	writeFile(t, im.img, orig)
	data, hdr := im.open(t)
	o := ReencryptOptions{Keyslot: 1, KDF: reencKDF}
	if err := Reencrypt(context.Background(), data, hdr, []byte("second"), o); err != nil {
		t.Fatal(err)
	}
	if got := shapeOf(); !reflect.DeepEqual(got, want) {
		t.Fatalf("after the rotation: %+v, cryptsetup's: %+v", got, want)
	}
	for pass, opens := range map[string]bool{"second": true, "third": false, string(im.pass): false} {
		if got := testPassphrase(t, im.img, "", []byte(pass), -1); got != opens {
			t.Errorf("passphrase %q opens the rotated image: %v, want %v", pass, got, opens)
		}
	}
	im.pass = []byte("second")
	writeFile(t, im.keyFile, im.pass)
	im.checkContent(t)
}
