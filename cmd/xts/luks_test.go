package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func needCryptsetup(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("cryptsetup"); err != nil {
		t.Skip("cryptsetup is not installed (Debian package cryptsetup-bin): ", err)
	}
}

func cryptsetup(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("cryptsetup", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("cryptsetup %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

var csFast = []string{"--pbkdf", "pbkdf2", "--pbkdf-force-iterations", "1000"}

// csImage has cryptsetup encrypt plain (reencrypt --encrypt; LUKS1 by
// converting the LUKS2 result) and returns the image, the header file
// ("" when embedded) and the passphrase file.
func csImage(t *testing.T, dir string, plain []byte, luks1, detached bool, args ...string) (img, hdr, pass string) {
	t.Helper()
	needCryptsetup(t)
	pass = writeFile(t, dir, "pass", []byte("tool passphrase"))
	img = writeFile(t, dir, "img", plain)
	cmd := []string{"reencrypt", "--encrypt", "--batch-mode", "--type", "luks2", "--key-file", pass}
	if detached {
		hdr = filepath.Join(dir, "hdr")
		cmd = append(cmd, "--header", hdr)
	} else {
		if err := os.Truncate(img, int64(len(plain))+32<<20); err != nil {
			t.Fatal(err)
		}
		cmd = append(cmd, "--reduce-device-size", "32M")
	}
	cryptsetup(t, append(append(append(cmd, csFast...), args...), img)...)
	if luks1 {
		h := img
		if detached {
			h = hdr
		}
		cryptsetup(t, "convert", "--batch-mode", "--type", "luks1", h)
	}
	return img, hdr, pass
}

func withHeader(hdr string, args ...string) []string {
	if hdr != "" {
		return append([]string{"--header", hdr}, args...)
	}
	return args
}

// TestLUKSDumpMatchesCryptsetup: xts luks dump prints what cryptsetup
// luksDump prints, byte for byte (LUKS2 with several keyslots, a token and
// a label; LUKS1; a detached header).
func TestLUKSDumpMatchesCryptsetup(t *testing.T) {
	for _, tc := range []struct {
		name            string
		luks1, detached bool
		reencrypt       bool // a reencryption started (reencrypt --init-only): requirement flag, backup segments, a reencrypt keyslot
	}{{"luks2", false, false, false}, {"luks1", true, false, false}, {"luks2-detached", false, true, false}, {"luks2-reencrypt-in-progress", false, false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			img, hdr, pass := csImage(t, dir, randBytes(t, 64<<10), tc.luks1, tc.detached, "--sector-size", "512")
			target := img
			if hdr != "" {
				target = hdr
			}
			np := writeFile(t, dir, "p2", []byte("second"))
			cryptsetup(t, append(append([]string{"luksAddKey", "--batch-mode", "--key-file", pass, "--key-slot", "3"}, csFast...), target, np)...)
			if !tc.luks1 {
				cryptsetup(t, "config", "--batch-mode", "--label", "my label", "--priority", "prefer", "--key-slot", "3", target)
				tok := writeFile(t, dir, "tok.json", []byte(`{"type":"some-token","keyslots":["3"]}`))
				cryptsetup(t, "token", "import", "--batch-mode", "--json-file", tok, target)
			}
			if tc.reencrypt {
				cryptsetup(t, append(append([]string{"reencrypt", "--init-only", "--batch-mode", "--key-file", pass, "--key-slot", "0"}, csFast...), target)...)
			}
			want := cryptsetup(t, "luksDump", target)
			r := runCmd(t, nil, "luks", "dump", target)
			if r.code != 0 || r.stdout != want {
				t.Fatalf("exit %d, %s\n--- xts:\n%s\n--- cryptsetup:\n%s", r.code, r.stderr, r.stdout, want)
			}
		})
	}
}

// TestLUKSDecryptCryptsetupImages: xts luks decrypt gives back the
// plaintext cryptsetup encrypted, with a passphrase (key file, standard
// input, a line of standard input, a named slot) or the volume key.
func TestLUKSDecryptCryptsetupImages(t *testing.T) {
	cases := []struct {
		name            string
		luks1, detached bool
		args            []string
	}{
		{"luks2-xts512-4k", false, false, []string{"--sector-size", "4096"}},
		{"luks2-argon2id-aes128", false, false, []string{"--pbkdf", "argon2id", "--pbkdf-memory", "32", "--pbkdf-force-iterations", "4", "--key-size", "256"}},
		{"luks2-cbc-essiv-detached", false, true, []string{"--cipher", "aes-cbc-essiv:sha256", "--key-size", "256"}},
		{"luks1-xts256", true, false, []string{"--key-size", "256", "--sector-size", "512"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			plain := randBytes(t, 128<<10)
			img, hdr, pass := csImage(t, dir, plain, tc.luks1, tc.detached, tc.args...)
			passBytes := readFile(t, pass)
			vk := filepath.Join(dir, "vk")
			cryptsetup(t, withHeader(hdr, "luksDump", "--batch-mode", "--dump-volume-key", "--volume-key-file", vk, "--key-file", pass, img)...)
			runs := []struct {
				name  string
				stdin []byte
				args  []string
			}{
				{"key-file", nil, []string{"-d", pass}},
				{"key-file-stdin", passBytes, []string{"--key-file", "-"}},
				{"prompt-line", append(slices.Clone(passBytes), '\n'), nil},
				{"slot", nil, []string{"-d", pass, "-S", "0"}},
				{"volume-key", nil, []string{"--volume-key-file", vk}},
			}
			for i, rr := range runs {
				out := filepath.Join(dir, "out"+strconv.Itoa(i))
				args := append(append([]string{"luks", "decrypt"}, withHeader(hdr, rr.args...)...), img, out)
				code, _, stderr := runBytes(t, rr.stdin, args...)
				if code != 0 {
					t.Fatalf("%s: exit %d: %s", rr.name, code, stderr)
				}
				got := readFile(t, out)
				if !bytes.Equal(got[:len(plain)], plain) {
					t.Fatalf("%s: decrypted data differ from cryptsetup's plaintext", rr.name)
				}
			}
			// To standard output.
			code, stdout, stderr := runBytes(t, nil, append(append([]string{"luks", "decrypt"}, withHeader(hdr, "-d", pass)...), img, "-")...)
			if code != 0 || !bytes.Equal(stdout[:len(plain)], plain) {
				t.Fatalf("to standard output: exit %d: %s", code, stderr)
			}
		})
	}
}

// TestLUKSWrongPassphrase: a wrong passphrase exits 2 with cryptsetup's
// message and leaves nothing behind (decrypt) or the image untouched
// (add-key).
func TestLUKSWrongPassphrase(t *testing.T) {
	dir := t.TempDir()
	img, _, _ := csImage(t, dir, randBytes(t, 64<<10), false, false)
	wrong := writeFile(t, dir, "wrong", []byte("not it"))
	before := readFile(t, img)
	names := dirNames(t, dir)
	for _, args := range [][]string{
		{"luks", "decrypt", "-d", wrong, img, filepath.Join(dir, "out")},
		{"luks", "decrypt", "-d", wrong, "-S", "0", img, filepath.Join(dir, "out")},
		{"luks", "add-key", "-d", wrong, "--pbkdf-force-iterations", "1000", "--pbkdf", "pbkdf2", img, wrong},
	} {
		r := runCmd(t, nil, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "No key available with this passphrase.") {
			t.Fatalf("%v: exit %d, %q; want 2 and cryptsetup's message", args, r.code, r.stderr)
		}
		if got := dirNames(t, dir); !slices.Equal(got, names) {
			t.Fatalf("%v left files: %v, was %v", args, got, names)
		}
		if !bytes.Equal(readFile(t, img), before) {
			t.Fatalf("%v changed the image", args)
		}
	}
}

// TestLUKSEncryptCheckedByCryptsetup: images xts luks encrypt makes open
// in cryptsetup with the passphrase, hold the volume key given, and decrypt
// (cryptsetup reencrypt --decrypt for a detached LUKS2 header, xts luks
// decrypt otherwise) to RAW; add-key adds a slot cryptsetup accepts.
func TestLUKSEncryptCheckedByCryptsetup(t *testing.T) {
	needCryptsetup(t)
	cases := []struct {
		name     string
		args     []string
		detached bool
	}{
		{"luks2-default", []string{"--pbkdf", "argon2id", "--pbkdf-memory", "32", "--pbkdf-force-iterations", "4", "--label", "made by xts"}, false},
		{"luks2-detached-512", []string{"--pbkdf", "pbkdf2", "--pbkdf-force-iterations", "1000", "--sector-size", "512", "-s", "256"}, true},
		{"luks2-cbc-essiv", []string{"--pbkdf", "pbkdf2", "--pbkdf-force-iterations", "1000", "-c", "aes-cbc-essiv:sha256"}, false},
		{"luks1", []string{"--type", "luks1", "--pbkdf-force-iterations", "1000", "--hash", "sha512"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			plain := randBytes(t, 256<<10)
			raw := writeFile(t, dir, "raw", plain)
			pass := writeFile(t, dir, "pass", []byte("xts made this"))
			key := randBytes(t, 64)
			if slices.Contains(tc.args, "-s") || slices.Contains(tc.args, "-c") {
				key = key[:32]
			}
			vk := writeFile(t, dir, "vk", key)
			img := filepath.Join(dir, "img")
			hdr := ""
			args := append([]string{"luks", "encrypt", "-d", pass, "--volume-key-file", vk}, tc.args...)
			if tc.detached {
				hdr = filepath.Join(dir, "hdr")
				args = append(args, "--header", hdr)
			}
			if r := runCmd(t, nil, append(args, raw, img)...); r.code != 0 {
				t.Fatalf("encrypt: exit %d: %s", r.code, r.stderr)
			}
			cryptsetup(t, withHeader(hdr, "open", "--test-passphrase", "--batch-mode", "--key-file", pass, img)...)
			dumped := filepath.Join(dir, "dumped")
			cryptsetup(t, withHeader(hdr, "luksDump", "--batch-mode", "--dump-volume-key", "--volume-key-file", dumped, "--key-file", pass, img)...)
			if !bytes.Equal(readFile(t, dumped), key) {
				t.Fatal("cryptsetup dumps another volume key than the one given")
			}
			np := writeFile(t, dir, "new", []byte("added by xts"))
			if r := runCmd(t, nil, append(append([]string{"luks", "add-key"}, withHeader(hdr, "-d", pass, "-S", "4", "--pbkdf", "pbkdf2", "--pbkdf-force-iterations", "1000")...), img, np)...); r.code != 0 {
				t.Fatalf("add-key: exit %d: %s", r.code, r.stderr)
			}
			cryptsetup(t, withHeader(hdr, "open", "--test-passphrase", "--batch-mode", "--key-file", np, "--key-slot", "4", img)...)
			if tc.detached {
				cryptsetup(t, "reencrypt", "--decrypt", "--force-offline-reencrypt", "--batch-mode", "--key-file", np, "--header", hdr, img)
				if !bytes.Equal(readFile(t, img), plain) {
					t.Fatal("cryptsetup reencrypt --decrypt gives other data than RAW")
				}
				return
			}
			out := filepath.Join(dir, "out")
			if r := runCmd(t, nil, "luks", "decrypt", "--volume-key-file", dumped, img, out); r.code != 0 || !bytes.Equal(readFile(t, out), plain) {
				t.Fatalf("decrypt with cryptsetup's dumped key: exit %d %s, or other data than RAW", r.code, r.stderr)
			}
		})
	}
}

// TestLUKSEncryptRefusals: bad command lines and inputs exit non-zero with
// a message naming the problem, and leave nothing behind.
func TestLUKSEncryptRefusals(t *testing.T) {
	dir := t.TempDir()
	raw := writeFile(t, dir, "raw", make([]byte, 4096+512))
	pass := writeFile(t, dir, "pass", []byte("p"))
	existing := writeFile(t, dir, "existing", []byte("keep me"))
	fast := []string{"--pbkdf", "pbkdf2", "--pbkdf-force-iterations", "1000"}
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"length", []string{raw, filepath.Join(dir, "o")}, 4, "4608 bytes, not a multiple of the sector size 4096"},
		{"exists", []string{"--sector-size", "512", raw, existing}, 5, "already exists"},
		{"cipher", []string{"-c", "blowfish-xts-plain64", raw, filepath.Join(dir, "o")}, 1, "cipher blowfish in \"blowfish-xts-plain64\" (aes, serpent, twofish and camellia are supported)"},
		{"type", []string{"--type", "luks3", raw, filepath.Join(dir, "o")}, 1, "--type"},
		{"kdf", []string{"--pbkdf", "scrypt", raw, filepath.Join(dir, "o")}, 1, "scrypt"},
		{"luks1-argon", []string{"--type", "luks1", "--pbkdf", "argon2id", raw, filepath.Join(dir, "o")}, 1, "LUKS1"},
		{"key-size", []string{"-s", "200", "--sector-size", "512", raw, filepath.Join(dir, "o")}, 1, "200-bit"},
	}
	names := dirNames(t, dir)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{"luks", "encrypt", "-d", pass}, fast...), tc.args...)
			r := runCmd(t, nil, args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("exit %d, %q; want %d and %q", r.code, r.stderr, tc.code, tc.want)
			}
			if got := dirNames(t, dir); !slices.Equal(got, names) {
				t.Fatalf("left files: %v", got)
			}
			if string(readFile(t, existing)) != "keep me" {
				t.Fatal("clobbered an existing file")
			}
		})
	}
}

