package luks

import (
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// These helpers drive the real cryptsetup on image files (no
// device-mapper needed for the commands used). Tests that need it skip,
// saying so, where it is not installed.

func needCryptsetup(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("cryptsetup"); err != nil {
		t.Skip("cryptsetup is not installed (Debian package cryptsetup-bin): ", err)
	}
}

// cs runs cryptsetup with args and returns its combined output; it fails
// the test if cryptsetup fails.
func cs(t testing.TB, args ...string) string {
	t.Helper()
	out, err := csRun(args...)
	if err != nil {
		t.Fatalf("cryptsetup %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func csRun(args ...string) (string, error) {
	out, err := exec.Command("cryptsetup", args...).CombinedOutput()
	return string(out), err
}

// Fast KDF settings for tests.
var (
	fastPBKDF2   = []string{"--pbkdf", "pbkdf2", "--pbkdf-force-iterations", "1000"}
	fastArgon2id = []string{"--pbkdf", "argon2id", "--pbkdf-memory", "32", "--pbkdf-force-iterations", "4", "--pbkdf-parallel", "1"}
	fastArgon2i  = []string{"--pbkdf", "argon2i", "--pbkdf-memory", "64", "--pbkdf-force-iterations", "4", "--pbkdf-parallel", "2"}
)

// csImage is an image cryptsetup made, holding known plaintext.
type csImage struct {
	img, hdr  string // hdr is "" unless the header is detached
	keyFile   string
	pass      []byte
	plain     []byte // the first len(plain) bytes of the data segment
	headerDev string // img or hdr
}

func randBytes(t testing.TB, n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// csEncrypt has cryptsetup encrypt plain in place: `reencrypt --encrypt`
// with a detached header, or with --reduce-device-size for an embedded
// one; luks1 images are made as LUKS2 and converted (LUKS1 reencryption
// needs device-mapper).
func csEncrypt(t testing.TB, plain []byte, detached, luks1 bool, args ...string) *csImage {
	t.Helper()
	needCryptsetup(t)
	dir := t.TempDir()
	im := &csImage{img: filepath.Join(dir, "img"), keyFile: filepath.Join(dir, "pass"), pass: []byte("correct horse"), plain: plain}
	writeFile(t, im.keyFile, im.pass)
	writeFile(t, im.img, plain)
	cmd := []string{"reencrypt", "--encrypt", "--batch-mode", "--type", "luks2", "--key-file", im.keyFile}
	reduce := "32M"
	if detached {
		im.hdr = filepath.Join(dir, "hdr")
		cmd = append(cmd, "--header", im.hdr)
	} else {
		if err := os.Truncate(im.img, int64(len(plain))+32<<20); err != nil {
			t.Fatal(err)
		}
		cmd = append(cmd, "--reduce-device-size", reduce)
	}
	cmd = append(cmd, args...)
	cs(t, append(cmd, im.img)...)
	im.headerDev = im.img
	if detached {
		im.headerDev = im.hdr
	}
	if luks1 {
		cs(t, "convert", "--batch-mode", "--type", "luks1", im.headerDev)
	}
	return im
}

// hdrArgs returns the --header flag for a detached header.
func (im *csImage) hdrArgs() []string {
	if im.hdr != "" {
		return []string{"--header", im.hdr}
	}
	return nil
}

// volumeKey returns the volume key as cryptsetup dumps it.
func (im *csImage) volumeKey(t testing.TB) []byte {
	t.Helper()
	vk := filepath.Join(filepath.Dir(im.img), "vk")
	args := append([]string{"luksDump", "--batch-mode", "--dump-volume-key", "--volume-key-file", vk, "--key-file", im.keyFile}, im.hdrArgs()...)
	cs(t, append(args, im.img)...)
	b, err := os.ReadFile(vk)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(vk)
	return b
}

// testPassphrase reports whether cryptsetup accepts pass for the image.
func testPassphrase(t testing.TB, img, hdr string, pass []byte, slot int) bool {
	t.Helper()
	kf := filepath.Join(t.TempDir(), "try")
	writeFile(t, kf, pass)
	args := []string{"open", "--test-passphrase", "--batch-mode", "--key-file", kf}
	if hdr != "" {
		args = append(args, "--header", hdr)
	}
	if slot >= 0 {
		args = append(args, "--key-slot", strconv.Itoa(slot))
	}
	out, err := csRun(append(args, img)...)
	if err != nil && !strings.Contains(out, "No key available") {
		t.Fatalf("cryptsetup %v: %v\n%s", args, err, out)
	}
	return err == nil
}
