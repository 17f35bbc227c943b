package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fastxts/xts/cmd/xts/internal/exit"
	"github.com/fastxts/xts/luks"
)

var reencFastKDF = luks.KDFOptions{Type: "pbkdf2", Hash: "sha256", Iterations: 1000}

// reencFixture makes, in dir, the files one refusal case runs on:
// "img" (kind: plain, luks1, luks2, luks2-2slots, luks2-detached with
// "hdr", luks2-init: a reencryption recorded by cryptsetup --init-only),
// "pass" (its passphrase), "pass2" (the second keyslot's).
func reencFixture(t *testing.T, dir, kind string) {
	t.Helper()
	writeFile(t, dir, "pass", []byte("reencrypt test"))
	writeFile(t, dir, "pass2", []byte("second passphrase"))
	data := randBytes(t, 1<<20)
	if kind == "plain" {
		writeFile(t, dir, "img", data)
		return
	}
	co := &luks.CreateOptions{KDF: reencFastKDF, Version: 2, Detached: kind == "luks2-detached"}
	if kind == "luks1" {
		co.Version = 1
	}
	hdrPath := filepath.Join(dir, "img")
	if co.Detached {
		hdrPath = filepath.Join(dir, "hdr")
	}
	f, err := os.Create(hdrPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, key, err := luks.Create(f, []byte("reencrypt test"), co)
	if err != nil {
		t.Fatal(err)
	}
	defer clear(key)
	if co.Detached {
		writeFile(t, dir, "img", data)
	} else if _, err := f.WriteAt(data, int64(h.Segments[0].Offset)); err != nil {
		t.Fatal(err)
	}
	switch kind {
	case "luks2-2slots":
		if _, err := h.AddKey(f, key, []byte("second passphrase"), luks.AnyKeyslot, reencFastKDF); err != nil {
			t.Fatal(err)
		}
	case "luks2-init":
		f.Close()
		cryptsetup(t, append([]string{"reencrypt", "--init-only", "--batch-mode", "--force-offline-reencrypt",
			"--key-file", filepath.Join(dir, "pass")}, append(csFast, hdrPath)...)...)
	}
}

// snapshot is every file in dir and its content.
func snapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	for _, n := range dirNames(t, dir) {
		m[n] = readFile(t, filepath.Join(dir, n))
	}
	return m
}

