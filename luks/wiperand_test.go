package luks

import (
	"bytes"
	"compress/flate"
	"testing"
)

// TestWipeRand: the wipe stream does not repeat within a wipe or between
// wipes, and does not compress (as random bytes do not).
func TestWipeRand(t *testing.T) {
	a, err := newWipeRand()
	if err != nil {
		t.Fatal(err)
	}
	b, err := newWipeRand()
	if err != nil {
		t.Fatal(err)
	}
	const n = 1 << 20
	a1, a2, b1 := make([]byte, n), make([]byte, n), make([]byte, n)
	a.fill(a1)
	a.fill(a2)
	b.fill(b1)
	if bytes.Equal(a1, a2) || bytes.Equal(a1, b1) || bytes.Equal(a1[:16], a1[16:32]) {
		t.Fatal("the wipe stream repeats")
	}
	var z bytes.Buffer
	w, _ := flate.NewWriter(&z, flate.BestCompression)
	w.Write(a1)
	w.Close()
	if z.Len() < n {
		t.Fatalf("1 MiB of the wipe stream compresses to %d bytes", z.Len())
	}
}
