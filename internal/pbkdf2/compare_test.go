//go:build linux

package pbkdf2

import (
	stdpbkdf2 "crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"hash"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/fastxts/xts/internal/hash/ripemd160"
	"github.com/fastxts/xts/internal/hash/streebog"
	"github.com/fastxts/xts/internal/hash/whirlpool"
)

// BenchmarkCompare measures PBKDF2 iterations per second of thread CPU
// time (on a loaded machine, wall time measures the scheduler) of Key,
// crypto/pbkdf2.Key and, when OSSL_PBKDF2_BENCH names a build of
// testdata/osslbench.c, OpenSSL's PKCS5_PBKDF2_HMAC, one run of each in
// turn for PBKDF2_ROUNDS rounds (default 11), and reports the medians
// of the rates and of each round's ratios.
// Each run derives one digest-sized block (one goroutine) from an
// 8-byte password and a 64-byte salt, as VeraCrypt does. Run it with
// -benchtime=1x:
//
//	gcc -O2 -o /tmp/osslbench testdata/osslbench.c -lcrypto
//	OSSL_PBKDF2_BENCH=/tmp/osslbench go test -run '^$' -bench Compare -benchtime 1x
func BenchmarkCompare(b *testing.B) {
	rounds := 11
	if s := os.Getenv("PBKDF2_ROUNDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("PBKDF2_ROUNDS=%q", s)
		}
		rounds = n
	}
	ossl := os.Getenv("OSSL_PBKDF2_BENCH")
	for _, c := range []struct {
		name, osslName string
		h              func() hash.Hash
		iter           int
	}{
		{"SHA-512", "SHA512", sha512.New, 40000},
		{"SHA-256", "SHA256", sha256.New, 80000},
		{"SHA-1", "SHA1", sha1.New, 80000},
		{"Whirlpool", "whirlpool", whirlpool.New, 10000},
		{"RIPEMD-160", "RIPEMD160", ripemd160.New, 20000},
		{"BLAKE2s-256", "BLAKE2S-256", blake2s256, 40000},
		{"Streebog-512", "", streebog.New512, 4000},
	} {
		b.Run(c.name, func(b *testing.B) {
			password := []byte("password")
			salt := make([]byte, 64)
			size := c.h().Size()
			var ours, std, openssl []float64
			// One block runs on the calling goroutine: keep it on one
			// thread so that the thread's CPU clock measures it.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			Key(c.h, password, salt, c.iter/10, size) // warm up
			runners := []func(){
				func() {
					t := threadCPU(b)
					Key(c.h, password, salt, c.iter, size)
					ours = append(ours, float64(c.iter)/(threadCPU(b)-t))
				},
				func() {
					t := threadCPU(b)
					if _, err := stdpbkdf2.Key(c.h, string(password), salt, c.iter, size); err != nil {
						b.Fatal(err)
					}
					std = append(std, float64(c.iter)/(threadCPU(b)-t))
				},
			}
			if ossl != "" && c.osslName != "" {
				runners = append(runners, func() {
					out, err := exec.Command(ossl, c.osslName, strconv.Itoa(c.iter), strconv.Itoa(size), "1").Output()
					if err != nil {
						b.Fatalf("%s: %v", ossl, err)
					}
					v, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
					if err != nil {
						b.Fatalf("%s printed %q", ossl, out)
					}
					openssl = append(openssl, v)
				})
			}
			for b.Loop() {
				for r := 0; r < rounds; r++ {
					// Each round starts with the next variant: whichever
					// runs right after the OpenSSL process starts slower.
					for i := range runners {
						runners[(r+i)%len(runners)]()
					}
				}
			}
			// The ratios are medians of each round's ratio: the runs of a
			// round are adjacent in time and share the machine's load.
			b.ReportMetric(median(ours), "ours-iters/s")
			b.ReportMetric(median(std), "std-iters/s")
			b.ReportMetric(medianRatio(ours, std), "ours/std")
			if len(openssl) > 0 {
				b.ReportMetric(median(openssl), "openssl-iters/s")
				b.ReportMetric(medianRatio(ours, openssl), "ours/openssl")
				b.ReportMetric(medianRatio(std, openssl), "std/openssl")
			}
		})
	}
}

// threadCPU returns the calling thread's CPU time in seconds.
func threadCPU(b *testing.B) float64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		b.Fatal(err)
	}
	return float64(ts.Sec) + float64(ts.Nsec)/1e9
}

func medianRatio(a, b []float64) float64 {
	r := make([]float64, len(a))
	for i := range a {
		r[i] = a[i] / b[i]
	}
	return median(r)
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
