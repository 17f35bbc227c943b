//go:build openssl && cgo

package ripemd160

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/fastxts/xts/internal/hash/osslhash"
)

// TestOpenSSL compares Sum with OpenSSL's RIPEMD160, an independent
// implementation, on every length 0…300 and random lengths up to 20,000.
//
// Needs cgo and libssl-dev: go test -tags openssl -run OpenSSL ./internal/hash/...
func TestOpenSSL(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var lengths []int
	for n := 0; n <= 300; n++ {
		lengths = append(lengths, n)
	}
	for range 100 {
		lengths = append(lengths, rng.IntN(20001))
	}
	for _, n := range lengths {
		msg := make([]byte, n)
		for i := range msg {
			msg[i] = byte(rng.Uint32())
		}
		want, err := osslhash.Digest("RIPEMD160", msg)
		if err != nil {
			t.Fatal(err)
		}
		if got := Sum(msg); !bytes.Equal(got[:], want) {
			t.Fatalf("%d bytes: got %x, OpenSSL %x", n, got, want)
		}
	}
}
