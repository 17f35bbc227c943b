// Package hashtest holds the tests that every hash of internal/hash
// (ripemd160, whirlpool, streebog) must pass, written once: known answers
// through New, Sum and Reset, sizes, split writes, marshaling and cloning,
// refused states, a restored-state (key cache) check and a benchmark. With
// the build tags "openssl" and cgo it also compares a hash with OpenSSL's
// (package internal/hash/osslhash).
//
// Only tests import it; each package keeps its own vectors.
package hashtest

import (
	"bytes"
	"encoding"
	"encoding/hex"
	"hash"
	"math/rand/v2"
	"strings"
	"testing"
)

// Hash describes the hash under test.
type Hash struct {
	// Name is the package name, the prefix of its errors.
	Name string
	// New returns a new digest.
	New func() hash.Hash
	// Sum is the package's one-shot function, as a slice.
	Sum func(data []byte) []byte
	// Size and BlockSize are what New's digests must report.
	Size, BlockSize int
	// MarshaledSize is the length of a marshaled state.
	MarshaledSize int
}

// Vector is a message and its digest in hex (an alias of an unnamed
// struct type, so that the packages' tables can stay unkeyed).
type Vector = struct {
	Name, In, Want string
}

// Vectors checks every vector through New (Sum twice: it must not disturb
// the state), the one-shot Sum, and Reset followed by Sum with a prefix.
func Vectors(t *testing.T, h Hash, vs []Vector) {
	t.Helper()
	for _, v := range vs {
		t.Run(v.Name, func(t *testing.T) {
			d := h.New()
			d.Write([]byte(v.In))
			if got := hex.EncodeToString(d.Sum(nil)); got != v.Want {
				t.Errorf("New: got %s, want %s", got, v.Want)
			}
			if got := hex.EncodeToString(d.Sum(nil)); got != v.Want {
				t.Errorf("second Sum: got %s, want %s", got, v.Want)
			}
			if got := hex.EncodeToString(h.Sum([]byte(v.In))); got != v.Want {
				t.Errorf("Sum: got %s, want %s", got, v.Want)
			}
			d.Reset()
			d.Write([]byte(v.In))
			if got := hex.EncodeToString(d.Sum([]byte{0xee})); got != "ee"+v.Want {
				t.Errorf("after Reset, Sum(prefix): got %s, want ee%s", got, v.Want)
			}
		})
	}
}

// Sizes checks the Size and BlockSize of New's digests and the length of
// Sum's.
func Sizes(t *testing.T, h Hash) {
	t.Helper()
	d := h.New()
	if d.Size() != h.Size || d.BlockSize() != h.BlockSize || len(h.Sum(nil)) != h.Size {
		t.Errorf("Size %d BlockSize %d Sum %d bytes, want %d, %d", d.Size(), d.BlockSize(), len(h.Sum(nil)), h.Size, h.BlockSize)
	}
}

// SplitWrites feeds random messages of every length below 300 (around the
// block and padding boundaries) in random pieces and compares with Sum.
func SplitWrites(t *testing.T, h Hash) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 300 {
		msg := randBytes(rng, n)
		want := h.Sum(msg)
		for range 4 {
			d := h.New()
			rest := msg
			for len(rest) > 0 {
				k := rng.IntN(len(rest) + 1)
				d.Write(rest[:k])
				rest = rest[k:]
			}
			if got := d.Sum(nil); !bytes.Equal(got, want) {
				t.Fatalf("len %d: split writes give %x, one write %x", n, got, want)
			}
		}
	}
}

