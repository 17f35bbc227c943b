package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/fastxts/xts/internal/sector/ivmodel"
)

// dmCase is one dm-crypt configuration with the IV rule written out
// independently of numbering.iv.
type dmCase struct {
	name       string
	args       []string
	sectorSize int
	sectors    int
	offset     int // 512-byte units of leading junk in the ciphertext input
	iv         func(k uint64) uint64
}

func dmCases() []dmCase {
	const two32 uint64 = 1 << 32
	return []dmCase{
		{"plain64", nil, 512, 40, 0, func(k uint64) uint64 { return k }},
		{"plain64 skip", []string{"--skip", "1000"}, 512, 40, 0, func(k uint64) uint64 { return 1000 + k }},
		{"plain64 high skip", []string{"--skip", "18446744073709551600"}, 512, 40, 0,
			func(k uint64) uint64 { return 18446744073709551600 + k }}, // wraps mod 2^64 like sector_t
		{"plain wrap", []string{"--cipher", "aes-xts-plain", "--skip", fmt.Sprint(two32 - 13)}, 512, 40, 0,
			func(k uint64) uint64 { return (two32 - 13 + k) % two32 }},
		{"plain skip above 2^32", []string{"--cipher", "aes-xts-plain", "--skip", fmt.Sprint(3*two32 + 5)}, 512, 10, 0,
			func(k uint64) uint64 { return 5 + k }},
		{"4096 small IVs", []string{"--sector-size", "4096"}, 4096, 12, 0, func(k uint64) uint64 { return 8 * k }},
		{"4096 small IVs skip", []string{"--sector-size", "4096", "--skip", "64"}, 4096, 12, 0, func(k uint64) uint64 { return 64 + 8*k }},
		{"4096 large IVs", []string{"--sector-size", "4096", "--iv-large-sectors"}, 4096, 12, 0, func(k uint64) uint64 { return k }},
		{"4096 large IVs skip", []string{"--sector-size", "4096", "--iv-large-sectors", "--skip", "64"}, 4096, 12, 0,
			func(k uint64) uint64 { return 8 + k }},
		{"4096 plain wrap small IVs", []string{"--sector-size", "4096", "--cipher", "aes-xts-plain", "--skip", fmt.Sprint(two32 - 40)}, 4096, 12, 0,
			func(k uint64) uint64 { return (two32 - 40 + 8*k) % two32 }},
		{"4096 plain wrap large IVs", []string{"--sector-size", "4096", "--iv-large-sectors", "--cipher", "aes-xts-plain", "--skip", fmt.Sprint((two32 - 3) * 8)}, 4096, 12, 0,
			func(k uint64) uint64 { return (two32 - 3 + k) % two32 }},
		{"plain wrap, large IVs, several chunks", []string{"--sector-size", "4096", "--iv-large-sectors", "--cipher", "aes-xts-plain", "--skip", fmt.Sprint((two32 - 500) * 8)}, 4096, 800, 0,
			func(k uint64) uint64 { return (two32 - 500 + k) % two32 }},
		{"2048 offset", []string{"--sector-size", "2048", "--offset", "8"}, 2048, 9, 8, func(k uint64) uint64 { return 4 * k }},
		{"512 offset skip", []string{"--offset", "3", "--skip", "7"}, 512, 30, 3, func(k uint64) uint64 { return 7 + k }},
		// The 512-byte count wraps mod 2^64 before the --iv-large-sectors
		// shift (issue 9, item 12): --skip 2^64-8 gives sector 1 IV 0.
		{"4096 large IVs 2^64 wrap", []string{"--sector-size", "4096", "--iv-large-sectors", "--skip", fmt.Sprint(uint64(1<<64 - 8))}, 4096, 6, 0,
			func(k uint64) uint64 { return ivmodel.IV(1<<64-8, k, 4096, true, false) }},
		{"4096 large IVs 2^64 wrap, several chunks", []string{"--sector-size", "4096", "--iv-large-sectors", "--skip", fmt.Sprint(uint64(1<<64 - 8*300))}, 4096, 800, 0,
			func(k uint64) uint64 { return ivmodel.IV(1<<64-8*300, k, 4096, true, false) }},
		{"2048 small IVs 2^64 wrap", []string{"--sector-size", "2048", "--skip", fmt.Sprint(uint64(1<<64 - 12))}, 2048, 8, 0,
			func(k uint64) uint64 { return ivmodel.IV(1<<64-12, k, 2048, false, false) }},
		{"4096 large plain 2^64 wrap", []string{"--sector-size", "4096", "--iv-large-sectors", "--cipher", "aes-xts-plain", "--skip", fmt.Sprint(uint64(1<<64 - 24))}, 4096, 8, 0,
			func(k uint64) uint64 { return ivmodel.IV(1<<64-24, k, 4096, true, true) }},
	}
}

