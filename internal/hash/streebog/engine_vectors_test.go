package streebog

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
)

// The longer messages of the OpenSSL GOST engine's digest tests
// (gost-engine, test/01-digest.t): multi-block inputs, one of them
// 290,822 bytes.
func TestGOSTEngineVectors(t *testing.T) {
	bin, _ := hex.DecodeString("0001021584674531")
	long := strings.Repeat(strings.Repeat("121345678", 7)+"1234567\n", 4096) + "12345\n"
	for _, v := range []struct {
		name       string
		msg        []byte
		h256, h512 string
	}{
		{"128x12345670", []byte(strings.Repeat("12345670", 128)),
			"1906512b86a1283c68cec8419e57113efc562a1d0e95d8f4809542900c416fe4",
			"283587e434864d0d4bea97c0fb10e2dd421572fc859304bdf6a94673d652c59049212bad7802b4fcf5eecc1f8fab569d60f2c20dbd789a7fe4efbd79d8137ee7"},
		{"128x0001021584674531", bytes.Repeat(bin, 128),
			"2eb1306be3e490f18ff0e2571a077b3831c815c46c7d4fdf9e0e26de4032b3f3",
			"55656e5bcf795b499031a7833cd7dc18fe10d4a47e15be545c6ab3f304a4fe411c4c39de5b1fc6844880111441e0b92bf1ec2fb7840453fe39a2b70ced461968"},
		{"539 bytes", []byte(strings.Repeat("12345670", 128)[:539]),
			"c98a17f9fadff78d08521e4179a7b2e6275f3b1da88339a3cb961a3514e5332e",
			"d5ad93fbc9ed7abc1cf28d00827a052b40bea74b04c4fd753102c1bcf9f9dad5142887f8a4cceaa0d64a0a8291592413d6adb956b99138a0023e127ff37bdf08"},
		{"290822 bytes", []byte(long),
			"50e935d725d9359e5991b6b7eba8b3539fca03584d26adf4c827c982ffd49367",
			"1d93645ebfbb477660f98b7d1598e37fbf3bfc8234ead26e2246e1b979e590ac46138158a692f9a0c9ac2550758b4d0d4c9fb8af5e595a16d3760c6516443f82"},
	} {
		t.Run(v.name, func(t *testing.T) {
			s256, s512 := Sum256(v.msg), Sum512(v.msg)
			if got := hex.EncodeToString(s256[:]); got != v.h256 {
				t.Errorf("256: got %s, want %s", got, v.h256)
			}
			if got := hex.EncodeToString(s512[:]); got != v.h512 {
				t.Errorf("512: got %s, want %s", got, v.h512)
			}
		})
	}
}
