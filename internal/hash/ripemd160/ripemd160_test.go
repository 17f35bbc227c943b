package ripemd160

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fastxts/xts/internal/hashtest"
)

// The test vectors of the RIPEMD-160 page (Bosselaers), the same set
// ISO/IEC 10118-3 gives.
var vectors = []hashtest.Vector{
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

var spec = hashtest.Hash{
	Name:          "ripemd160",
	New:           New,
	Sum:           func(b []byte) []byte { s := Sum(b); return s[:] },
	Size:          Size,
	BlockSize:     BlockSize,
	MarshaledSize: marshaledSize,
}

func TestVectors(t *testing.T) { hashtest.Vectors(t, spec, vectors) }

func TestSizes(t *testing.T) {
	if Size != 20 || BlockSize != 64 {
		t.Errorf("Size %d BlockSize %d", Size, BlockSize)
	}
	hashtest.Sizes(t, spec)
}

// TestSplitWrites feeds random messages in random pieces (every length
// around the block and padding boundaries) and compares with one Write.
func TestSplitWrites(t *testing.T) { hashtest.SplitWrites(t, spec) }

// TestMarshal saves the state at every offset, restores it into a fresh
// digest and a clone, and checks that both finish with the right sum.
func TestMarshal(t *testing.T) { hashtest.Marshal(t, spec) }

func TestUnmarshalErrors(t *testing.T) { hashtest.UnmarshalErrors(t, spec, nil) }

func BenchmarkBlock(b *testing.B) { hashtest.Bench(b, spec) }

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
