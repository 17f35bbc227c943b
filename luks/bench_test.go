package luks

import (
	"crypto/aes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/fastxts/xts"
)

const benchSize = 64 << 20 // bytes of data segment
const benchRead = 16 << 20 // bytes per ReadAt

// BenchmarkVolumeReadAt reads the data segment of an in-memory LUKS2
// image (aes-xts-plain64, 4096-byte sectors) in large sequential ranges;
// compare with BenchmarkDecryptSectorsSameBytes, which decrypts the same
// bytes already in memory with the root package (the target is
// a ratio of at least 90 %).
func BenchmarkVolumeReadAt(b *testing.B) {
	dev, h, key := memImage(b, CreateOptions{KDF: fastKDF["pbkdf2"]}, benchSize)
	benchReadAt(b, h, key, dev, dev.Size())
}

// BenchmarkVolumeReadAtFile is BenchmarkVolumeReadAt on an image file in
// the page cache, which Linux reads through a mapping.
func BenchmarkVolumeReadAtFile(b *testing.B) {
	dev, h, key := memImage(b, CreateOptions{KDF: fastKDF["pbkdf2"]}, benchSize)
	benchReadAt(b, h, key, imageFile(b, dev.b.Bytes()), dev.Size())
}

// benchReadAt times sequential benchRead-byte ReadAt calls over data.
func benchReadAt(b *testing.B, h *Header, key []byte, data io.ReaderAt, size int64) {
	v, err := NewVolume(h, key, data, size)
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	p := make([]byte, benchRead)
	b.SetBytes(benchRead)
	b.ResetTimer()
	off := int64(0)
	for b.Loop() {
		if _, err := v.ReadAt(p, off); err != nil {
			b.Fatal(err)
		}
		off = (off + benchRead) % benchSize
	}
}

// BenchmarkDecryptSectorsSameBytes is the bound for BenchmarkVolumeReadAt:
// DecryptSectors over ciphertext in memory into a separate buffer.
func BenchmarkDecryptSectorsSameBytes(b *testing.B) {
	dev, h, key := memImage(b, CreateOptions{KDF: fastKDF["pbkdf2"]}, benchSize)
	c, err := xts.NewCipher(aes.NewCipher, key, xts.WithTweakUnit(512))
	if err != nil {
		b.Fatal(err)
	}
	ct := dev.b.Bytes()[h.Segments[0].Offset:]
	p := make([]byte, benchRead)
	b.SetBytes(benchRead)
	b.ResetTimer()
	off := 0
	for b.Loop() {
		c.DecryptSectors(p, ct[off:off+benchRead], 4096, uint64(off/512))
		off = (off + benchRead) % benchSize
	}
}

// argon2Bench is the argon2id cost of the unlock benchmarks: cryptsetup's
// default on this machine is t=4, m=1 GiB, p=2 (set LUKS_BENCH_ARGON2 to
// "4,1048576,2"); the default here is smaller so that the benchmark fits
// a shared machine.
func argon2Bench(b *testing.B) KDFOptions {
	o := KDFOptions{Type: "argon2id", Iterations: 4, Memory: 64 << 10, Parallel: 2}
	if s := os.Getenv("LUKS_BENCH_ARGON2"); s != "" {
		var v [3]int
		for i, f := range splitComma(s) {
			n, err := strconv.Atoi(f)
			if err != nil || i >= 3 {
				b.Fatalf("LUKS_BENCH_ARGON2=%q: want TIME,MEMORY_KIB,PARALLEL", s)
			}
			v[i] = n
		}
		o.Iterations, o.Memory, o.Parallel = v[0], v[1], v[2]
	}
	return o
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

// unlockImage writes a LUKS2 image with one argon2id keyslot of cost o.
func unlockImage(b *testing.B, o KDFOptions) (path string, pass []byte) {
	dir := b.TempDir()
	path = filepath.Join(dir, "img")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	pass = []byte("benchmark")
	if _, _, err := Create(f, pass, &CreateOptions{KDF: o}); err != nil {
		b.Fatal(err)
	}
	return path, pass
}

// BenchmarkUnlockArgon2id unlocks an argon2id keyslot with the package;
// BenchmarkUnlockCryptsetup runs `cryptsetup open --test-passphrase` on
// the same kind of image. Both report user and system CPU seconds per
// unlock beside the wall time.
func BenchmarkUnlockArgon2id(b *testing.B) {
	path, pass := unlockImage(b, argon2Bench(b))
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	h, err := ReadHeader(f)
	if err != nil {
		b.Fatal(err)
	}
	u0, s0 := rusage()
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := h.Unlock(f, pass, AnyKeyslot); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	u1, s1 := rusage()
	b.ReportMetric((u1-u0).Seconds()/float64(b.N), "user-s/op")
	b.ReportMetric((s1-s0).Seconds()/float64(b.N), "sys-s/op")
}

func BenchmarkUnlockCryptsetup(b *testing.B) {
	needCryptsetup(b)
	path, pass := unlockImage(b, argon2Bench(b))
	kf := filepath.Join(filepath.Dir(path), "pass")
	writeFile(b, kf, pass)
	var user, sys time.Duration
	b.ResetTimer()
	for b.Loop() {
		cmd := exec.Command("cryptsetup", "open", "--test-passphrase", "--batch-mode", "--key-file", kf, path)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
		user += cmd.ProcessState.UserTime()
		sys += cmd.ProcessState.SystemTime()
	}
	b.ReportMetric(user.Seconds()/float64(b.N), "user-s/op")
	b.ReportMetric(sys.Seconds()/float64(b.N), "sys-s/op")
}
