package kuznyechik_test

import (
	"testing"

	"github.com/fastxts/xts/internal/blocktest"
)

// FuzzRoundTrip checks for any 32-byte key (and the first 32 bytes of a
// longer one) and any block that Decrypt(Encrypt(x)) == x and
// Encrypt(Decrypt(x)) == x, that in-place calls give what calls into a
// separate buffer give, and that keys of other sizes are refused
// (blocktest.Fuzz).
func FuzzRoundTrip(f *testing.F) {
	blocktest.Fuzz(f, spec, [2][]byte{blocktest.Unhex(f, rfcKey), blocktest.Unhex(f, rfcPlain)})
}
