package pbkdf2

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"hash"
	"sync/atomic"
	"testing"

	"github.com/fastxts/xts/internal/hash/whirlpool"
)

// TestDeriver: the Deriver's blocks, in any order, are Key's; a stop
// already set ends a block early with false.
func TestDeriver(t *testing.T) {
	for _, h := range []func() hash.Hash{sha256.New, sha512.New, whirlpool.New} {
		password, salt := []byte("password"), []byte("salt of the header")
		want := Key(h, password, salt, 2000, 3*h().Size())
		d := NewDeriver(h, password, salt, 2000)
		got := make([]byte, 3*d.Size())
		for _, i := range []int{3, 1, 2} {
			if !d.Block(got[(i-1)*d.Size():], uint32(i), nil) {
				t.Fatalf("block %d stopped without a stop", i)
			}
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%T: the Deriver's blocks differ from Key", h())
		}
		var stop atomic.Bool
		stop.Store(true)
		if d.Block(make([]byte, d.Size()), 1, &stop) {
			t.Errorf("%T: a stopped block of 2000 iterations ran to the end", h())
		}
		d.Wipe()
	}
}
