package sector

import (
	"crypto/aes"
	"crypto/cipher"
	"fmt"
	"strings"

	"github.com/fastxts/xts/camellia"
	"github.com/fastxts/xts/serpent"
	"github.com/fastxts/xts/twofish"
)

// Spec is a parsed cipher specification such as "aes-xts-plain64",
// "serpent-xts-plain64" or "twofish-cbc-essiv:sha256": CIPHER-MODE-IV, as
// cryptsetup and the LUKS headers spell it.
type Spec struct {
	Cipher, Mode, IV string
}

// blockCipher is one block cipher a spec may name: the kernel's crypto
// API name, the constructor (passed to xts.NewCipher as it is, not
// wrapped, so that the xts package finds the cipher's generated
// implementations) and what runs its CBC mode.
type blockCipher struct {
	name     string
	newBlock func([]byte) (cipher.Block, error)
	pkg      string
}

// blockCiphers are the ciphers the specs may name, in the order messages
// list them. Each has a 16-byte block and takes 16-, 24- and 32-byte keys,
// as the kernel's aes, serpent, twofish and camellia do.
var blockCiphers = []blockCipher{
	{"aes", aes.NewCipher, "crypto/aes"},
	{"serpent", serpent.NewCipher, "github.com/fastxts/xts/serpent"},
	{"twofish", twofish.NewCipher, "github.com/fastxts/xts/twofish"},
	{"camellia", camellia.NewCipher, "github.com/fastxts/xts/camellia"},
}

// cipherList is "aes, serpent, twofish and camellia", for messages.
func cipherList() string {
	var b strings.Builder
	for i, c := range blockCiphers {
		switch {
		case i == len(blockCiphers)-1:
			b.WriteString(" and ")
		case i > 0:
			b.WriteString(", ")
		}
		b.WriteString(c.name)
	}
	return b.String()
}

// lookupCipher returns the block cipher a spec names.
func lookupCipher(name string) (blockCipher, bool) {
	for _, c := range blockCiphers {
		if c.name == name {
			return c, true
		}
	}
	return blockCipher{}, false
}

// ParseSpec parses spec and checks that it is one of the supported ones:
// CIPHER-xts-plain64, CIPHER-xts-plain, CIPHER-cbc-essiv:sha256,
// CIPHER-cbc-plain64 and CIPHER-cbc-plain, where CIPHER is aes, serpent,
// twofish or camellia (lower case, as the kernel's crypto API names
// them). The error says what is wrong and what is supported; it has no
// prefix, so that callers can put theirs.
func ParseSpec(spec string) (Spec, error) {
	parts := strings.SplitN(spec, "-", 3)
	if len(parts) != 3 || parts[0] == "" {
		return Spec{}, fmt.Errorf("cipher %q (expected CIPHER-MODE-IV, such as aes-xts-plain64)", spec)
	}
	s := Spec{parts[0], parts[1], parts[2]}
	if _, ok := lookupCipher(s.Cipher); !ok {
		return s, fmt.Errorf("cipher %s in %q (%s are supported)", s.Cipher, spec, cipherList())
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
// bytes for XTS (two keys of the block cipher), 16, 24 or 32 for CBC. Every
// supported cipher takes 16-, 24- and 32-byte keys.
func (s Spec) KeySizeOK(n int) bool {
	if s.Mode == "xts" {
		return n == 32 || n == 48 || n == 64
	}
	return n == 16 || n == 24 || n == 32
}

// Plain32 reports whether the IV generator is plain, which keeps only the
// low 32 bits of the sector number.
func (s Spec) Plain32() bool { return s.IV == "plain" }
