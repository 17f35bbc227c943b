package whirlpool

import (
	"bytes"
	"hash"
	"strings"
	"testing"

	"github.com/fastxts/xts/internal/hashtest"
)

// The ISO/IEC 10118-3 vectors of the Whirlpool submission's test file
// (final version), plus the 43-byte pangram.
var vectors = []hashtest.Vector{
	{"empty", "", "19fa61d75522a4669b44e39c1d2e1726c530232130d407f89afee0964997f7a73e83be698b288febcf88e3e03c4f0757ea8964e59b63d93708b138cc42a66eb3"},
	{"a", "a", "8aca2602792aec6f11a67206531fb7d7f0dff59413145e6973c45001d0087b42d11bc645413aeff63a42391a39145a591a92200d560195e53b478584fdae231a"},
	{"abc", "abc", "4e2448a4c6f486bb16b6562c73b4020bf3043e3a731bce721ae1b303d97e6d4c7181eebdb6c57e277d0e34957114cbd6c797fc9d95d8b582d225292076d4eef5"},
	{"message digest", "message digest", "378c84a4126e2dc6e56dcc7458377aac838d00032230f53ce1f5700c0ffb4d3b8421557659ef55c106b4b52ac5a4aaa692ed920052838f3362e86dbd37a8903e"},
	{"a-z", "abcdefghijklmnopqrstuvwxyz", "f1d754662636ffe92c82ebb9212a484a8d38631ead4238f5442ee13b8054e41b08bf2a9251c30b6a0b8aae86177ab4a6f68f673e7207865d5d9819a3dba4eb3b"},
	{"A-Za-z0-9", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "dc37e008cf9ee69bf11f00ed9aba26901dd7c28cdec066cc6af42e40f82f3a1e08eba26629129d8fb7cb57211b9281a65517cc879d7b962142c65f5a7af01467"},
	{"8x1234567890", strings.Repeat("1234567890", 8), "466ef18babb0154d25b9d38a6414f5c08784372bccb204d6549c4afadb6014294d5bd8df2a6c44e538cd047b2681a51a2c60481e88c5a20b2c2a80cf3a9a083b"},
	{"abcdbcde...", "abcdbcdecdefdefgefghfghighijhijk", "2a987ea40f917061f5d6f0a0e4644f488a7a5a52deee656207c562f988e95c6916bdc8031bc5be1b7b947639fe050b56939baaa0adff9ae6745b7b181c3be3fd"},
	{"1M a", strings.Repeat("a", 1000000), "0c99005beb57eff50a7cf005560ddf5d29057fd86b20bfd62deca0f1ccea4af51fc15490eddc47af32bb2b66c34ff9ad8c6008ad677f77126953b226e4ed8b01"},
	{"fox", "The quick brown fox jumps over the lazy dog", "b97de512e91e3828b40d2b0fdce9ceb3c4a71f9bea8d88e75c4fa854df36725fd2b52eb6544edcacd6f8beddfea403cb55ae31f03ad62a5ef54e42ee82c3fb35"},
}

var spec = hashtest.Hash{
	Name:          "whirlpool",
	New:           New,
	Sum:           func(b []byte) []byte { s := Sum(b); return s[:] },
	Size:          Size,
	BlockSize:     BlockSize,
	MarshaledSize: marshaledSize,
}

func TestVectors(t *testing.T) { hashtest.Vectors(t, spec, vectors) }

// TestSBox checks the generated S-box against the first row of the
// specification's table and that it is a permutation.
func TestSBox(t *testing.T) {
	tablesOnce.Do(fillTables)
	first := []byte{0x18, 0x23, 0xc6, 0xe8, 0x87, 0xb8, 0x01, 0x4f, 0x36, 0xa6, 0xd2, 0xf5, 0x79, 0x6f, 0x91, 0x52}
	if !bytes.Equal(sbox[:16], first) {
		t.Errorf("S[0..15] = %x, want %x", sbox[:16], first)
	}
	var seen [256]bool
	for _, v := range sbox {
		if seen[v] {
			t.Fatalf("S-box repeats %#x", v)
		}
		seen[v] = true
	}
}

func TestSizes(t *testing.T) {
	if Size != 64 || BlockSize != 64 {
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

// TestKeyCache restores saved states (as HMAC does) and hashes messages of
// every length after them, switching between two states so that the key
// schedule cache both hits and misses, and compares with hashing the whole
// message from scratch; Reset clears the cache.
func TestKeyCache(t *testing.T) {
	hashtest.KeyCache(t, spec, []int{64, 128}, func(h hash.Hash) bool {
		d := h.(*digest)
		return d.cache != nil && d.cache.valid
	})
}
