package streebog

import (
	"bytes"
	"encoding"
	"encoding/hex"
	"hash"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fastxts/xts/internal/hashtest"
)

// reversed decodes hex written as RFC 6986 writes numbers (most
// significant byte first) into the byte string an implementation sees.
func reversed(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(b)
	return b
}

// RFC 6986, section 10 (examples 1 and 2), as the RFC prints them.
const (
	rfcM1     = "323130393837363534333231303938373635343332313039383736353433323130393837363534333231303938373635343332313039383736353433323130"
	rfcM1H512 = "486f64c1917879417fef082b3381a4e211c324f074654c38823a7b76f830ad00fa1fbae42b1285c0352f227524bc9ab16254288dd6863dccd5b9f54a1ad0541b"
	rfcM1H256 = "00557be5e584fd52a449b16b0251d05d27f94ab76cbaa6da890b59d8ef1e159d"
	// M2 is "Се ветри, Стрибожи внуци, веютъ с моря стрелами на храбрыя
	// плъкы Игоревы" in CP1251, 72 bytes: two blocks.
	rfcM2     = "fbe2e5f0eee3c820fbeafaebef20fffbf0e1e0f0f520e0ed20e8ece0ebe5f0f2f120fff0eeec20f120faf2fee5e2202ce8f6f3ede220e8e6eee1e8f0f2d1202ce8f0f2e5e220e5d1"
	rfcM2H512 = "28fbc9bada033b1460642bdcddb90c3fb3e56c497ccd0f62b8a2ad4935e85f037613966de4ee00531ae60f3b5a47f8dae06915d5f2f194996fcabf2622e6881e"
	rfcM2H256 = "508f7e553c06501d749a66fc28c6cac0b005746d97537fa85d9e40904efed29d"
)

func TestRFC6986(t *testing.T) {
	m1 := reversed(t, rfcM1)
	if string(m1) != "012345678901234567890123456789012345678901234567890123456789012" {
		t.Fatalf("M1 reversed is %q, not the ASCII digits", m1)
	}
	for _, v := range []struct {
		name     string
		msg      string
		h512     string
		h256     string
		msgBytes int
	}{
		{"M1", rfcM1, rfcM1H512, rfcM1H256, 63},
		{"M2", rfcM2, rfcM2H512, rfcM2H256, 72},
	} {
		t.Run(v.name, func(t *testing.T) {
			msg := reversed(t, v.msg)
			if len(msg) != v.msgBytes {
				t.Fatalf("message is %d bytes, want %d", len(msg), v.msgBytes)
			}
			check := func(name string, h hash.Hash, want []byte) {
				t.Helper()
				h.Write(msg)
				if got := h.Sum(nil); !bytes.Equal(got, want) {
					t.Errorf("%s: got %x, want %x", name, got, want)
				}
			}
			check("New512", New512(), reversed(t, v.h512))
			check("New256", New256(), reversed(t, v.h256))
			if s := Sum512(msg); !bytes.Equal(s[:], reversed(t, v.h512)) {
				t.Errorf("Sum512: got %x", s)
			}
			if s := Sum256(msg); !bytes.Equal(s[:], reversed(t, v.h256)) {
				t.Errorf("Sum256: got %x", s)
			}
		})
	}
}

// Vectors quoted by other implementations in byte-string order (the
// empty message and the pangram appear on the Streebog Wikipedia page
// and in the OpenSSL GOST engine's tests).
var vectors = []struct {
	name, in, h512, h256 string
}{
	{"empty", "",
		"8e945da209aa869f0455928529bcae4679e9873ab707b55315f56ceb98bef0a7362f715528356ee83cda5f2aac4c6ad2ba3a715c1bcd81cb8e9f90bf4c1c1a8a",
		"3f539a213e97c802cc229d474c6aa32a825a360b2a933a949fd925208d9ce1bb"},
	{"fox", "The quick brown fox jumps over the lazy dog",
		"d2b793a0bb6cb5904828b5b6dcfb443bb8f33efc06ad09368878ae4cdc8245b97e60802469bed1e7c21a64ff0b179a6a1e0bb74d92965450a0adab69162c00fe",
		"3e7dea7f2384b6c5a3d0e24aaa29c05e89ddd762145030ec22c71a6db8b2c1f4"},
	{"fox.", "The quick brown fox jumps over the lazy dog.",
		"fe0c42f267d921f940faa72bd9fcf84f9f1bd7e9d055e9816e4c2ace1ec83be82d2957cd59b86e123d8f5adee80b3ca08a017599a9fc1a14d940cf87c77df070",
		"36816a824dcbe7d6171aa58500741f2ea2757ae2e1784ab72c5c3c6c198d71da"},
}