// TestCryptMatchesDmCrypt encrypts images with the command, in file mode
// and streaming, with chunk edges that fall on and around the IV wrap, and
// compares every sector with the single-unit API under the IV dm-crypt
// would use; then decrypts them back.
func TestCryptMatchesDmCrypt(t *testing.T) {
	for _, chunk := range []int{4096, 3 * 4096, 1 << 20} {
		e := env{chunkSize: chunk}
		for _, c := range dmCases() {
			t.Run(fmt.Sprintf("%s/chunk%d", c.name, chunk), func(t *testing.T) {
				dir := t.TempDir()
				key := randBytes(t, 64)
				keyPath := writeFile(t, dir, "key", key)
				plain := randBytes(t, c.sectorSize*c.sectors)
				junk := randBytes(t, 512*c.offset)
				want := dmReference(t, key, plain, c.sectorSize, c.iv, true)

				// Encrypt: --offset leaves out the input's first sectors.
				in := writeFile(t, dir, "plain", append(append([]byte{}, junk...), plain...))
				enc := filepath.Join(dir, "enc")
				args := append([]string{"encrypt", "--key-file", keyPath}, c.args...)
				if r := runCmdIn(t, e, nil, append(args, in, enc)...); r.code != 0 {
					t.Fatalf("encrypt: exit %d: %s", r.code, r.stderr)
				}
				got := readFile(t, enc)
				compareSectors(t, got, want, c.sectorSize)

				// Streaming through - gives the same bytes.
				code, out, stderr := runBytesIn(t, e, append(append([]byte{}, junk...), plain...), append(args, "-", "-")...)
				if code != 0 {
					t.Fatalf("encrypt - -: exit %d: %s", code, stderr)
				}
				if !bytes.Equal(out, got) {
					t.Fatal("streaming output differs from file output")
				}

				// Decrypt the ciphertext (behind the same junk) back.
				in2 := writeFile(t, dir, "cipher", append(append([]byte{}, junk...), got...))
				dec := filepath.Join(dir, "dec")
				dargs := append([]string{"decrypt", "--key-file", keyPath}, c.args...)
				if r := runCmdIn(t, e, nil, append(dargs, in2, dec)...); r.code != 0 {
					t.Fatalf("decrypt: exit %d: %s", r.code, r.stderr)
				}
				if !bytes.Equal(readFile(t, dec), plain) {
					t.Fatal("decrypt did not round-trip")
				}
				code, out, stderr = runBytesIn(t, e, append(append([]byte{}, junk...), got...), append(dargs, "-", "-")...)
				if code != 0 || !bytes.Equal(out, plain) {
					t.Fatalf("decrypt - -: exit %d, round trip %v: %s", code, bytes.Equal(out, plain), stderr)
				}
			})
		}
	}
}

func compareSectors(t *testing.T, got, want []byte, sectorSize int) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("output has %d bytes, want %d", len(got), len(want))
	}
	for k := 0; k*sectorSize < len(want); k++ {
		lo, hi := k*sectorSize, (k+1)*sectorSize
		if !bytes.Equal(got[lo:hi], want[lo:hi]) {
			t.Fatalf("sector %d differs from the reference", k)
		}
	}
}

// TestCryptKeySizes checks the 32- and 48-byte keys too, and that the key
// can come from standard input.
func TestCryptKeySizes(t *testing.T) {
	for _, n := range []int{32, 48, 64} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			dir := t.TempDir()
			key := randBytes(t, n)
			plain := randBytes(t, 512*5)
			in := writeFile(t, dir, "plain", plain)
			out := filepath.Join(dir, "enc")
			r := runCmd(t, bytes.NewReader(key), "encrypt", "--key-file", "-", in, out)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			want := dmReference(t, key, plain, 512, func(k uint64) uint64 { return k }, true)
			compareSectors(t, readFile(t, out), want, 512)
		})
	}
}

// TestCryptForceAndVerbose checks that --force replaces an existing output
// (keeping its mode) and that -v reports the throughput.
func TestCryptForceAndVerbose(t *testing.T) {
	dir := t.TempDir()
	keyPath := writeFile(t, dir, "key", randBytes(t, 64))
	in := writeFile(t, dir, "plain", randBytes(t, 4096))
	out := writeFile(t, dir, "out", []byte("old"))
	if err := os.Chmod(out, 0o640); err != nil {
		t.Fatal(err)
	}
	r := runCmd(t, nil, "encrypt", "-v", "--force", "--key-file", keyPath, in, out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got := readFile(t, out); len(got) != 4096 {
		t.Fatalf("output has %d bytes, want 4096", len(got))
	}
	if fi, _ := os.Stat(out); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want the replaced file's 0640", fi.Mode().Perm())
	}
	if !bytes.Contains([]byte(r.stderr), []byte("MB/s")) {
		t.Errorf("-v printed %q, want a throughput", r.stderr)
	}
	if names := dirNames(t, dir); len(names) != 3 {
		t.Errorf("directory holds %v, want key, out, plain", names)
	}
}

// TestFlagsAfterArguments: flags may follow the paths.
func TestFlagsAfterArguments(t *testing.T) {
	dir := t.TempDir()
	keyPath := writeFile(t, dir, "key", randBytes(t, 64))
	in := writeFile(t, dir, "plain", randBytes(t, 4096))
	out := filepath.Join(dir, "out")
	if r := runCmd(t, nil, "encrypt", in, out, "--key-file", keyPath, "--sector-size", "4096"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	// "--" ends the flags: a file named like a flag is an argument.
	t.Chdir(dir)
	writeFile(t, dir, "-v", randBytes(t, 512))
	if r := runCmd(t, nil, "encrypt", "--key-file", "key", "--", "-v", "out2"); r.code != 0 {
		t.Fatalf("with --: exit %d: %s", r.code, r.stderr)
	}
	if len(readFile(t, filepath.Join(dir, "out2"))) != 512 {
		t.Fatal("out2 was not written")
	}
}
