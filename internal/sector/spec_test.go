package sector

import (
	"strings"
	"testing"
)

func TestParseSpec(t *testing.T) {
	for _, c := range []struct {
		spec, err string
		keys      []int // key sizes that fit; the others of 16..64 must not
	}{
		{"aes-xts-plain64", "", []int{32, 48, 64}},
		{"aes-xts-plain", "", []int{32, 48, 64}},
		{"aes-cbc-essiv:sha256", "", []int{16, 24, 32}},
		{"aes-cbc-plain64", "", []int{16, 24, 32}},
		{"aes-cbc-plain", "", []int{16, 24, 32}},
		{"aes", "expected CIPHER-MODE-IV", nil},
		{"-xts-plain64", "expected CIPHER-MODE-IV", nil},
		{"serpent-xts-plain64", "", []int{32, 48, 64}},
		{"twofish-xts-plain", "", []int{32, 48, 64}},
		{"camellia-cbc-essiv:sha256", "", []int{16, 24, 32}},
		{"serpent-cbc-plain64", "", []int{16, 24, 32}},
		{"twofish-cbc-plain", "", []int{16, 24, 32}},
		{"kuznyechik-xts-plain64", "cipher kuznyechik in \"kuznyechik-xts-plain64\" (aes, serpent, twofish and camellia are supported)", nil},
		{"Serpent-xts-plain64", "cipher Serpent", nil},
		{"camellia-xts-essiv:sha256", "cipher mode xts-essiv:sha256", nil},
		{"aes-xts-essiv:sha256", "cipher mode xts-essiv:sha256", nil},
		{"aes-ecb-null", "cipher mode ecb-null", nil},
	} {
		s, err := ParseSpec(c.spec)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want one containing %q", c.spec, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.spec, err)
			continue
		}
		if s.String() != c.spec {
			t.Errorf("%q: String() = %q", c.spec, s)
		}
		if s.Plain32() != strings.HasSuffix(c.spec, "-plain") {
			t.Errorf("%q: Plain32() = %v", c.spec, s.Plain32())
		}
		for n := 16; n <= 64; n += 8 {
			want := false
			for _, k := range c.keys {
				want = want || k == n
			}
			if s.KeySizeOK(n) != want {
				t.Errorf("%q: KeySizeOK(%d) = %v", c.spec, n, !want)
			}
		}
	}
}