var (
	spec512 = hashtest.Hash{
		Name:          "streebog",
		New:           New512,
		Sum:           func(b []byte) []byte { s := Sum512(b); return s[:] },
		Size:          Size512,
		BlockSize:     BlockSize,
		MarshaledSize: marshaledSize,
	}
	spec256 = hashtest.Hash{
		Name:          "streebog",
		New:           New256,
		Sum:           func(b []byte) []byte { s := Sum256(b); return s[:] },
		Size:          Size256,
		BlockSize:     BlockSize,
		MarshaledSize: marshaledSize,
	}
)

// forBoth runs f as subtests "512" and "256".
func forBoth(t *testing.T, f func(t *testing.T, h hashtest.Hash)) {
	t.Run("512", func(t *testing.T) { f(t, spec512) })
	t.Run("256", func(t *testing.T) { f(t, spec256) })
}

func TestVectors(t *testing.T) {
	var v512, v256 []hashtest.Vector
	for _, v := range vectors {
		v512 = append(v512, hashtest.Vector{Name: v.name, In: v.in, Want: v.h512})
		v256 = append(v256, hashtest.Vector{Name: v.name, In: v.in, Want: v.h256})
	}
	t.Run("512", func(t *testing.T) { hashtest.Vectors(t, spec512, v512) })
	t.Run("256", func(t *testing.T) { hashtest.Vectors(t, spec256, v256) })
}

func TestSizes(t *testing.T) {
	if Size512 != 64 || Size256 != 32 || BlockSize != 64 {
		t.Errorf("Size512 %d Size256 %d BlockSize %d", Size512, Size256, BlockSize)
	}
	forBoth(t, hashtest.Sizes)
}

// The reference below follows RFC 6986 word for word on byte slices of
// the RFC's value, index 0 the least significant byte, with S, P and L as
// separate steps and no tables; the package's merged tables must agree
// with it.

func refX(a, b []byte) []byte {
	out := make([]byte, 64)
	for i := range out {
		out[i] = a[i] ^ b[i]
	}
	return out
}

func refS(a []byte) []byte {
	out := make([]byte, 64)
	for i, v := range a {
		out[i] = pi[v]
	}
	return out
}

func refP(a []byte) []byte {
	out := make([]byte, 64)
	for i := range out {
		out[i] = a[8*(i%8)+i/8]
	}
	return out
}

func refL(a []byte) []byte {
	out := make([]byte, 64)
	for w := 0; w < 8; w++ {
		// The 64-bit word w; its bit 63-i selects A_i.
		var word, acc uint64
		for b := 7; b >= 0; b-- {
			word = word<<8 | uint64(a[8*w+b])
		}
		for i := 0; i < 64; i++ {
			if word>>(63-i)&1 != 0 {
				acc ^= matA[i]
			}
		}
		for b := 0; b < 8; b++ {
			out[8*w+b] = byte(acc >> (8 * b))
		}
	}
	return out
}

func refLPS(a []byte) []byte { return refL(refP(refS(a))) }

func refC(i int) []byte {
	out := make([]byte, 64)
	for w, v := range iterC[i] {
		for b := 0; b < 8; b++ {
			out[8*w+b] = byte(v >> (8 * b))
		}
	}
	return out
}

func refG(n, h, m []byte) []byte {
	k := refLPS(refX(h, n))
	s := m
	for i := 0; i < 12; i++ {
		s = refLPS(refX(k, s))
		k = refLPS(refX(k, refC(i)))
	}
	return refX(refX(refX(k, s), h), m)
}

