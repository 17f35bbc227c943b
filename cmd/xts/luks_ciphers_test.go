package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestLUKSCiphers: xts luks encrypt makes images with Serpent, Twofish
// and Camellia (LUKS1 with whirlpool and ripemd160 keyslots too), luks
// dump shows them, luks decrypt gives the data back, add-key and convert
// keep the keyslots' hash, and luks reencrypt encrypts into them,
// decrypts from them and changes the cipher to and from them. The luks package's tests check
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

	// The LUKS1 Serpent image with whirlpool keyslots: a keyslot added
	// (with the header's hash), the header converted to LUKS2, the new
	// passphrase opening it.
	pass2 := writeFile(t, dir, "pass2", []byte("second"))
	imga := filepath.Join(dir, "imga")
	run(append(append([]string{"luks", "add-key", "-d", pass}, fast...), imga, pass2)...)
	run("luks", "convert", "-q", "--type", "luks2", imga)
	out := filepath.Join(dir, "out2")
	run("luks", "decrypt", "-d", pass2, imga, out)
	if !bytes.Equal(readFile(t, out), raw) {
		t.Fatal("converted whirlpool image: the added passphrase decrypts other data")
	}
	if dump := run("luks", "dump", imga).stdout; strings.Count(dump, "AF hash:    whirlpool") != 2 || !strings.Contains(dump, "cipher: serpent-xts-plain64") {
		t.Fatalf("converted whirlpool image:\n%s", dump)
	}

	// Encryption of plain data with a detached header into Twofish, and
	// its decryption back to plain data.
	plainImg := writeFile(t, dir, "plain", raw)
	hdr := filepath.Join(dir, "hdr")
	run(append(append([]string{"luks", "reencrypt", "--encrypt", "--header", hdr, "-d", pass, "-c", "twofish-xts-plain64", "-s", "256"}, fast...), plainImg)...)
	if bytes.Equal(readFile(t, plainImg), raw) {
		t.Fatal("reencrypt --encrypt left the data plain")
	}
	out = filepath.Join(dir, "out3")
	run("luks", "decrypt", "--header", hdr, "-d", pass, plainImg, out)
	if !bytes.Equal(readFile(t, out), raw) {
		t.Fatal("reencrypt --encrypt -c twofish-xts-plain64: decrypts to other data")
	}
	run("luks", "reencrypt", "--decrypt", "--header", hdr, "-d", pass, plainImg)
	if !bytes.Equal(readFile(t, plainImg), raw) {
		t.Fatal("reencrypt --decrypt of the Twofish image: other data")
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