// Marshal saves the state at every offset of a message, restores it into
// a digest that had other input and takes a clone, and checks that both
// finish with the right sum, and that the state has MarshaledSize bytes.
func Marshal(t *testing.T, h Hash) {
	t.Helper()
	msg := []byte(strings.Repeat("The quick brown fox jumps over the lazy dog. ", 5))
	want := h.Sum(msg)
	for cut := 0; cut <= len(msg); cut++ {
		d := h.New()
		d.Write(msg[:cut])
		state, err := d.(encoding.BinaryMarshaler).MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if len(state) != h.MarshaledSize {
			t.Fatalf("state is %d bytes, want %d", len(state), h.MarshaledSize)
		}
		if app, err := d.(encoding.BinaryAppender).AppendBinary([]byte{0xee}); err != nil || !bytes.Equal(app, append([]byte{0xee}, state...)) {
			t.Fatalf("cut %d: AppendBinary gives %x, %v", cut, app, err)
		}
		d2 := h.New()
		d2.Write([]byte("garbage to be overwritten"))
		if err := d2.(encoding.BinaryUnmarshaler).UnmarshalBinary(state); err != nil {
			t.Fatal(err)
		}
		c, err := d.(hash.Cloner).Clone()
		if err != nil {
			t.Fatal(err)
		}
		d.Write([]byte("diverge")) // must not affect the clone
		for name, dd := range map[string]hash.Hash{"unmarshaled": d2, "clone": c} {
			dd.Write(msg[cut:])
			if got := dd.Sum(nil); !bytes.Equal(got, want) {
				t.Fatalf("cut %d, %s: got %x want %x", cut, name, got, want)
			}
		}
	}
}

// BadState is a state that UnmarshalBinary must refuse, and the
// constructor of the digest to give it to.
type BadState struct {
	New   func() hash.Hash
	State []byte
}

// UnmarshalErrors checks that UnmarshalBinary refuses, with an error
// prefixed by the package name, an empty state, one with a wrong magic, a
// short and a long one, and the states of extra.
func UnmarshalErrors(t *testing.T, h Hash, extra map[string]BadState) {
	t.Helper()
	good, err := h.New().(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]BadState{
		"empty":     {h.New, nil},
		"bad magic": {h.New, append([]byte("xxx"), good[3:]...)},
		"short":     {h.New, good[:len(good)-1]},
		"long":      {h.New, append(bytes.Clone(good), 0)},
	}
	for name, c := range extra {
		cases[name] = c
	}
	for name, c := range cases {
		if err := c.New().(encoding.BinaryUnmarshaler).UnmarshalBinary(c.State); err == nil || !strings.HasPrefix(err.Error(), h.Name+": ") {
			t.Errorf("%s: err = %v, want a %s error", name, err, h.Name)
		}
	}
}

// KeyCache restores saved states (as HMAC does) after prefixes of the
// lengths given and hashes messages of every length below 200 after them,
// switching between states at random so that a cache of derived keys both
// hits and misses, and compares with hashing the whole message from
// scratch. After Reset, cached must report false (nothing left valid) and
// the digest must still give the right sums.
func KeyCache(t *testing.T, h Hash, prefixLens []int, cached func(hash.Hash) bool) {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 12))
	states := make([][]byte, len(prefixLens))
	prefixes := make([][]byte, len(prefixLens))
	for i, n := range prefixLens {
		prefixes[i] = randBytes(rng, n)
		d := h.New()
		d.Write(prefixes[i])
		states[i], _ = d.(encoding.BinaryMarshaler).MarshalBinary()
	}
	d := h.New()
	for n := range 200 {
		i := rng.IntN(len(states))
		msg := randBytes(rng, n)
		if err := d.(encoding.BinaryUnmarshaler).UnmarshalBinary(states[i]); err != nil {
			t.Fatal(err)
		}
		d.Write(msg)
		want := h.Sum(append(bytes.Clone(prefixes[i]), msg...))
		if got := d.Sum(nil); !bytes.Equal(got, want) {
			t.Fatalf("state %d, message %d bytes: got %x, want %x", i, n, got, want)
		}
	}
	d.Reset()
	if cached(d) {
		t.Error("Reset left valid keys in the cache")
	}
	d.Write([]byte("abc"))
	if got, want := d.Sum(nil), h.Sum([]byte("abc")); !bytes.Equal(got, want) {
		t.Errorf("after Reset: %x, want %x", got, want)
	}
}

// Bench benchmarks Write of 8 KiB.
func Bench(b *testing.B, h Hash) {
	buf := make([]byte, 8192)
	d := h.New()
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		d.Write(buf)
	}
}

func randBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}
