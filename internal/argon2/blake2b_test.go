package argon2

import (
	"bytes"
	"encoding/hex"
	"math/rand/v2"
	"testing"

	xblake2b "golang.org/x/crypto/blake2b"
)

// RFC 7693 Appendix A: BLAKE2b-512("abc").
func TestBlake2bRFC7693(t *testing.T) {
	want, _ := hex.DecodeString("ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1" +
		"7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923")
	d := newBlake2b(64)
	d.Write([]byte("abc"))
	if got := d.Sum(nil); !bytes.Equal(got, want) {
		t.Errorf("BLAKE2b-512(abc) = %x, want %x", got, want)
	}
}

// Every digest size, inputs around the block boundaries, written in random
// pieces, against x/crypto/blake2b; Sum leaves the running hash alone and
// Reset starts over.
func TestBlake2bMatchesXCrypto(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	lengths := []int{0, 1, 63, 64, 127, 128, 129, 255, 256, 257, 1000, 1024 + 72}
	for range 20 {
		lengths = append(lengths, rng.IntN(3000))
	}
	for size := 1; size <= 64; size++ {
		for _, n := range lengths {
			msg := make([]byte, n)
			for i := range msg {
				msg[i] = byte(rng.Uint32())
			}
			x, _ := xblake2b.New(size, nil)
			x.Write(msg)
			want := x.Sum(nil)

			d := newBlake2b(size)
			d.Write([]byte("discarded by Reset"))
			d.Reset()
			for rest := msg; len(rest) > 0; {
				k := min(len(rest), rng.IntN(300))
				d.Write(rest[:k])
				rest = rest[k:]
			}
			if got := d.Sum(nil); !bytes.Equal(got, want) {
				t.Fatalf("size %d, %d bytes: %x, want %x", size, n, got, want)
			}
			if got := d.Sum([]byte{7}); !bytes.Equal(got[1:], want) || got[0] != 7 {
				t.Fatalf("size %d, %d bytes: a second Sum differs", size, n)
			}
		}
	}
}

func TestBlake2bSizePanics(t *testing.T) {
	for _, size := range []int{0, 65, -1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("newBlake2b(%d) did not panic", size)
				}
			}()
			newBlake2b(size)
		}()
	}
}
