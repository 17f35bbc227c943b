package main

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/fastxts/xts"
)

// fakeGcrypt writes a stand-in for scripts/gcrypt-sid.sh's harness: it
// logs its arguments to log and prints mbps for every XTS cell asked
// for, plus an ECB line bench must ignore.
func fakeGcrypt(t *testing.T, mbps string) (path, log string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake harness is a shell script")
	}
	dir := t.TempDir()
	path, log = filepath.Join(dir, "gcrypt-bench"), filepath.Join(dir, "log")
	script := `#!/bin/sh
echo "$@" >>` + log + `
while [ $# -gt 0 ]; do
	case $1 in -c) c=$2 ;; -k) k=$2 ;; -o) o=$2 ;; -s) s=$2 ;; esac
	shift 2
done
echo "# libgcrypt 9.9.9"
for kb in $(echo $k | tr , ' '); do for op in $(echo $o | tr , ' '); do for sz in $(echo $s | tr , ' '); do
	printf '%s\t%s\txts\t%s\t%s\t%s\n' $c $kb $op $sz ` + mbps + `
	printf '%s\t%s\tecb\t%s\t%s\t1\n' $c $kb $op $sz
done; done; done
`
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, log
}

// TestBenchCipher: --cipher times the cipher's implementations (the
// generic engine, its assembly variants, x/crypto/xts over its block
// cipher) or a cascade beside its parts and their combination, without
// an AES bound; a libgcrypt harness adds its rows once a pass.
func TestBenchCipher(t *testing.T) {
	fake, log := fakeGcrypt(t, "250.0")
	for _, c := range []struct {
		cipher string
		gcrypt bool
		keys   string
		want   []string // rows besides the cipher's assembly variants
	}{
		{"serpent", true, "128,256", []string{"generic", baselineName, "libgcrypt-9.9.9"}},
		{"twofish", true, "256", []string{"generic", baselineName, "libgcrypt-9.9.9"}},
		{"camellia", false, "192", []string{"generic", baselineName}},
		{"kuznyechik", false, "256", []string{"generic", baselineName}},
		{"aes-twofish-serpent", false, "256", []string{"aes-twofish-serpent", "aes", "twofish", "serpent", cascadeName}},
		{"Kuznyechik-Camellia", false, "256", []string{"camellia-kuznyechik", "camellia", "kuznyechik", cascadeName}},
	} {
		t.Run(c.cipher, func(t *testing.T) {
			os.Remove(log)
			args := []string{"bench", "--cipher", c.cipher, "--format", "tsv", "--time", "1ms", "--passes", "2",
				"--sizes", "512,1024", "--sector-sizes", "none", "--key", c.keys, "--gcrypt", "none"}
			if c.gcrypt {
				args[len(args)-1] = fake
			}
			r := runCmd(t, nil, args...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			rows := parseTSV(t, r.stdout)
			want := map[string]bool{}
			for _, w := range c.want {
				want[w] = true
			}
			if !strings.Contains(c.cipher, "-") {
				for _, im := range xts.Implementations() {
					if im.Available && strings.EqualFold(im.Cipher, c.cipher) {
						want[im.Name] = true
					}
				}
			}
			got := map[string]int{}
			byKey := map[string]float64{}
			for _, row := range rows {
				got[row.impl]++
				if row.impl == boundName || !math.IsNaN(row.boundPct) {
					t.Errorf("row %+v: a bound for a cipher that is not AES", row)
				}
				if !(row.mbps > 0) || row.op != "dec" || !strings.Contains(","+c.keys+",", ","+itoa(row.keyBits)+",") {
					t.Errorf("row %+v: want a positive dec figure with a key of %s bits", row, c.keys)
				}
				if row.impl == "libgcrypt-9.9.9" && row.mbps != 250 {
					t.Errorf("row %+v: want the harness's 250 MB/s", row)
				}
				byKey[row.impl+"/"+itoa(row.keyBits)+"/"+itoa(row.size)] = row.mbps
			}
			nKeys := strings.Count(c.keys, ",") + 1
			for w := range want {
				if got[w] != 2*nKeys {
					t.Errorf("%s: %d rows, want %d (one per key size and message size)", w, got[w], 2*nKeys)
				}
			}
			for impl := range got {
				if !want[impl] {
					t.Errorf("unexpected row %s", impl)
				}
			}
			// The combination is 1 / Σ 1/speed of the parts (to the
			// TSV's rounding).
			if canon := c.want[0]; strings.Contains(canon, "-") {
				for _, size := range []int{512, 1024} {
					inv := 0.0
					for _, p := range strings.Split(canon, "-") {
						inv += 1 / byKey[p+"/256/"+itoa(size)]
					}
					if got := byKey[cascadeName+"/256/"+itoa(size)]; math.Abs(got-1/inv) > 0.1+1e-3*got {
						t.Errorf("%s at %d: %v MB/s, want 1/Σ(1/parts) = %v", cascadeName, size, got, 1/inv)
					}
				}
			}
			// The harness ran once a pass, for the XTS cells of this run.
			calls, _ := os.ReadFile(log)
			if c.gcrypt {
				lines := strings.Split(strings.TrimSpace(string(calls)), "\n")
				if len(lines) != 2 || !strings.Contains(lines[0], "-c "+c.cipher+" -k "+c.keys+" -o dec -s 512,1024 -m xts") {
					t.Errorf("harness calls %q: want two (one a pass) for %s, keys %s, sizes 512,1024", lines, c.cipher, c.keys)
				}
			} else if len(calls) > 0 {
				t.Errorf("the harness ran with --gcrypt none: %q", calls)
			}
		})
	}
}

// TestBenchCipherTable: the table names the cipher, has no bound column,
// and ends a block with the ratio rows: ours over libgcrypt's, the
// cascade over its combination.
func TestBenchCipherTable(t *testing.T) {
	fake, _ := fakeGcrypt(t, "1e-3")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--cipher", "serpent", "--gcrypt", fake, "--sector-sizes", "512"},
			[]string{"Serpent-256-XTS decryption", "libgcrypt-9.9.9", " / libgcrypt-9.9.9 ", "dec-sectors-parallel"}},
		{[]string{"--cipher", "aes-twofish-serpent"},
			[]string{"AES-Twofish-Serpent (VeraCrypt cascade", "\ncombined ", "\naes-twofish-serpent / combined "}},
	} {
		r := runCmd(t, nil, append([]string{"bench", "--time", "1ms", "--passes", "1", "--sizes", "512"}, c.args...)...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, r.code, r.stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("%v: table lacks %q:\n%s", c.args, w, r.stdout)
			}
		}
		for _, no := range []string{"of bound", boundName} {
			if strings.Contains(r.stdout, no) {
				t.Errorf("%v: table has %q, an AES bound:\n%s", c.args, no, r.stdout)
			}
		}
		// A ratio row has a figure with an x per size.
		for _, l := range strings.Split(r.stdout, "\n") {
			if strings.Contains(l, " / ") && !strings.HasSuffix(l, "x") {
				t.Errorf("%v: ratio row %q does not end in a ratio", c.args, l)
			}
		}
	}
}

func TestBenchCipherErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--cipher", "des"}, exitUsage, "--cipher"},
		{[]string{"--cipher", "aes-serpent"}, exitUsage, "--cipher"},
		{[]string{"--cipher", "kuznyechik", "--key", "128"}, exitUsage, "--key"},
		{[]string{"--cipher", "aes-twofish-serpent", "--key", "128"}, exitUsage, "--key"},
		{[]string{"--cipher", "aes-twofish-serpent", "--sizes", "1000"}, exitUsage, "--sizes"},
		{[]string{"--cipher", "aes-twofish-serpent", "--impl", "generic"}, exitUsage, "--impl"},
		{[]string{"--cipher", "serpent", "--impl", "vaes-avx2"}, exitUsage, "--impl"},
		{[]string{"--cipher", "kuznyechik", "--gcrypt", "/bin/true"}, exitUsage, "--gcrypt"},
		{[]string{"--cipher", "serpent", "--gcrypt", "/nonexistent/gcrypt-bench"}, 1, "libgcrypt harness"},
		{[]string{"--cipher", "serpent", "--gcrypt", "/bin/true"}, 1, "# libgcrypt VERSION"},
	} {
		r := runCmd(t, nil, append([]string{"bench", "--time", "1ms", "--passes", "1", "--sizes", "512", "--sector-sizes", "none"}, c.args...)...)
		if r.code != c.code || !strings.Contains(r.stderr, c.msg) || r.stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want %d and %q", c.args, r.code, r.stderr, r.stdout, c.code, c.msg)
		}
	}
}

// TestBenchGcryptAuto: a harness found through XTS_GCRYPT_BENCH (not
// named) that fails is left out with a warning; one that works adds its
// rows; naming implementations leaves it out.
func TestBenchGcryptAuto(t *testing.T) {
	fake, _ := fakeGcrypt(t, "77.0")
	base := []string{"bench", "--cipher", "serpent", "--format", "tsv", "--time", "1ms", "--passes", "1", "--sizes", "512", "--sector-sizes", "none"}
	for _, c := range []struct {
		env, impl string
		rows      bool
		warn      bool
	}{
		{fake, "", true, false},
		{"/nonexistent/gcrypt-bench", "", false, true},
		{fake, "generic", false, false},
	} {
		t.Setenv(envGcrypt, c.env)
		args := base
		if c.impl != "" {
			args = append(args[:len(args):len(args)], "--impl", c.impl)
		}
		r := runCmd(t, nil, args...)
		if r.code != 0 {
			t.Fatalf("%+v: exit %d: %s", c, r.code, r.stderr)
		}
		if got := strings.Contains(r.stdout, "libgcrypt-9.9.9\t256\tdec\t512\t77.0"); got != c.rows {
			t.Errorf("%+v: libgcrypt row present %v, want %v:\n%s", c, got, c.rows, r.stdout)
		}
		if got := strings.Contains(r.stderr, "leaving libgcrypt out"); got != c.warn {
			t.Errorf("%+v: warning %v, want %v: stderr %q", c, got, c.warn, r.stderr)
		}
	}
}

func TestParseGcrypt(t *testing.T) {
	for _, c := range []struct {
		out   string
		label string
		cells int
		err   bool
	}{
		{"# libgcrypt 1.12.4\nserpent\t256\txts\tdec\t4096\t1004.5\nserpent\t256\tecb\tdec\t4096\t1328.0\n", "libgcrypt-1.12.4", 1, false},
		{"# libgcrypt 1.10.1\n", "libgcrypt-1.10.1", 0, false},
		{"serpent\t256\txts\tdec\t4096\t1004.5\n", "", 0, true},
		{"# libgcrypt 1.12.4\nserpent\t256\txts\tdec\t4096\n", "", 0, true},
		{"# libgcrypt 1.12.4\nserpent\tx\txts\tdec\t4096\t1.0\n", "", 0, true},
		{"# libgcrypt 1.12.4\nserpent\t256\txts\tdec\t4096\t-1\n", "", 0, true},
	} {
		label, cells, err := parseGcrypt([]byte(c.out))
		if (err != nil) != c.err || label != c.label || len(cells) != c.cells {
			t.Errorf("%q: label %q, %d cells, err %v; want %q, %d, error %v", c.out, label, len(cells), err, c.label, c.cells, c.err)
		}
	}
}
