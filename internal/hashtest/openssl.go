//go:build openssl && cgo

package hashtest

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/fastxts/xts/internal/hash/osslhash"
)

// OpenSSL compares Sum with OpenSSL's digest name, an independent
// implementation, on every length 0…300 and random lengths up to 20,000.
func OpenSSL(t *testing.T, h Hash, name string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 8))
	var lengths []int
	for n := 0; n <= 300; n++ {
		lengths = append(lengths, n)
	}
	for range 100 {
		lengths = append(lengths, rng.IntN(20001))
	}
	for _, n := range lengths {
		msg := randBytes(rng, n)
		want, err := osslhash.Digest(name, msg)
		if err != nil {
			t.Fatal(err)
		}
		if got := h.Sum(msg); !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: got %x, OpenSSL %x", n, got, want)
		}
	}
}
