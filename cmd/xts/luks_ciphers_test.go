package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestLUKSCiphers: xts luks encrypt makes images with Serpent, Twofish
// and Camellia (LUKS1 with whirlpool and ripemd160 keyslots too), luks
// dump shows them, luks decrypt gives the data back, and luks reencrypt
// changes the cipher to and from them. The luks package's tests check
// the images' bytes against references; this checks the flags' path.
func TestLUKSCiphers(t *testing.T) {
	fast := []string{"--pbkdf", "pbkdf2", "--pbkdf-force-iterations", "1000"}
	dir := t.TempDir()
	raw := randBytes(t, 64<<10)
	rawPath := writeFile(t, dir, "raw", raw)
	pass := writeFile(t, dir, "pass", []byte("ciphers"))
	run := func(args ...string) result {
		t.Helper()
		r := runCmd(t, nil, args...)
		if r.code != 0 {
			t.Fatalf("xts %s: exit %d: %s", strings.Join(args, " "), r.code, r.stderr)
		}
		return r
	}
	check := func(img string, want ...string) {
		t.Helper()
		out := filepath.Join(dir, "out")
		run("luks", "decrypt", "--force", "-d", pass, img, out)
		if got := readFile(t, out); !bytes.Equal(got, raw) {
			t.Fatalf("%s: decrypted data differs from RAW", img)
		}
		dump := run("luks", "dump", img).stdout
		for _, w := range want {
			if !strings.Contains(dump, w) {
				t.Fatalf("%s: luks dump lacks %q:\n%s", img, w, dump)
			}
		}
	}
	for i, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--type", "luks1", "-c", "serpent-xts-plain64", "--hash", "whirlpool"}, []string{"serpent", "xts-plain64", "whirlpool", "MK bits:       \t512"}},
		{[]string{"--type", "luks1", "-c", "twofish-cbc-essiv:sha256", "-s", "256", "--hash", "ripemd160"}, []string{"twofish", "cbc-essiv:sha256", "ripemd160"}},
		{[]string{"-c", "camellia-xts-plain64", "-s", "256"}, []string{"camellia-xts-plain64", "256 bits"}},
	} {
		img := filepath.Join(dir, "img"+string(rune('a'+i)))
		run(append(append(append([]string{"luks", "encrypt", "-d", pass}, fast...), tc.args...), rawPath, img)...)
		check(img, tc.want...)
	}

	// Reencryption: AES to Twofish, Twofish to Camellia, Camellia back
	// to AES, each checked by a decryption.
	img := filepath.Join(dir, "rot")
	run(append(append([]string{"luks", "encrypt", "-d", pass}, fast...), rawPath, img)...)
	for _, c := range []string{"twofish-xts-plain64", "camellia-xts-plain64", "aes-xts-plain64"} {
		run(append(append([]string{"luks", "reencrypt", "-d", pass, "--batch-mode", "-c", c}, fast...), img)...)
		check(img, "cipher: "+c)
	}
}
