package main

import (
	"bytes"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// TestKeyFileFlags (issue 9, item 13): cryptsetup's plain-mode key flags
// take the key out of a larger file, and the short flags mean the same as
// the long ones. Each case's output is compared with the reference under
// the key the test cuts out of the file itself.
func TestKeyFileFlags(t *testing.T) {
	dir := t.TempDir()
	kf := randBytes(t, 4096) // the common key file: 4 KiB of random bytes
	keyPath := writeFile(t, dir, "key4096", kf)
	plain := randBytes(t, 512*16)
	in := writeFile(t, dir, "plain", plain)
	iv := func(k uint64) uint64 { return k }
	cases := []struct {
		name   string
		args   []string
		key    []byte
		skip   uint64 // --skip
		offset int    // --offset, 512-byte sectors of the input left out
		size   int    // --size, 512-byte sectors processed (0: all)
	}{
		{"key-size 512", []string{"--key-file", keyPath, "--key-size", "512"}, kf[:64], 0, 0, 0},
		{"-s 512", []string{"-d", keyPath, "-s", "512"}, kf[:64], 0, 0, 0},
		{"-s 256 keyfile-offset", []string{"-d", keyPath, "-s", "256", "--keyfile-offset", "100"}, kf[100:132], 0, 0, 0},
		{"-s 384", []string{"-d", keyPath, "--key-size=384", "--keyfile-offset=7"}, kf[7:55], 0, 0, 0},
		{"keyfile-size without key-size", []string{"-d", keyPath, "--keyfile-size", "64"}, kf[:64], 0, 0, 0},
		{"-l with offset", []string{"-d", keyPath, "-l", "32", "--keyfile-offset", "4000"}, kf[4000:4032], 0, 0, 0},
		{"keyfile-size above key-size", []string{"-d", keyPath, "-s", "512", "--keyfile-size", "4096"}, kf[:64], 0, 0, 0},
		{"long flags", []string{"--key-file", keyPath, "--key-size", "512", "--cipher", "aes-xts-plain64", "--offset", "2", "--skip", "8", "--size", "4"}, kf[:64], 8, 2, 4},
		{"short flags", []string{"-d", keyPath, "-s", "512", "-c", "aes-xts-plain64", "-o", "2", "-p", "8", "-b", "4"}, kf[:64], 8, 2, 4},
		{"size alone", []string{"-d", keyPath, "-s", "512", "--size", "3"}, kf[:64], 0, 0, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := plain[512*c.offset:]
			if c.size > 0 {
				data = data[:512*c.size]
			}
			want := dmReference(t, c.key, data, 512, func(k uint64) uint64 { return c.skip + iv(k) }, true)
			out := filepath.Join(t.TempDir(), "enc")
			if r := runCmd(t, nil, append(append([]string{"encrypt"}, c.args...), in, out)...); r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			compareSectors(t, readFile(t, out), want, 512)
			// And from standard input, where --size stops reading.
			code, got, stderr := runBytes(t, plain, append(append([]string{"encrypt"}, c.args...), "-", "-")...)
			if code != 0 {
				t.Fatalf("- -: exit %d: %s", code, stderr)
			}
			compareSectors(t, got, want, 512)
		})
	}
}

