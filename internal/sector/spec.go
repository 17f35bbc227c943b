package sector

import (
	"fmt"
	"strings"
)

// Spec is a parsed cipher specification such as "aes-xts-plain64" or
// "aes-cbc-essiv:sha256": CIPHER-MODE-IV, as cryptsetup and the LUKS
// headers spell it.
type Spec struct {
	Cipher, Mode, IV string
}

// ParseSpec parses spec and checks that it is one of the supported ones:
// aes-xts-plain64, aes-xts-plain, aes-cbc-essiv:sha256, aes-cbc-plain64
// and aes-cbc-plain. The error says what is wrong and what is supported;
// it has no prefix, so that callers can put theirs.
func ParseSpec(spec string) (Spec, error) {
	parts := strings.SplitN(spec, "-", 3)
	if len(parts) != 3 || parts[0] == "" {
		return Spec{}, fmt.Errorf("cipher %q (expected CIPHER-MODE-IV, such as aes-xts-plain64)", spec)
	}
	s := Spec{parts[0], parts[1], parts[2]}
	if s.Cipher != "aes" {
		return s, fmt.Errorf("cipher %s in %q: only AES is supported", s.Cipher, spec)
	}
	switch s.Mode + "-" + s.IV {
	case "xts-plain64", "xts-plain", "cbc-essiv:sha256", "cbc-plain64", "cbc-plain":
		return s, nil
	}
	return s, fmt.Errorf("cipher mode %s-%s in %q (xts-plain64, xts-plain, cbc-essiv:sha256, cbc-plain64 and cbc-plain are supported)", s.Mode, s.IV, spec)
}

// String is the specification as cryptsetup writes it.
func (s Spec) String() string { return s.Cipher + "-" + s.Mode + "-" + s.IV }

// KeySizeOK reports whether an n-byte key fits the spec: 32, 48 or 64
// bytes for XTS (two AES keys), 16, 24 or 32 for CBC.
func (s Spec) KeySizeOK(n int) bool {
	if s.Mode == "xts" {
		return n == 32 || n == 48 || n == 64
	}
	return n == 16 || n == 24 || n == 32
}

// Plain32 reports whether the IV generator is plain, which keeps only the
// low 32 bits of the sector number.
func (s Spec) Plain32() bool { return s.IV == "plain" }
