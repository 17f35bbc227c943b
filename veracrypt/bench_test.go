package veracrypt

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/fastxts/xts/internal/argon2"
	"github.com/fastxts/xts/internal/pbkdf2"
	"github.com/fastxts/xts/luks"
)

// BenchmarkReadAt reads a volume's data area in 1 MiB calls (decryption
// across cores by the volume layer), for one cipher and a cascade.
func BenchmarkReadAt(b *testing.B) {
	for _, chain := range []string{"aes", "serpent", "serpent-twofish-aes"} {
		b.Run(chain, func(b *testing.B) {
			dev := newMemDev(64<<20 + 2*backupReserve)
			if err := Create(dev, dev.Size(), []byte("pw"), &CreateOptions{Cipher: chain, PIM: 1, Rand: seeded(5)}); err != nil {
				b.Fatal(err)
			}
			v, err := Open(dev, []byte("pw"), &Options{PIM: 1, PRF: "sha512", Cipher: chain})
			if err != nil {
				b.Fatal(err)
			}
			defer v.Close()
			buf := make([]byte, 1<<20)
			b.SetBytes(int64(len(buf)))
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if _, err := v.ReadAt(buf, int64(i%64)<<20); err != nil {
					b.Fatal(fmt.Sprint(err))
				}
			}
		})
	}
}

// benchDev is an in-memory device that, unlike memDev, keeps no log of
// its writes.
type benchDev []byte