// TestLUKSPassphraseLines: without --key-file and with standard input not
// a terminal, passphrases are lines of standard input (cryptsetup's
// behaviour): encrypt reads one, add-key the old one and then the new.
func TestLUKSPassphraseLines(t *testing.T) {
	needCryptsetup(t)
	dir := t.TempDir()
	raw := writeFile(t, dir, "raw", randBytes(t, 64<<10))
	img := filepath.Join(dir, "img")
	fast := []string{"--pbkdf", "pbkdf2", "--pbkdf-force-iterations", "1000"}
	if code, _, stderr := runBytes(t, []byte("first pass\n"), append(append([]string{"luks", "encrypt"}, fast...), raw, img)...); code != 0 {
		t.Fatalf("encrypt: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runBytes(t, []byte("first pass\nsecond pass\n"), append(append([]string{"luks", "add-key"}, fast...), img)...); code != 0 {
		t.Fatalf("add-key: exit %d: %s", code, stderr)
	}
	for slot, p := range []string{"first pass", "second pass"} {
		kf := writeFile(t, dir, "k"+strconv.Itoa(slot), []byte(p))
		cryptsetup(t, "open", "--test-passphrase", "--batch-mode", "--key-file", kf, "--key-slot", strconv.Itoa(slot), img)
	}
	// --force replaces an existing output; the image decrypts to RAW.
	out := writeFile(t, dir, "out", []byte("old"))
	if code, _, stderr := runBytes(t, []byte("second pass\n"), "luks", "decrypt", "--force", img, out); code != 0 || !bytes.Equal(readFile(t, out), readFile(t, raw)) {
		t.Fatalf("decrypt --force: exit %d: %s", code, stderr)
	}
}

// TestLUKSHelp: every luks command has --help (exit 0, its usage on
// standard output), and `xts help luks` shows the command list.
func TestLUKSHelp(t *testing.T) {
	for _, args := range [][]string{{"help", "luks"}, {"luks", "--help"}, {"luks", "dump", "--help"}, {"luks", "decrypt", "--help"}, {"luks", "encrypt", "--help"}, {"luks", "add-key", "--help"}, {"luks", "mount", "--help"}} {
		r := runCmd(t, nil, args...)
		if r.code != 0 || !strings.Contains(r.stdout, "Usage: xts luks") {
			t.Errorf("%v: exit %d, stdout %q", args, r.code, r.stdout)
		}
	}
	if r := runCmd(t, nil, "luks", "frobnicate"); r.code != 1 || !strings.Contains(r.stderr, "unknown subcommand") {
		t.Errorf("unknown subcommand: exit %d, %q", r.code, r.stderr)
	}
}

// TestLUKSKeyfileOffsetSize: --keyfile-offset and --keyfile-size select
// the passphrase bytes as cryptsetup does (the image is formatted by
// cryptsetup with the same flags).
func TestLUKSKeyfileOffsetSize(t *testing.T) {
	needCryptsetup(t)
	dir := t.TempDir()
	kf := writeFile(t, dir, "keyfile", randBytes(t, 4096))
	img := writeFile(t, dir, "img", make([]byte, 17<<20))
	cryptsetup(t, append(append([]string{"luksFormat", "--batch-mode", "--key-file", kf, "--keyfile-offset", "100", "--keyfile-size", "64"}, csFast...), img)...)
	ok := runCmd(t, nil, "luks", "decrypt", "-d", kf, "--keyfile-offset", "100", "--keyfile-size", "64", img, filepath.Join(dir, "out"))
	if ok.code != 0 {
		t.Fatalf("exit %d: %s", ok.code, ok.stderr)
	}
	for _, args := range [][]string{{"-d", kf}, {"-d", kf, "--keyfile-offset", "100"}, {"-d", kf, "--keyfile-size", "64"}} {
		r := runCmd(t, nil, append(append([]string{"luks", "decrypt"}, args...), img, filepath.Join(dir, "out2"))...)
		if r.code != 2 {
			t.Fatalf("%v: exit %d (%s), want 2", args, r.code, r.stderr)
		}
	}
}

// TestLUKSEncryptToStdout: an image written to standard output is whole:
// cryptsetup opens it and it decrypts to RAW.
func TestLUKSEncryptToStdout(t *testing.T) {
	needCryptsetup(t)
	dir := t.TempDir()
	plain := randBytes(t, 128<<10)
	raw := writeFile(t, dir, "raw", plain)
	pass := writeFile(t, dir, "pass", []byte("to stdout"))
	code, img, stderr := runBytes(t, nil, "luks", "encrypt", "-d", pass, "--pbkdf", "pbkdf2", "--pbkdf-force-iterations", "1000", raw, "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	p := writeFile(t, dir, "img", img)
	cryptsetup(t, "open", "--test-passphrase", "--batch-mode", "--key-file", pass, p)
	code, out, stderr := runBytes(t, nil, "luks", "decrypt", "-d", pass, p, "-")
	if code != 0 || !bytes.Equal(out, plain) {
		t.Fatalf("decrypt: exit %d %s, or other data than RAW", code, stderr)
	}
}

// TestLUKSEncryptFromStdin: RAW - streams standard input into the data
// segment (LUKS2 and LUKS1); cryptsetup opens the result and it decrypts
// to what was piped in. A stream that is empty or not whole sectors, or a
// passphrase that would have to come from the same standard input, is
// refused with nothing written.
func TestLUKSEncryptFromStdin(t *testing.T) {
	needCryptsetup(t)
	dir := t.TempDir()
	pass := writeFile(t, dir, "pass", []byte("from stdin"))
	fast := []string{"--pbkdf", "pbkdf2", "--pbkdf-force-iterations", "1000"}
	for _, tc := range []struct {
		name string
		args []string
		n    int
	}{
		{"luks2", nil, 3*luksChunk + 5*4096}, // several chunks, the last one short
		{"luks2-one-chunk", nil, luksChunk},  // exactly a chunk, then EOF
		{"luks1", []string{"--type", "luks1"}, 512 * 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain := randBytes(t, tc.n)
			img := filepath.Join(dir, tc.name)
			args := append(append(append([]string{"luks", "encrypt", "-d", pass}, fast...), tc.args...), "-", img)
			if code, _, stderr := runBytes(t, plain, args...); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			cryptsetup(t, "open", "--test-passphrase", "--batch-mode", "--key-file", pass, img)
			code, out, stderr := runBytes(t, nil, "luks", "decrypt", "-d", pass, img, "-")
			if code != 0 || !bytes.Equal(out, plain) {
				t.Fatalf("decrypt: exit %d %s; %d bytes, want the %d piped in", code, stderr, len(out), len(plain))
			}
		})
	}
	for _, tc := range []struct {
		name  string
		args  []string
		stdin []byte
		code  int
		msg   string
	}{
		{"not whole sectors", []string{"-d", pass}, make([]byte, luksChunk+4096+1000), exitWrongDevice, "input standard input holds 8393704 bytes, not a multiple of the sector size 4096"},
		{"empty", []string{"-d", pass}, nil, exitWrongDevice, "input standard input is empty"},
		{"not whole sectors to stdout", []string{"-d", pass}, make([]byte, luksChunk+1000), exitWrongDevice,
			"input standard input holds 8389608 bytes, not a multiple of the sector size 4096 (--sector-size); 25165824 bytes of output already went to standard output"},
		{"passphrase on stdin too", []string{"-d", "-"}, make([]byte, 4096), exitUsage, "RAW - reads standard input"},
		{"passphrase prompt", nil, make([]byte, 4096), exitUsage, "RAW - reads standard input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sub := t.TempDir()
			out := filepath.Join(sub, "img")
			if strings.HasSuffix(tc.name, "to stdout") {
				out = "-"
			}
			args := append(append(append([]string{"luks", "encrypt"}, tc.args...), fast...), "-", out)
			code, _, stderr := runBytes(t, tc.stdin, args...)
			if code != tc.code || !strings.Contains(stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, tc.code, tc.msg)
			}
			if names := dirNames(t, sub); len(names) != 0 {
				t.Errorf("left %v behind", names)
			}
		})
	}
}