// TestLUKSReencryptRefusals: what cryptsetup reencrypt refuses (and what
// this tool does not do) exits with cryptsetup's status and words, and
// leaves every file as it was, none added.
func TestLUKSReencryptRefusals(t *testing.T) {
	cases := []struct {
		name, kind string
		stdin      string
		args       []string // {dir} is the fixture directory
		code       int
		msg        string
	}{
		{"no-image", "luks2", "", []string{}, exitUsage, "want IMAGE, got 0"},
		{"two-images", "luks2", "", []string{"{dir}/img", "{dir}/img"}, exitUsage, "want IMAGE, got 2"},
		{"unknown-flag", "luks2", "", []string{"--keep-key", "{dir}/img"}, exitUsage, "unknown flag --keep-key"},
		{"type-luks1", "luks2", "", []string{"--type", "luks1", "-d", "{dir}/pass", "{dir}/img"}, exitUsage, "LUKS1 reencryption is not supported: convert the image to LUKS2 first (xts luks convert --type luks2"},
		{"luks1-image", "luks1", "", []string{"-d", "{dir}/pass", "{dir}/img"}, exitUsage, "is LUKS1: LUKS1 reencryption is not supported"},
		{"type-other", "luks2", "", []string{"--type", "plain", "{dir}/img"}, exitUsage, `--type "plain": want luks2`},
		{"encrypt-and-decrypt", "plain", "", []string{"--encrypt", "--decrypt", "{dir}/img"}, exitUsage, "--encrypt and --decrypt exclude each other"},
		{"init-and-resume", "luks2", "", []string{"--init-only", "--resume-only", "{dir}/img"}, exitUsage, "--init-only and --resume-only exclude each other"},
		{"reduce-not-512", "plain", "", []string{"--encrypt", "--reduce-device-size", "1000", "{dir}/img"}, exitUsage, "Reduce size must be multiple of 512 bytes sector."},
		{"reduce-too-big", "plain", "", []string{"--encrypt", "--reduce-device-size", "2G", "{dir}/img"}, exitUsage, "Maximum device reduce size is 1 GiB."},
		{"reduce-bad-unit", "plain", "", []string{"--encrypt", "--reduce-device-size", "32Mb", "{dir}/img"}, exitUsage, "Invalid size specification in parameter --reduce-device-size."},
		{"reduce-rotation", "luks2", "", []string{"--reduce-device-size", "32M", "{dir}/img"}, exitUsage, "--reduce-device-size goes with --encrypt only"},
		{"reduce-and-header", "plain", "", []string{"--encrypt", "--reduce-device-size", "32M", "--header", "{dir}/newhdr", "{dir}/img"}, exitUsage, "--reduce-device-size and --header exclude each other"},
		{"reduce-checksum", "plain", "", []string{"--encrypt", "--reduce-device-size", "32M", "--resilience", "checksum", "{dir}/img"}, exitUsage, "its resilience is datashift"},
		{"encrypt-nowhere", "plain", "", []string{"--encrypt", "-d", "{dir}/pass", "{dir}/img"}, exitUsage, "Encryption without detached header (--header) is not possible without data device size reduction (--reduce-device-size)."},
		{"hotzone-unaligned", "luks2", "", []string{"--hotzone-size", "1000", "{dir}/img"}, exitUsage, "Hotzone size must be multiple of calculated zone alignment (4096 bytes)."},
		{"hotzone-zero", "luks2", "", []string{"--hotzone-size", "0", "{dir}/img"}, exitUsage, "Invalid max reencryption hotzone size specification."},
		{"hotzone-bad", "luks2", "", []string{"--hotzone-size", "1.5M", "{dir}/img"}, exitUsage, "Invalid size specification in parameter --hotzone-size."},
		{"resilience-bogus", "luks2", "", []string{"--resilience", "bogus", "{dir}/img"}, exitUsage, "Unsupported resilience mode bogus"},
		{"resilience-datashift-rotation", "luks2", "", []string{"--resilience", "datashift", "{dir}/img"}, exitUsage, "--resilience datashift goes with --encrypt --reduce-device-size only"},
		{"hash-not-checksum", "luks2", "", []string{"--resilience", "journal", "--resilience-hash", "sha1", "{dir}/img"}, exitUsage, "--resilience-hash goes with --resilience checksum only"},
		{"key-size-odd", "luks2", "", []string{"-s", "100", "{dir}/img"}, exitUsage, "Key size must be a multiple of 8 bits"},
		{"sector-size", "luks2", "", []string{"--sector-size", "1000", "{dir}/img"}, exitUsage, "Unsupported encryption sector size."},
		{"cipher-unknown", "luks2", "", []string{"-c", "blowfish-xts-plain64", "{dir}/img"}, exitUsage, "--cipher: cipher blowfish in \"blowfish-xts-plain64\" (aes, serpent, twofish and camellia are supported)"},
		{"pbkdf-bogus", "luks2", "", []string{"--pbkdf", "scrypt", "{dir}/img"}, exitUsage, `--pbkdf "scrypt": want argon2id, argon2i or pbkdf2`},
		{"decrypt-cipher", "luks2-detached", "", []string{"--decrypt", "--header", "{dir}/hdr", "-c", "aes-xts-plain64", "{dir}/img"}, exitUsage, "--decrypt leaves the data plain"},
		{"uuid-not-encrypt", "luks2", "", []string{"--uuid", "12345678-1234-1234-1234-123456789abc", "{dir}/img"}, exitUsage, "--uuid and --label name the header --encrypt makes"},
		{"slot-range", "luks2", "", []string{"-S", "32", "{dir}/img"}, exitUsage, "--key-slot 32: want 0 to 31"},
		{"encrypt-slot", "plain", "", []string{"--encrypt", "--header", "{dir}/newhdr", "-S", "1", "{dir}/img"}, exitUsage, "--encrypt puts the passphrase in keyslot 0"},
		{"decrypt-no-header", "luks2", "", []string{"--decrypt", "-d", "{dir}/pass", "{dir}/img"}, exitUsage, "LUKS2 decryption requires --header option."},
		{"decrypt-header-export", "luks2", "", []string{"--decrypt", "--header", "{dir}/newhdr", "-d", "{dir}/pass", "{dir}/img"}, exitWrongDevice, "header export) is not supported"},
		{"plain-rotation", "plain", "", []string{"-d", "{dir}/pass", "{dir}/img"}, exitUsage, "Device {dir}/img is not a valid LUKS device."},
		{"missing-image", "luks2", "", []string{"-d", "{dir}/pass", "{dir}/nothere"}, exitWrongDevice, "no such file"},
		{"encrypt-luks", "luks2", "", []string{"--encrypt", "--reduce-device-size", "32M", "-d", "{dir}/pass", "{dir}/img"}, exitUsage, "Device {dir}/img is already LUKS device. Aborting operation."},
		{"encrypt-luks-header", "luks2-detached", "", []string{"--encrypt", "--header", "{dir}/hdr", "-d", "{dir}/pass", "{dir}/img"}, exitUsage, "Device {dir}/hdr is already LUKS device. Aborting operation."},
		{"keyfile-two-slots", "luks2-2slots", "", []string{"-d", "{dir}/pass", "{dir}/img"}, exitUsage, "Key file can be used only with --key-slot or with exactly one key slot active."},
		{"prompt-two-slots", "luks2-2slots", "reencrypt test\n", []string{"{dir}/img"}, exitUsage, "has 2 keyslots: cryptsetup would ask for every passphrase; this tool takes one, so give --key-slot N"},
		{"slot-inactive", "luks2", "", []string{"-d", "{dir}/pass", "-S", "5", "{dir}/img"}, exitUsage, "Keyslot 5 is not active."},
		{"resume-nothing", "luks2", "", []string{"--resume-only", "-d", "{dir}/pass", "{dir}/img"}, exitUsage, "Device reencryption not in progress."},
		{"empty-passphrase", "luks2", "", []string{"{dir}/img"}, exitUsage, "no passphrase"},
		{"wrong-passphrase", "luks2", "not it\n", []string{"{dir}/img"}, exitPermission, "No key available with this passphrase."},
		{"wrong-passphrase-slot", "luks2-2slots", "", []string{"-d", "{dir}/pass", "-S", "1", "{dir}/img"}, exitPermission, "No key available with this passphrase."},
		{"wrong-passphrase-decrypt", "luks2-detached", "", []string{"--decrypt", "--header", "{dir}/hdr", "-d", "{dir}/pass2", "{dir}/img"}, exitPermission, "No key available with this passphrase."},
		{"init-twice", "luks2-init", "", []string{"--init-only", "-d", "{dir}/pass", "{dir}/img"}, exitUsage, "LUKS2 reencryption already initialized. Aborting operation."},
		{"in-progress-encrypt", "luks2-init", "", []string{"--encrypt", "--header", "{dir}/img", "-d", "{dir}/pass", "{dir}/img"}, exitUsage, "Device is not in LUKS2 encryption. Conflicting option --encrypt."},
		{"in-progress-decrypt", "luks2-init", "", []string{"--decrypt", "--header", "{dir}/img", "-d", "{dir}/pass", "{dir}/img"}, exitUsage, "Device is not in LUKS2 decryption. Conflicting option --decrypt."},
		{"in-progress-resilience", "luks2-init", "", []string{"--resilience", "journal", "-d", "{dir}/pass", "{dir}/img"}, exitUsage, "uses checksum, and resuming with another resilience is not supported"},
		{"in-progress-cipher", "luks2-init", "", []string{"-c", "aes-cbc-essiv:sha256", "-S", "0", "-d", "{dir}/pass", "{dir}/img"}, exitUsage, "resumes as it was set up: --cipher, --key-slot do(es) not apply"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.kind == "luks2-init" {
				needCryptsetup(t)
			}
			dir := t.TempDir()
			reencFixture(t, dir, tc.kind)
			before := snapshot(t, dir)
			args := []string{"luks", "reencrypt"}
			for _, a := range tc.args {
				args = append(args, strings.ReplaceAll(a, "{dir}", dir))
			}
			r := runCmd(t, strings.NewReader(tc.stdin), args...)
			msg := strings.ReplaceAll(tc.msg, "{dir}", dir)
			if r.code != tc.code || !strings.Contains(r.stderr, msg) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", r.code, r.stderr, tc.code, msg)
			}
			if !strings.HasPrefix(r.stderr, "xts luks reencrypt: ") || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("stderr %q: want one line naming the command", r.stderr)
			}
			after := snapshot(t, dir)
			if len(after) != len(before) {
				t.Fatalf("files %v, were %v", dirNames(t, dir), len(before))
			}
			for n, b := range before {
				if !bytes.Equal(after[n], b) {
					t.Fatalf("%s changed", n)
				}
			}
		})
	}
}