// TestKeyFileFlagErrors: every wrong combination is exit 1 with one line
// that names the flag as --name.
func TestKeyFileFlagErrors(t *testing.T) {
	dir := t.TempDir()
	big := writeFile(t, dir, "key4096", randBytes(t, 4096))
	short := writeFile(t, dir, "key40", randBytes(t, 40))
	in := writeFile(t, dir, "plain", randBytes(t, 8192))
	out := filepath.Join(dir, "out")
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"-d", big}, exitUsage, "bad key: key file " + big + " holds more than 64 bytes; want exactly 32, 48 or 64 raw bytes, or give --key-size"},
		{[]string{"-d", big, "-s", "128"}, exitUsage, "--key-size 128: want 256, 384 or 512 bits"},
		{[]string{"-d", short, "-s", "512"}, exitUsage, "bad key: key file " + short + " holds 40 bytes; --key-size 512 needs 64"},
		{[]string{"-d", short, "-s", "256", "--keyfile-offset", "20"}, exitUsage, "holds 20 bytes after --keyfile-offset; --key-size 256 needs 32"},
		{[]string{"-d", short, "--keyfile-offset", "50"}, exitUsage, "key file " + short + " holds only 40 bytes; --keyfile-offset 50 skips past its end"},
		{[]string{"-d", short, "--keyfile-offset", "40"}, exitUsage, "key file " + short + " holds 0 bytes after --keyfile-offset; want exactly 32, 48 or 64"},
		{[]string{"-d", big, "-s", "512", "--keyfile-size", "32"}, exitUsage, "--keyfile-size 32 is less than --key-size 512 needs (64 bytes)"},
		{[]string{"-d", big, "--keyfile-size", "40"}, exitUsage, "holds 40 bytes; want exactly 32, 48 or 64"},
		{[]string{"-d", big, "-s", "512", "--sector-size", "4096", "--size", "4"}, exitUsage, "--size 4: with --sector-size 4096 it must be a multiple of 8"},
		{[]string{"-d", big, "-s", "512", "--size", "17"}, exitWrongDevice, "less than --size 17"},
		{[]string{"-d", big, "-s", "x"}, exitUsage, `--key-size (-s): invalid value "x"`},
		{[]string{"-d", big, "--skip", "-1"}, exitUsage, `--skip: invalid value "-1"`},
		{[]string{"-d", big, "--bogus"}, exitUsage, "unknown flag --bogus"},
		{[]string{"-d", big, "-q"}, exitUsage, "unknown flag -q"},
	}
	dashOne := regexp.MustCompile(`(^|[\s(])-[a-z][a-z-]+`) // -name with one dash
	for _, c := range cases {
		r := runCmd(t, nil, append(append([]string{"encrypt"}, c.args...), in, out)...)
		if r.code != c.code || !strings.Contains(r.stderr, c.msg) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, r.code, r.stderr, c.code, c.msg)
		}
		if m := dashOne.FindString(r.stderr); m != "" {
			t.Errorf("%v: %q names a flag with one dash (%q)", c.args, r.stderr, m)
		}
	}
	if r := runCmd(t, nil, "encrypt", in, out, "-d"); r.code != exitUsage || !strings.Contains(r.stderr, "missing value for --key-file (-d)") {
		t.Errorf("-d without a value: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestMessagesHaveOneXtsPrefix: errors of the xts package ("xts: data key
// and tweak key are equal") lose their own prefix in the tool's line.
func TestMessagesHaveOneXtsPrefix(t *testing.T) {
	dir := t.TempDir()
	k := randBytes(t, 32)
	eq := writeFile(t, dir, "keyeq", append(append([]byte{}, k...), k...))
	in := writeFile(t, dir, "plain", randBytes(t, 512))
	r := runCmd(t, nil, "encrypt", "-d", eq, in, filepath.Join(dir, "out"))
	if r.code != exitUsage || !strings.HasPrefix(r.stderr, "xts encrypt: bad key: ") || strings.Count(r.stderr, "xts") != 1 {
		t.Errorf("exit %d, stderr %q; want 1 and one xts prefix", r.code, r.stderr)
	}
}

// TestHelpAndVersion (items 14, 15): `xts help CMD` is `xts CMD --help`,
// every help lists cryptsetup's exit codes, --version names the module
// version from the build info.
func TestHelpAndVersion(t *testing.T) {
	for _, cmd := range []string{"encrypt", "decrypt", "bench", "info"} {
		h := runCmd(t, nil, "help", cmd)
		f := runCmd(t, nil, cmd, "--help")
		if h.code != 0 || h.stdout != f.stdout || !strings.HasPrefix(h.stdout, "Usage: xts "+cmd) {
			t.Errorf("help %s: exit %d, %q; want %s --help's text", cmd, h.code, h.stdout[:min(len(h.stdout), 40)], cmd)
		}
		for _, s := range []string{"1 wrong parameters", "2 no permission", "3 out of memory", "4 wrong device", "5 output already exists", "128+N"} {
			if !strings.Contains(h.stdout, s) {
				t.Errorf("help %s does not document exit status %q", cmd, s)
			}
		}
	}
	enc := runCmd(t, nil, "help", "encrypt").stdout
	for _, s := range []string{"-d, --key-file", "-s, --key-size", "--keyfile-offset", "-l, --keyfile-size", "-c, --cipher", "-o, --offset", "-p, --skip", "-b, --size"} {
		if !strings.Contains(enc, s) {
			t.Errorf("encrypt's help lacks %q", s)
		}
	}
	if r := runCmd(t, nil, "help", "frobnicate"); r.code != exitUsage || !strings.Contains(r.stderr, `unknown command "frobnicate"`) {
		t.Errorf("help frobnicate: exit %d, stderr %q", r.code, r.stderr)
	}
	v := runCmd(t, nil, "--version")
	if v.code != 0 || !strings.HasPrefix(v.stdout, "xts ") || !strings.Contains(v.stdout, runtime.Version()) || strings.Count(v.stdout, "\n") != 1 {
		t.Errorf("--version: exit %d, %q", v.code, v.stdout)
	}
	if !bytes.Equal([]byte(runCmd(t, nil, "version").stdout), []byte(v.stdout)) {
		t.Error("`xts version` differs from --version")
	}
}
