package camellia_test

import (
	"bytes"
	"encoding/hex"
	"testing"

	"github.com/fastxts/xts/camellia"
	"github.com/fastxts/xts/internal/blocktest"
)

// knownAnswers are published Camellia vectors: RFC 3713, Appendix A, and
// vectors of the NESSIE test-vector sets (set 1 varies one key bit, set 2
// one plaintext bit, set 3 repeats one byte, set 4 decrypts) for each key
// size.
var knownAnswers = []struct {
	name                string
	key, plain, cipherT string
}{
	{"RFC 3713 A 128", "0123456789abcdeffedcba9876543210", "0123456789abcdeffedcba9876543210", "67673138549669730857065648eabe43"},
	{"RFC 3713 A 192", "0123456789abcdeffedcba98765432100011223344556677", "0123456789abcdeffedcba9876543210", "b4993401b3e996f84ee5cee7d79b09b9"},
	{"RFC 3713 A 256", "0123456789abcdeffedcba987654321000112233445566778899aabbccddeeff", "0123456789abcdeffedcba9876543210", "9acc237dff16d76c20ef7c919e3a7509"},
	{"NESSIE 128 set 1 vector 0", "80000000000000000000000000000000", "00000000000000000000000000000000", "6c227f749319a3aa7da235a9bba05a2c"},
	{"NESSIE 128 set 2 vector 0", "00000000000000000000000000000000", "80000000000000000000000000000000", "07923a39eb0a817d1c4d87bdb82d1f1c"},
	{"NESSIE 192 set 2 vector 13", "000000000000000000000000000000000000000000000000", "00040000000000000000000000000000", "9bca6c88b928c1b0f57f99866583a9bc"},
	{"NESSIE 192 set 4 vector 148", "949494949494949494949494949494949494949494949494", "636eb22d84b006381235641bcf0308d2", "94949494949494949494949494949494"},
	{"NESSIE 256 set 4 vector 74", "4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a", "057764fe3a500edbd988c5c3b56cba9a", "4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a"},
	{"NESSIE 256 set 4 vector 3", "0303030303030303030303030303030303030303030303030303030303030303", "7968b08aba92193f2295121ef8d75c8a", "03030303030303030303030303030303"},
	{"NESSIE 256 set 1 vector 54", "0000000000000200000000000000000000000000000000000000000000000000", "00000000000000000000000000000000", "e18b0cb1980124504b46a46a6f4273f3"},
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

func TestKnownAnswers(t *testing.T) {
	for _, v := range knownAnswers {
		t.Run(v.name, func(t *testing.T) {
			key, pt, ct := unhex(t, v.key), unhex(t, v.plain), unhex(t, v.cipherT)
			b, err := camellia.NewCipher(key)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]byte, camellia.BlockSize)
			b.Encrypt(got, pt)
			if !bytes.Equal(got, ct) {
				t.Errorf("Encrypt = %x, want %x", got, ct)
			}
			b.Decrypt(got, ct)
			if !bytes.Equal(got, pt) {
				t.Errorf("Decrypt = %x, want %x", got, pt)
			}
		})
	}
}

// TestIterated checks NESSIE's iterated vectors of set 1, vector 0 of
// Camellia-128: the zero block encrypted 100 and 1000 times in a row.
func TestIterated(t *testing.T) {
	b, err := camellia.NewCipher(unhex(t, "80000000000000000000000000000000"))
	if err != nil {
		t.Fatal(err)
	}
	x := make([]byte, camellia.BlockSize)
	for i := 1; i <= 1000; i++ {
		b.Encrypt(x, x)
		var want string
		switch i {
		case 100:
			want = "f77aec22a6043fe27a3bcb861c4bb0ac"
		case 1000:
			want = "89d3d322736f0c50b994120738d08782"
		default:
			continue
		}
		if got := hex.EncodeToString(x); got != want {
			t.Errorf("after %d encryptions: %s, want %s", i, got, want)
		}
	}
	for range 1000 {
		b.Decrypt(x, x)
	}
	if !bytes.Equal(x, make([]byte, camellia.BlockSize)) {
		t.Errorf("1000 decryptions did not return to zero: %x", x)
	}
}

// knownVectors are knownAnswers as blocktest vectors.
func knownVectors(t testing.TB) []blocktest.Vector {
	vs := make([]blocktest.Vector, len(knownAnswers))
	for i, v := range knownAnswers {
		vs[i] = blocktest.Vector{Line: i + 1, Key: unhex(t, v.key), PT: unhex(t, v.plain), CT: unhex(t, v.cipherT), Iterations: 1}
	}
	return vs
}

// TestOracleECB checks testdata/ecb.txt: random keys of every size and
// random blocks, encrypted by OpenSSL through Python's cryptography
// package (testdata/gen_ecb.py).
func TestOracleECB(t *testing.T) {
	sizes := blocktest.CheckVectors(t, spec, "ecb.txt", blocktest.ReadVectors(t, "testdata/ecb.txt"))
	for _, size := range spec.KeySizes {
		if sizes[size] < 50 {
			t.Errorf("testdata/ecb.txt has %d vectors with %d-byte keys, want at least 50", sizes[size], size)
		}
	}
}