// TestLUKSReencryptLUKS1IsUnsupported: the LUKS1 refusal is
// errors.Is luks.ErrUnsupported, exit status 1.
func TestLUKSReencryptLUKS1IsUnsupported(t *testing.T) {
	err := errLUKS1Reencrypt("Device img is LUKS1")
	if !errors.Is(err, luks.ErrUnsupported) || exit.Code(err) != exitUsage {
		t.Fatalf("%v: errors.Is ErrUnsupported %v, exit %d", err, errors.Is(err, luks.ErrUnsupported), exit.Code(err))
	}
}

// TestParseCryptsetupSize: sizes as cryptsetup 2.6.1 reads
// --reduce-device-size and --hotzone-size (checked against it with
// --test-args): digits, then S, K, M, G, T in any case, optionally
// followed by iB (1024) or B (1000).
func TestParseCryptsetupSize(t *testing.T) {
	ok := []struct {
		in   string
		want uint64
	}{
		{"0", 0}, {"4096", 4096}, {"32M", 32 << 20}, {"32m", 32 << 20}, {"32MiB", 32 << 20}, {"32miB", 32 << 20},
		{"32MB", 32e6}, {"2mB", 2e6}, {"64S", 64 * 512}, {"64s", 64 * 512}, {"1SiB", 512}, {"1k", 1024}, {"1K", 1024},
		{"1KB", 1000}, {"1kB", 1000}, {"1G", 1 << 30}, {"1GB", 1e9}, {"1T", 1 << 40}, {"1TB", 1e12},
		{"18446744073709551615", 1<<64 - 1},
	}
	for _, c := range ok {
		got, err := parseCryptsetupSize("hotzone-size", c.in)
		if err != nil || got != c.want {
			t.Errorf("%q: %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "M", "1kb", "1.5M", "0x1000", "-5", "abc", "32Mb", " 32M", "32M ", "1Kib", "1KIB", "1P", "1E",
		"1B", "1iB", "4096B", "1SB", "18446744073709551616", "17179869184G"} {
		if got, err := parseCryptsetupSize("hotzone-size", in); err == nil {
			t.Errorf("%q: %d, want an error", in, got)
		} else if err.Error() != "Invalid size specification in parameter --hotzone-size." || exit.Code(err) != exitUsage {
			t.Errorf("%q: %v (exit %d)", in, err, exit.Code(err))
		}
	}
}

// TestLUKSReencryptHelp: --help prints the usage and the flags, exit 0.
func TestLUKSReencryptHelp(t *testing.T) {
	r := runCmd(t, nil, "luks", "reencrypt", "--help")
	for _, want := range []string{"Usage: xts luks reencrypt [flags] IMAGE", "--reduce-device-size SIZE", "--resilience", "-q, --batch-mode", "--force-offline-reencrypt", "-N, --encrypt"} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Fatalf("exit %d, stdout lacks %q:\n%s", r.code, want, r.stdout)
		}
	}
}

