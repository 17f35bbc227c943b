package sector

import (
	"strings"
	"testing"

	"github.com/fastxts/xts"
)

// TestImplementationIsTheCiphers: a Cipher's XTS runs on the
// implementation xts.NewCipher picks for the cipher's own constructor (the
// generated routines where the CPU has them), not on a wrapper the xts
// package would not recognise; CBC names the block cipher's package.
func TestImplementationIsTheCiphers(t *testing.T) {
	key := make([]byte, 64)
	for i := range key {
		key[i] = byte(i + 1)
	}
	for _, bc := range blockCiphers {
		x, err := xts.NewCipher(bc.newBlock, key)
		if err != nil {
			t.Fatal(err)
		}
		want := x.Implementation()
		x.Wipe()
		for _, spec := range []string{bc.name + "-xts-plain64", bc.name + "-xts-plain"} {
			c, err := NewLUKS(spec, key, 4096, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Implementation(); got != want {
				t.Errorf("%s: Implementation() = %q, xts.NewCipher(%s.NewCipher) runs on %q", spec, got, bc.name, want)
			}
			c.Wipe()
		}
		c, err := NewLUKS(bc.name+"-cbc-essiv:sha256", key[:32], 512, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Implementation(); got != bc.pkg || !strings.HasSuffix(got, bc.name) {
			t.Errorf("%s-cbc-essiv:sha256: Implementation() = %q, want %q", bc.name, got, bc.pkg)
		}
		t.Logf("%s: XTS on %s", bc.name, want)
	}
}
