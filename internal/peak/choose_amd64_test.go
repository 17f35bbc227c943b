//go:build !purego

package peak

import "testing"

func TestAllLoopsNeeds(t *testing.T) {
	widest := func(f features) string {
		name := ""
		w := 0
		for _, l := range allLoops(f) {
			if l.Runnable() && l.Width >= w {
				name, w = l.Name, l.Width
			}
		}
		return name
	}
	cases := []struct {
		f    features
		want string
	}{
		{features{}, ""},
		{features{aes: true}, "aesenc-xmm"},
		{features{aes: true, avx: true}, "vaesenc-xmm"},
		{features{aes: true, avx: true, vaes: true}, "vaesenc-ymm"},
		{features{aes: true, avx: true, vaes: true, avx512: true}, "vaesenc-zmm"},
		// VAES reported but the OS saves no ymm state: xmm only.
		{features{aes: true, vaes: true}, "aesenc-xmm"},
		// AVX-512 without VAES (Skylake-X): ymm AES is not there either.
		{features{aes: true, avx: true, avx512: true}, "vaesenc-xmm"},
	}
	for _, c := range cases {
		if got := widest(c.f); got != c.want {
			t.Errorf("%+v: widest loop %q, want %q", c.f, got, c.want)
		}
	}
}