// TestLUKSReencryptRotateInProcess: a rotation with --key-slot keeps only
// that keyslot's passphrase (as cryptsetup does), under a new volume
// key, with the data unchanged; --init-only then a plain run (which
// resumes) does the same.
func TestLUKSReencryptRotateInProcess(t *testing.T) {
	for _, tc := range []struct {
		name string
		runs [][]string
	}{
		{"journal-slot1", [][]string{{"-d", "{dir}/pass2", "-S", "1", "--resilience", "journal", "-v"}}},
		{"init-then-resume", [][]string{{"-d", "{dir}/pass2", "-S", "1", "--init-only"}, {"-d", "{dir}/pass2", "--batch-mode"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			reencFixture(t, dir, "luks2-2slots")
			img := filepath.Join(dir, "img")
			before := decryptAll(t, dir, "pass")
			for _, args := range tc.runs {
				a := []string{"luks", "reencrypt", "--pbkdf", "pbkdf2", "--pbkdf-force-iterations", "1000"}
				for _, x := range args {
					a = append(a, strings.ReplaceAll(x, "{dir}", dir))
				}
				r := runCmd(t, nil, append(a, img)...)
				if r.code != 0 {
					t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
				}
				if slices.Contains(args, "-v") && !strings.Contains(r.stderr, "xts luks reencrypt: finished reencrypting") {
					t.Errorf("-v: stderr %q", r.stderr)
				}
			}
			if got := decryptAll(t, dir, "pass2"); !bytes.Equal(got, before) {
				t.Fatal("the data changed")
			}
			r := runCmd(t, nil, "luks", "decrypt", "-d", filepath.Join(dir, "pass"), img, filepath.Join(dir, "out-old"))
			if r.code != exitPermission {
				t.Fatalf("the other keyslot's passphrase still opens the image: exit %d %s", r.code, r.stderr)
			}
		})
	}
}

// decryptAll is the decrypted data segment of dir/img (xts luks decrypt
// with the passphrase in dir/passFile).
func decryptAll(t *testing.T, dir, passFile string) []byte {
	t.Helper()
	out := filepath.Join(dir, "out-"+passFile)
	os.Remove(out)
	r := runCmd(t, nil, "luks", "decrypt", "-d", filepath.Join(dir, passFile), filepath.Join(dir, "img"), out)
	if r.code != 0 {
		t.Fatalf("luks decrypt: exit %d: %s", r.code, r.stderr)
	}
	defer os.Remove(out)
	return readFile(t, out)
}