func (d benchDev) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off >= int64(len(d)) {
		return 0, io.EOF
	}
	n := copy(p, d[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (d benchDev) Size() int64 { return int64(len(d)) }

func (d benchDev) WriteAt(p []byte, off int64) (int, error) {
	if off < 0 || off+int64(len(p)) > int64(len(d)) {
		return 0, errors.New("benchDev: write past the end")
	}
	return copy(d[off:], p), nil
}

// benchMiB is the data size of BenchmarkReadAtVsLUKS:
// $VERACRYPT_BENCH_MIB, 1024 by default.
func benchMiB(b *testing.B) int {
	s := os.Getenv("VERACRYPT_BENCH_MIB")
	if s == "" {
		return 1024
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		b.Fatalf("VERACRYPT_BENCH_MIB=%q: want a number of MiB", s)
	}
	return n
}

// BenchmarkReadAtVsLUKS reads the same plaintext (1 GiB, or
// $VERACRYPT_BENCH_MIB) through a VeraCrypt AES volume and through
// luks.Volume (LUKS1 aes-xts-plain64, 512-bit key, 512-byte sectors: the
// same cipher and sector size; and LUKS2 with its default 4096-byte
// sectors), both in memory, in 16 MiB ReadAt calls. Every iteration reads
// the whole volume through each in turn, the first rotating; the metrics
// are the medians of each one's MB/s and of the per-iteration ratios
// (goal: vc/luks1 >= 0.9). Run with -benchtime Nx.
func BenchmarkReadAtVsLUKS(b *testing.B) {
	size := int64(benchMiB(b)) << 20
	plain := make(benchDev, size)
	seeded(21).Read(plain)
	pw := []byte("bench")

	vdev := make(benchDev, size+2*backupReserve)
	if err := Create(vdev, int64(len(vdev)), pw, &CreateOptions{PIM: 1, Rand: seeded(22)}); err != nil {
		b.Fatal(err)
	}
	vc, err := Open(vdev, pw, &Options{PIM: 1, PRF: "sha512", Cipher: "aes"})
	if err != nil {
		b.Fatal(err)
	}
	defer vc.Close()
	if vc.Size() != size || vc.SectorSize() != 512 {
		b.Fatalf("VeraCrypt volume of %d bytes, sectors of %d", vc.Size(), vc.SectorSize())
	}
	type rw interface {
		io.ReaderAt
		io.WriterAt
	}
	names := []string{"vc"}
	vols := []rw{vc}
	for _, l := range []struct {
		name string
		o    luks.CreateOptions
	}{
		{"luks1", luks.CreateOptions{Version: 1}},
		{"luks2", luks.CreateOptions{Version: 2}},
	} {
		l.o.KDF = luks.KDFOptions{Type: "pbkdf2", Iterations: 1000}
		ldev := make(benchDev, size+16<<20) // room for either header
		if _, _, err := luks.Create(ldev, pw, &l.o); err != nil {
			b.Fatal(err)
		}
		lv, err := luks.Open(ldev, pw, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer lv.Close()
		if lv.Size() < size {
			b.Fatalf("%s volume of %d bytes, want %d", l.name, lv.Size(), size)
		}
		names, vols = append(names, l.name), append(vols, lv)
	}
	const chunk = 16 << 20
	buf := make([]byte, chunk)
	for i, v := range vols {
		for off := int64(0); off < size; off += chunk {
			n := min(chunk, size-off)
			if _, err := v.WriteAt(plain[off:off+n], off); err != nil {
				b.Fatal(err)
			}
		}
		// Check the first and last chunks read back.
		for _, off := range []int64{0, max(0, size-chunk)} {
			n := min(chunk, size-off)
			if _, err := v.ReadAt(buf[:n], off); err != nil || string(buf[:n]) != string(plain[off:off+n]) {
				b.Fatalf("%s: data at %d read back differ (%v)", names[i], off, err)
			}
		}
	}
	readAll := func(v rw) time.Duration {
		t0 := time.Now()
		for off := int64(0); off < size; off += chunk {
			n := min(chunk, size-off)
			if _, err := v.ReadAt(buf[:n], off); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(t0)
	}
	mbs := make([][]float64, len(vols))
	ratios := make([][]float64, len(vols))
	b.SetBytes(size)
	round := 0
	for b.Loop() {
		secs := make([]float64, len(vols))
		for k := range vols {
			i := (k + round) % len(vols)
			secs[i] = readAll(vols[i]).Seconds()
		}
		for i := range vols {
			mbs[i] = append(mbs[i], float64(size)/secs[i]/1e6)
			ratios[i] = append(ratios[i], secs[i]/secs[0])
		}
		round++
	}
	for i, n := range names {
		b.ReportMetric(median(mbs[i]), n+"-MB/s")
		if i > 0 {
			b.ReportMetric(median(ratios[i]), "vc/"+n)
		}
	}
}

// median returns the median of xs (0 for none).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// deriveAlone derives p's whole VeraCrypt header key (192 bytes, at the
// default costs of a non-system volume) on the calling goroutine alone,
// block after block: what one PRF costs a trial that does not match.
func deriveAlone(p *prf, password, salt []byte) []byte {
	iter, mem := p.iterations(0, false, false)
	if p.argon2 {
		return argon2.IDKey(password, salt, uint32(iter), uint32(mem), 1, maxHeaderKey)
	}
	d := pbkdf2.NewDeriver(p.hash, password, salt, iter)
	defer d.Wipe()
	n := d.Size()
	key := make([]byte, (maxHeaderKey+n-1)/n*n)
	for i := 0; i*n < maxHeaderKey; i++ {
		d.Block(key[i*n:(i+1)*n], uint32(i+1), nil)
	}
	return key[:maxHeaderKey]
}

// BenchmarkTrials measures the default trial (no PRF named, default
// costs) against each VeraCrypt PRF's single derivation: every iteration
// derives each PRF's 192-byte header key alone (one goroutine; Argon2id
// runs its lane on a goroutine of its own), then opens a volume made with
// VeraCrypt's defaults (SHA-512, AES) with a wrong password (refused) and
// with the right one. The metrics are medians over the iterations: each
// PRF's derivation, their sum, the wrong password's time and its ratio to
// the sum (goal <= 0.6 on two cores), the right password's time and its
// ratio to SHA-512's derivation (goal <= 1.2). Each is measured as wall
// time (-s) and as the process's CPU time (-cpu-s), which a machine
// loaded by other work disturbs far less; for the trials, which run on
// GOMAXPROCS cores, -cpu-s/GOMAXPROCS (the "/cores" ratios) is what the
// wall time would be on otherwise idle cores if the work were split
// evenly (the split follows the units' wall times, so on idle cores it
// is even to within one unit: at most a RIPEMD-160 block, 0.3 s, at the
// end). Run with -benchtime Nx; an iteration takes about 25 s of CPU on
// a Zen 5 core.
func BenchmarkTrials(b *testing.B) {
	dev := newMemDev(512 << 10)
	pw := []byte("correct horse")
	if err := Create(dev, dev.Size(), pw, &CreateOptions{Rand: seeded(31)}); err != nil {
		b.Fatal(err)
	}
	salt := dev.b[:SaltSize]
	var vc []*prf
	for _, p := range prfs {
		if p.vc && p.check() == nil {
			vc = append(vc, p)
		}
	}
	timed := func(f func()) (wall, cpu float64) {
		c0, t0 := processCPU(), time.Now()
		f()
		return time.Since(t0).Seconds(), (processCPU() - c0).Seconds()
	}
	cores := float64(runtime.GOMAXPROCS(0))
	m := map[string][]float64{}
	add := func(name string, v float64) { m[name] = append(m[name], v) }
	last := func(name string) float64 { return m[name][len(m[name])-1] }
	for b.Loop() {
		var sum, sumCPU float64
		for _, p := range vc {
			runtime.GC() // not in the next timing
			w, c := timed(func() { clear(deriveAlone(p, pw, salt)) })
			add(p.name+"-s", w)
			add(p.name+"-cpu-s", c)
			sum, sumCPU = sum+w, sumCPU+c
		}
		add("sum-s", sum)
		add("sum-cpu-s", sumCPU)
		runtime.GC()
		w, c := timed(func() {
			if _, err := Open(dev, []byte("wrong horse"), nil); !errors.Is(err, ErrPassword) {
				b.Fatalf("wrong password: %v", err)
			}
		})
		add("wrong-s", w)
		add("wrong-cpu-s", c)
		add("wrong/sum", w/sum)
		add("wrong-cpu/cores/sum-cpu", c/cores/sumCPU)
		b.Logf("round: sum %.2fs (cpu %.2fs) wrong %.2fs (cpu %.2fs)", sum, sumCPU, w, c)
		runtime.GC()
		w, c = timed(func() {
			v, err := Open(dev, pw, nil)
			if err != nil {
				b.Fatal(err)
			}
			if h := v.Header(); h.PRF != "sha512" || h.Cipher != "aes" {
				b.Fatalf("opened with %s %s", h.PRF, h.Cipher)
			}
			v.Close()
		})
		add("right-s", w)
		add("right-cpu-s", c)
		add("right/sha512", w/last("sha512-s"))
		add("right-cpu/cores/sha512-cpu", c/cores/last("sha512-cpu-s"))
		b.Logf("       right %.2fs (cpu %.2fs); sha512 alone %.2fs (cpu %.2fs)", w, c, last("sha512-s"), last("sha512-cpu-s"))
	}
	for name, v := range m {
		b.ReportMetric(median(v), name)
	}
	b.ReportMetric(0, "ns/op")
}

// BenchmarkCandidates is the cipher side of a trial: one derived key
// tried against every candidate (each chain in XTS, and LRW for
// TrueCrypt), header decryption and parse included.
func BenchmarkCandidates(b *testing.B) {
	dev := newMemDev(512 << 10)
	if err := Create(dev, dev.Size(), []byte("pw"), &CreateOptions{PIM: 1, Rand: seeded(32)}); err != nil {
		b.Fatal(err)
	}
	block := dev.b[:HeaderSize]
	cands := trialCandidates(chainNames, nil)
	key := make([]byte, maxHeaderKey)
	seeded(33).Read(key)
	dec := make([]byte, HeaderSize)
	copy(dec, block[:SaltSize])
	j := job{prfs[0], true}
	for b.Loop() {
		for _, cd := range cands {
			if tryCandidate(j, cd, key, block, dec) != nil {
				b.Fatal("a random key decrypted the header")
			}
		}
	}
	b.ReportMetric(float64(len(cands)), "candidates")
}
