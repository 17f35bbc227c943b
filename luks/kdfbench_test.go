package luks

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestBenchmarkedCostAtLeastCryptsetups has cryptsetup format an image with
// its own benchmark (--iter-time 1000) and benchmarks a new keyslot here for
// the same target: the cost chosen here (argon2 time × memory, pbkdf2
// iterations) must be at least 0.9 times cryptsetup's. The benchmark that
// extrapolated one pass over 64 MiB chose argon2 keyslots about four times
// cheaper than asked, below cryptsetup's choice.
func TestBenchmarkedCostAtLeastCryptsetups(t *testing.T) {
	needCryptsetup(t)
	if testing.Short() {
		t.Skip("-short: the comparison runs both benchmarks (several seconds)")
	}
	if raceEnabled {
		t.Skip("-race instruments this package's Argon2 and PBKDF2 loops and slows them, so its benchmark picks cheaper keyslots than a normal build would; the comparison runs without -race")
	}
	if emulated, host := underEmulator(); emulated {
		t.Skipf("this test binary (%s) runs under an emulator on a %s host while cryptsetup runs natively: the two benchmarks would not measure the same machine", runtime.GOARCH, host)
	}
	if puregoBuild {
		t.Skip("-tags purego makes crypto/sha256 and the Argon2 compression portable Go, several times slower, so the benchmark rightly picks fewer iterations for the same time than cryptsetup's assembly does; the comparison runs without purego")
	}
	const iterTime = time.Second
	for _, tc := range []struct {
		typ     string
		version int
	}{{"luks2", 2}, {"luks1", 1}} {
		t.Run(tc.typ, func(t *testing.T) {
			dir := t.TempDir()
			img, kf := filepath.Join(dir, "img"), filepath.Join(dir, "pass")
			writeFile(t, kf, []byte("passphrase"))
			if err := os.WriteFile(img, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(img, 20<<20); err != nil {
				t.Fatal(err)
			}
			cs(t, "luksFormat", "--batch-mode", "--type", tc.typ, "--key-size", "512", "--key-file", kf, "--iter-time", "1000", img)
			f, err := os.Open(img)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			h, err := ReadHeader(f)
			if err != nil {
				t.Fatal(err)
			}
			ks, ok := h.Keyslot(0)
			if !ok {
				t.Fatal("cryptsetup's image has no keyslot 0")
			}
			theirs := ks.KDF

			o, err := KDFOptions{IterTime: iterTime}.withDefaults(tc.version)
			if err != nil {
				t.Fatal(err)
			}
			ours, err := newKDF(o, 64)
			if err != nil {
				t.Fatal(err)
			}
			if ours.Type != theirs.Type {
				t.Fatalf("default KDF %s, cryptsetup's %s", ours.Type, theirs.Type)
			}
			cost := func(k KDF) float64 {
				if k.Type == "pbkdf2" {
					return float64(k.Iterations)
				}
				return float64(k.Time) * float64(k.Memory)
			}
			ratio := cost(ours) / cost(theirs)
			t.Logf("%s: here %s t=%d m=%d p=%d iterations=%d; cryptsetup t=%d m=%d p=%d iterations=%d; ratio %.2f",
				tc.typ, ours.Type, ours.Time, ours.Memory, ours.CPUs, ours.Iterations,
				theirs.Time, theirs.Memory, theirs.CPUs, theirs.Iterations, ratio)
			if ratio < 0.9 {
				t.Errorf("the benchmarked cost is %.2f times cryptsetup's for --iter-time 1000 (want at least 0.9)", ratio)
			}
			if ours.Type != "pbkdf2" && ours.CPUs != theirs.CPUs {
				t.Errorf("parallel cost %d, cryptsetup's %d", ours.CPUs, theirs.CPUs)
			}
		})
	}
}

// underEmulator reports whether this test binary runs under an emulator
// (qemu-user): the machine's architecture, as uname -m prints it, is not
// the one the binary was built for.
func underEmulator() (bool, string) {
	out, err := exec.Command("uname", "-m").Output()
	if err != nil {
		return false, ""
	}
	host := strings.TrimSpace(string(out))
	goarch := map[string]string{"x86_64": "amd64", "aarch64": "arm64", "i686": "386", "i386": "386", "s390x": "s390x", "ppc64le": "ppc64le", "riscv64": "riscv64"}[host]
	return goarch != "" && goarch != runtime.GOARCH, host
}
