package camellia_test

import (
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

func TestKnownAnswers(t *testing.T) {
	blocktest.CheckVectors(t, spec, "known answers", knownVectors(t))
}

// TestIterated checks NESSIE's iterated vectors of set 1, vector 0 of
// Camellia-128: the zero block encrypted 100 and 1000 times in a row (and
// decrypted as many times back to zero).
func TestIterated(t *testing.T) {
	key, zero := blocktest.Unhex(t, "80000000000000000000000000000000"), make([]byte, camellia.BlockSize)
	blocktest.CheckVectors(t, spec, "NESSIE 128 set 1 vector 0", []blocktest.Vector{
		{Name: "100 times", Key: key, PT: zero, CT: blocktest.Unhex(t, "f77aec22a6043fe27a3bcb861c4bb0ac"), Iterations: 100},
		{Name: "1000 times", Key: key, PT: zero, CT: blocktest.Unhex(t, "89d3d322736f0c50b994120738d08782"), Iterations: 1000},
	})
}

// knownVectors are knownAnswers as blocktest vectors.
func knownVectors(t testing.TB) []blocktest.Vector {
	vs := make([]blocktest.Vector, len(knownAnswers))
	for i, v := range knownAnswers {
		vs[i] = blocktest.Vector{Name: v.name, Key: blocktest.Unhex(t, v.key), PT: blocktest.Unhex(t, v.plain), CT: blocktest.Unhex(t, v.cipherT), Iterations: 1}
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