func refAdd(a, b []byte) []byte {
	out := make([]byte, 64)
	c := 0
	for i := range out {
		c += int(a[i]) + int(b[i])
		out[i] = byte(c)
		c >>= 8
	}
	return out
}

func refNum(v int) []byte {
	out := make([]byte, 64)
	for i := 0; v != 0; i++ {
		out[i] = byte(v)
		v >>= 8
	}
	return out
}

func refHash(msg []byte, size int) []byte {
	h := make([]byte, 64)
	if size == 32 {
		for i := range h {
			h[i] = 1
		}
	}
	n, sigma, zero := refNum(0), refNum(0), refNum(0)
	for len(msg) >= 64 {
		m := msg[:64]
		h = refG(n, h, m)
		n = refAdd(n, refNum(512))
		sigma = refAdd(sigma, m)
		msg = msg[64:]
	}
	m := make([]byte, 64)
	copy(m, msg)
	m[len(msg)] = 1
	h = refG(n, h, m)
	n = refAdd(n, refNum(8*len(msg)))
	sigma = refAdd(sigma, m)
	h = refG(zero, h, n)
	h = refG(zero, h, sigma)
	return h[64-size:]
}

func TestReference(t *testing.T) {
	if got := refHash(reversed(t, rfcM2), 64); !bytes.Equal(got, reversed(t, rfcM2H512)) {
		t.Fatalf("the reference itself fails RFC 6986 M2: %x", got)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	lengths := []int{0, 1, 31, 32, 63, 64, 65, 127, 128, 129, 200, 256, 511}
	for _, n := range lengths {
		for _, fill := range []string{"random", "ff", "00"} {
			msg := make([]byte, n)
			for i := range msg {
				switch fill {
				case "random":
					msg[i] = byte(rng.Uint32())
				case "ff": // Σ carries through every byte
					msg[i] = 0xff
				}
			}
			s512, s256 := Sum512(msg), Sum256(msg)
			if want := refHash(msg, 64); !bytes.Equal(s512[:], want) {
				t.Errorf("512, %d bytes %s: got %x, reference %x", n, fill, s512, want)
			}
			if want := refHash(msg, 32); !bytes.Equal(s256[:], want) {
				t.Errorf("256, %d bytes %s: got %x, reference %x", n, fill, s256, want)
			}
		}
	}
}

// TestSplitWrites feeds random messages in random pieces and compares
// with one Write.
func TestSplitWrites(t *testing.T) { forBoth(t, hashtest.SplitWrites) }

func TestMarshal(t *testing.T) { forBoth(t, hashtest.Marshal) }

func TestUnmarshalErrors(t *testing.T) {
	good, _ := New512().(encoding.BinaryMarshaler).MarshalBinary()
	good256, _ := New256().(encoding.BinaryMarshaler).MarshalBinary()
	highN := slices.Clone(good)
	highN[4+128+8] = 1
	badNx := slices.Clone(good)
	badNx[len(badNx)-1] = 64
	extra := map[string]hashtest.BadState{
		"256 state, 512": {New: New512, State: good256},
		"512 state, 256": {New: New256, State: good},
		"N too large":    {New: New512, State: highN},
		"bad nx":         {New: New512, State: badNx},
	}
	forBoth(t, func(t *testing.T, h hashtest.Hash) { hashtest.UnmarshalErrors(t, h, extra) })
}

func BenchmarkBlock512(b *testing.B) { hashtest.Bench(b, spec512) }

// TestKeyCache restores saved states (as HMAC does, with empty and with
// partial buffers) and hashes messages of every length after them,
// switching between states so that the key cache both hits and misses,
// and compares with hashing the whole message from scratch; Reset clears
// the cache.
func TestKeyCache(t *testing.T) {
	forBoth(t, func(t *testing.T, h hashtest.Hash) {
		hashtest.KeyCache(t, h, []int{64, 128, 100}, func(h hash.Hash) bool {
			d := h.(*digest)
			return d.cache != nil && d.cache.valid
		})
	})
}
