package ripemd160

import (
	"bytes"
	"encoding"
	"encoding/hex"
	"hash"
	"math/rand/v2"
	"strings"
	"testing"
)

// The test vectors of the RIPEMD-160 page (Bosselaers), the same set
// ISO/IEC 10118-3 gives.
var vectors = []struct {
	name, in, want string
}{
	{"empty", "", "9c1185a5c5e9fc54612808977ee8f548b2258d31"},
	{"a", "a", "0bdc9d2d256b3ee9daae347be6f4dc835a467ffe"},
	{"abc", "abc", "8eb208f7e05d987a9b044a8e98c6b087f15a0bfc"},
	{"message digest", "message digest", "5d0689ef49d2fae572b881b123a85ffa21595f36"},
	{"a-z", "abcdefghijklmnopqrstuvwxyz", "f71c27109c692c1b56bbdceb5b9d2865b3708dbc"},
	{"abcdbcde...", "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "12a053384a9c0c88e405a06c27dcf49ada62eb2b"},
	{"A-Za-z0-9", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "b0e20b6e3116640286ed3a87a5713079b21f5189"},
	{"8x1234567890", strings.Repeat("1234567890", 8), "9b752e45573d4b39f4dbd3323cab82bf63326bfb"},
	{"1M a", strings.Repeat("a", 1000000), "52783243c1697bdbe16d37f97f68f08325dc1528"},
}

func TestVectors(t *testing.T) {
	for _, v := range vectors {
		t.Run(v.name, func(t *testing.T) {
			h := New()
			h.Write([]byte(v.in))
			if got := hex.EncodeToString(h.Sum(nil)); got != v.want {
				t.Errorf("New: got %s, want %s", got, v.want)
			}
			// Sum must not disturb the state: a second Sum agrees.
			if got := hex.EncodeToString(h.Sum(nil)); got != v.want {
				t.Errorf("second Sum: got %s, want %s", got, v.want)
			}
			s := Sum([]byte(v.in))
			if got := hex.EncodeToString(s[:]); got != v.want {
				t.Errorf("Sum: got %s, want %s", got, v.want)
			}
			h.Reset()
			h.Write([]byte(v.in))
			if got := hex.EncodeToString(h.Sum([]byte{0xee})); got != "ee"+v.want {
				t.Errorf("after Reset, Sum(prefix): got %s, want ee%s", got, v.want)
			}
		})
	}
}

func TestSizes(t *testing.T) {
	h := New()
	if h.Size() != Size || Size != 20 || h.BlockSize() != BlockSize || BlockSize != 64 {
		t.Errorf("Size %d BlockSize %d", h.Size(), h.BlockSize())
	}
}

// TestSplitWrites feeds random messages in random pieces (every length
// around the block and padding boundaries) and compares with one Write.
func TestSplitWrites(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 300; n++ {
		msg := make([]byte, n)
		for i := range msg {
			msg[i] = byte(rng.Uint32())
		}
		want := Sum(msg)
		for trial := 0; trial < 4; trial++ {
			h := New()
			rest := msg
			for len(rest) > 0 {
				k := rng.IntN(len(rest) + 1)
				h.Write(rest[:k])
				rest = rest[k:]
			}
			if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
				t.Fatalf("len %d: split writes give %x, one write %x", n, got, want)
			}
		}
	}
}

// TestMarshal saves the state at every offset, restores it into a fresh
// digest and a clone, and checks that both finish with the right sum.
func TestMarshal(t *testing.T) {
	msg := []byte(strings.Repeat("The quick brown fox jumps over the lazy dog. ", 5))
	want := Sum(msg)
	for cut := 0; cut <= len(msg); cut++ {
		h := New()
		h.Write(msg[:cut])
		state, err := h.(encoding.BinaryMarshaler).MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if len(state) != marshaledSize {
			t.Fatalf("state is %d bytes, want %d", len(state), marshaledSize)
		}
		h2 := New()
		h2.Write([]byte("garbage to be overwritten"))
		if err := h2.(encoding.BinaryUnmarshaler).UnmarshalBinary(state); err != nil {
			t.Fatal(err)
		}
		c, err := h.(hash.Cloner).Clone()
		if err != nil {
			t.Fatal(err)
		}
		h.Write([]byte("diverge")) // must not affect the clone
		for name, hh := range map[string]hash.Hash{"unmarshaled": h2, "clone": c} {
			hh.Write(msg[cut:])
			if got := hh.Sum(nil); !bytes.Equal(got, want[:]) {
				t.Fatalf("cut %d, %s: got %x want %x", cut, name, got, want)
			}
		}
	}
}

func TestUnmarshalErrors(t *testing.T) {
	good, _ := New().(encoding.BinaryMarshaler).MarshalBinary()
	bad := append([]byte("xxx\x01"), good[4:]...)
	for name, b := range map[string][]byte{
		"empty":     nil,
		"bad magic": bad,
		"short":     good[:len(good)-1],
		"long":      append(append([]byte{}, good...), 0),
	} {
		if err := New().(encoding.BinaryUnmarshaler).UnmarshalBinary(b); err == nil || !strings.HasPrefix(err.Error(), "ripemd160: ") {
			t.Errorf("%s: err = %v, want a ripemd160 error", name, err)
		}
	}
}

func BenchmarkBlock(b *testing.B) {
	buf := make([]byte, 8192)
	h := New()
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		h.Write(buf)
	}
}

// TestGeneratedBlocks compares the generated, unrolled compression with
// the table-driven step loop on random states and blocks.
func TestGeneratedBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	p := make([]byte, 4*BlockSize)
	for trial := 0; trial < 200; trial++ {
		var h1 [5]uint32
		for i := range h1 {
			h1[i] = rng.Uint32()
		}
		for i := range p {
			p[i] = byte(rng.Uint32())
		}
		h2 := h1
		blocks(&h1, p)
		blocksGeneric(&h2, p)
		if h1 != h2 {
			t.Fatalf("trial %d: generated %08x, loop %08x", trial, h1, h2)
		}
	}
}

func BenchmarkCompress(b *testing.B) {
	p := make([]byte, 8192)
	var h [5]uint32
	b.Run("unrolled", func(b *testing.B) {
		b.SetBytes(int64(len(p)))
		for b.Loop() {
			blocks(&h, p)
		}
	})
	b.Run("loop", func(b *testing.B) {
		b.SetBytes(int64(len(p)))
		for b.Loop() {
			blocksGeneric(&h, p)
		}
	})
}
