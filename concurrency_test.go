package xts_test

import (
	"bytes"
	"crypto/aes"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/fastxts/xts"
)

// A concJob is one operation of the concurrency test with its input and
// the output that a sequential run produced.
type concJob struct {
	kind   int // 0 Encrypt/Decrypt, 1 *WithTweak, 2 Unit, 3 *Sectors
	sector uint64
	tweak  [16]byte
	in     []byte
	cuts   []int // Unit part boundaries (multiples of 16)
	secSz  int
	enc    []byte // expected encryption of in
	dec    []byte // expected decryption of in
}

func (j *concJob) run(c *xts.Cipher, decrypt bool) []byte {
	out := make([]byte, len(j.in))
	switch j.kind {
	case 0:
		if decrypt {
			c.Decrypt(out, j.in, j.sector)
		} else {
			c.Encrypt(out, j.in, j.sector)
		}
	case 1:
		if decrypt {
			c.DecryptWithTweak(out, j.in, j.tweak)
		} else {
			c.EncryptWithTweak(out, j.in, j.tweak)
		}
	case 2:
		var u *xts.Unit
		if decrypt {
			u = c.NewDecrypter(j.tweak)
		} else {
			u = c.NewEncrypter(j.tweak)
		}
		prev := 0
		for _, cut := range j.cuts {
			u.Update(out[prev:cut], j.in[prev:cut])
			prev = cut
		}
		u.Final(out[prev:], j.in[prev:])
	case 3:
		if decrypt {
			c.DecryptSectors(out, j.in, j.secSz, j.sector)
		} else {
			c.EncryptSectors(out, j.in, j.secSz, j.sector)
		}
	}
	return out
}

func makeConcJobs(rng *rand.Rand, count int, short bool) []*concJob {
	maxLen := 20000
	if short {
		maxLen = 3000
	}
	jobs := make([]*concJob, count)
	for i := range jobs {
		j := &concJob{kind: i % 4, sector: randSector(rng)}
		copy(j.tweak[:], randBytes(rng, 16))
		n := 16 + rng.IntN(maxLen)
		switch j.kind {
		case 2:
			for at := 16 * rng.IntN(n/32+1); at <= n-16; at += 16 * (1 + rng.IntN(40)) {
				j.cuts = append(j.cuts, at)
			}
		case 3:
			// Enough sectors to cross the small parallel threshold the
			// test sets, so the call also fans out to worker goroutines.
			j.secSz = []int{512, 4096, 528}[rng.IntN(3)]
			n = j.secSz * (1 + rng.IntN(maxLen/j.secSz+8))
		}
		j.in = randBytes(rng, n)
		jobs[i] = j
	}
	return jobs
}

// TestConcurrentUse shares one Cipher per implementation among many
// goroutines that run Encrypt, Decrypt, the tweak forms, multi-part Units
// and the sector calls (with parallelism forced on at small sizes, so the
// calls also spawn their own workers) at once, in different orders, and
// compares every result with a sequential run. Meant for -race; in -short
// mode the buffers are smaller.
func TestConcurrentUse(t *testing.T) {
	rng := testRand(t)
	const goroutines = 12
	rounds, jobCount := 3, 24
	if testing.Short() {
		rounds, jobCount = 2, 16
	}
	for _, name := range availableImpls(t) {
		t.Run(name, func(t *testing.T) {
			key := randKey(rng, 64)
			c := newImplCipher(t, name, key, xts.WithParallelThreshold(4096))
			jobs := makeConcJobs(rng, jobCount, testing.Short())
			for _, j := range jobs {
				j.enc = j.run(c, false)
				j.dec = j.run(c, true)
			}

			var wg sync.WaitGroup
			errs := make(chan string, goroutines*rounds*jobCount*2)
			for g := range goroutines {
				wg.Go(func() {
					for r := range rounds {
						for k := range jobs {
							j := jobs[(k*(g+1)+r)%len(jobs)] // a different order per goroutine
							decrypt := (g+k+r)%2 == 1
							got := j.run(c, decrypt)
							want := j.enc
							if decrypt {
								want = j.dec
							}
							if !bytes.Equal(got, want) {
								errs <- fmt.Sprintf("goroutine %d: kind %d, len %d, decrypt %v: differs from the sequential result", g, j.kind, len(j.in), decrypt)
							}
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			n := 0
			for e := range errs {
				if n++; n <= 10 {
					t.Error(e)
				}
			}
			if n > 10 {
				t.Errorf("... and %d more", n-10)
			}
		})
	}
}

// TestConcurrentConstruction builds Ciphers and lists implementations from
// many goroutines at once (the registry may be set up lazily), and checks
// that every such Cipher agrees with one built beforehand.
func TestConcurrentConstruction(t *testing.T) {
	rng := testRand(t)
	impls := availableImpls(t)
	key := randKey(rng, 32)
	pt := randBytes(rng, 1000)
	want := make(map[string][]byte)
	for _, name := range impls {
		out := make([]byte, len(pt))
		newImplCipher(t, name, key).Encrypt(out, pt, 42)
		want[name] = out
	}
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			if len(xts.Implementations()) == 0 {
				t.Error("Implementations() empty")
			}
			name := impls[g%len(impls)]
			c, err := xts.NewCipher(aes.NewCipher, key, xts.WithImplementation(name))
			if err != nil {
				t.Error(err)
				return
			}
			out := make([]byte, len(pt))
			c.Encrypt(out, pt, 42)
			if !bytes.Equal(out, want[name]) {
				t.Errorf("%s: Cipher built concurrently gives a different result", name)
			}
		})
	}
	wg.Wait()
}
