package camellia_test

import (
	"testing"

	"github.com/fastxts/xts/internal/blocktest"
)

// FuzzRoundTrip checks for any key of a valid size and any block that
// Decrypt(Encrypt(x)) == x and Encrypt(Decrypt(x)) == x, that in-place
// calls give what calls into a separate buffer give, and that keys of
// other sizes are refused (blocktest.Fuzz).
func FuzzRoundTrip(f *testing.F) {
	var seeds [][2][]byte
	for _, v := range knownAnswers {
		seeds = append(seeds, [2][]byte{blocktest.Unhex(f, v.key), blocktest.Unhex(f, v.plain)})
	}
	blocktest.Fuzz(f, spec, seeds...)
}
