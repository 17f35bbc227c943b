package argon2

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"testing"

	xargon2 "golang.org/x/crypto/argon2"
)

// TestRFC9106Vectors checks the Argon2i and Argon2id test vectors of RFC
// 9106 section 5 (password 32×0x01, salt 16×0x02, secret 8×0x03, associated
// data 12×0x04, t=3, m=32 KiB, p=4, 32-byte tag), through deriveKey since
// the exported functions take no secret or associated data.
func TestRFC9106Vectors(t *testing.T) { forEachCompress(t, testRFC9106Vectors) }

func testRFC9106Vectors(t *testing.T) {
	for _, tc := range []struct {
		name string
		y    uint32
		tag  string
	}{
		{"Argon2i", typeArgon2i, "c814d9d1dc7f37aa13f0d77f2494bda1c8de6b016dd388d29952a4c4672b6ce8"},
		{"Argon2id", typeArgon2id, "0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := deriveKey(tc.y, bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 16),
				bytes.Repeat([]byte{3}, 8), bytes.Repeat([]byte{4}, 12), 3, 32, 4, 32, nil)
			if err != nil {
				t.Fatal(err)
			}
			if want, _ := hex.DecodeString(tc.tag); !bytes.Equal(got, want) {
				t.Fatalf("tag %x, want %s", got, tc.tag)
			}
		})
	}
}

// TestMatchesXCrypto compares Key and IDKey with golang.org/x/crypto/argon2
// on random parameters: small and odd memory sizes (below 8*threads KiB
// too, where both raise it), one to nine lanes, one to three passes, key
// lengths from 1 to 200 bytes (over 64 exercises H's chain), random and
// empty passwords and salts.
func TestMatchesXCrypto(t *testing.T) { forEachCompress(t, testMatchesXCrypto) }

func testMatchesXCrypto(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 60
	if testing.Short() {
		n = 15
	}
	for i := 0; i < n; i++ {
		threads := uint8(1 + rng.IntN(9))
		memory := uint32(rng.IntN(300))
		time := uint32(1 + rng.IntN(3))
		keyLen := uint32(1 + rng.IntN(200))
		password := randBytes(rng, rng.IntN(40))
		salt := randBytes(rng, rng.IntN(24))
		name := fmt.Sprintf("t=%d,m=%d,p=%d,len=%d", time, memory, threads, keyLen)
		t.Run(name, func(t *testing.T) {
			if got, want := Key(password, salt, time, memory, threads, keyLen), xargon2.Key(password, salt, time, memory, threads, keyLen); !bytes.Equal(got, want) {
				t.Errorf("Key = %x, x/crypto %x", got, want)
			}
			if got, want := IDKey(password, salt, time, memory, threads, keyLen), xargon2.IDKey(password, salt, time, memory, threads, keyLen); !bytes.Equal(got, want) {
				t.Errorf("IDKey = %x, x/crypto %x", got, want)
			}
		})
	}
}

// TestMatchesXCryptoLarger runs one larger case per variant: enough blocks
// per segment (over 128) that Argon2i needs several address blocks, and the
// later passes' sliding reference window wraps around the lane.
func TestMatchesXCryptoLarger(t *testing.T) { forEachCompress(t, testMatchesXCryptoLarger) }

func testMatchesXCryptoLarger(t *testing.T) {
	password, salt := []byte("correct horse battery staple"), []byte("a salt of 16 b.")
	for _, tc := range []struct {
		time, memory uint32
		threads      uint8
	}{{2, 4096, 2}, {3, 2053, 3}, {1, 1024, 1}} {
		name := fmt.Sprintf("t=%d,m=%d,p=%d", tc.time, tc.memory, tc.threads)
		t.Run(name, func(t *testing.T) {
			if got, want := Key(password, salt, tc.time, tc.memory, tc.threads, 64), xargon2.Key(password, salt, tc.time, tc.memory, tc.threads, 64); !bytes.Equal(got, want) {
				t.Errorf("Key = %x, x/crypto %x", got, want)
			}
			if got, want := IDKey(password, salt, tc.time, tc.memory, tc.threads, 64), xargon2.IDKey(password, salt, tc.time, tc.memory, tc.threads, 64); !bytes.Equal(got, want) {
				t.Errorf("IDKey = %x, x/crypto %x", got, want)
			}
		})
	}
}

// TestSmallMemoryRaised checks the documented handling of memory sizes
// below 8*threads KiB, raised to 8*threads as x/crypto does (RFC 9106
// rejects them): the tags equal x/crypto's, and differ from one size to the
// next since H0 hashes the size asked for.
func TestSmallMemoryRaised(t *testing.T) {
	for _, threads := range []uint8{1, 3, 4} {
		seen := map[string]uint32{}
		for _, memory := range []uint32{0, 1, 8*uint32(threads) - 1, 8 * uint32(threads)} {
			got := IDKey([]byte("pw"), []byte("saltsalt"), 1, memory, threads, 32)
			want := xargon2.IDKey([]byte("pw"), []byte("saltsalt"), 1, memory, threads, 32)
			if !bytes.Equal(got, want) {
				t.Errorf("p=%d m=%d: %x, x/crypto %x", threads, memory, got, want)
			}
			if m, ok := seen[string(got)]; ok {
				t.Errorf("p=%d: m=%d and m=%d give the same tag", threads, m, memory)
			}
			seen[string(got)] = memory
		}
	}
}

// TestPanics checks that zero passes, lanes or key length are refused.
func TestPanics(t *testing.T) {
	for _, tc := range []struct {
		name    string
		time    uint32
		threads uint8
		keyLen  uint32
	}{{"time", 0, 1, 32}, {"threads", 1, 0, 32}, {"keyLen", 1, 1, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			IDKey([]byte("pw"), []byte("salt"), tc.time, 64, tc.threads, tc.keyLen)
		})
	}
}

func randBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}
