package veracrypt

import (
	"crypto/aes"
	"crypto/cipher"
	"fmt"
	"slices"
	"strings"

	"github.com/fastxts/xts"
	"github.com/fastxts/xts/camellia"
	"github.com/fastxts/xts/kuznyechik"
	"github.com/fastxts/xts/serpent"
	"github.com/fastxts/xts/twofish"
)

// blockCiphers maps a cipher's name to its constructor (32-byte keys). A
// nil constructor would be a cipher this build does not have: chains that
// use it are skipped by the trials and refused by Create.
var blockCiphers = map[string]func([]byte) (cipher.Block, error){
	"aes":        aes.NewCipher,
	"serpent":    serpent.NewCipher,
	"twofish":    twofish.NewCipher,
	"camellia":   camellia.NewCipher,
	"kuznyechik": kuznyechik.NewCipher,
}

// chainNames lists the cipher chains that VeraCrypt and TrueCrypt make,
// named as VeraCrypt names them (in lower case): a chain "a-b-c" encrypts
// each data unit with c first, then b, then a (its "Cascades" page).
var chainNames = []string{
	"aes", "serpent", "twofish", "camellia", "kuznyechik",
	"aes-twofish", "aes-twofish-serpent", "serpent-aes", "serpent-twofish-aes", "twofish-serpent",
	"camellia-kuznyechik", "camellia-serpent", "kuznyechik-aes", "kuznyechik-serpent-camellia", "kuznyechik-twofish",
}

// cryptsetupNames maps the chains that cryptsetup names differently to
// its names (checked on cryptsetup's own test images: its
// "kuznyechik-camellia" and "camellia-serpent-kuznyechik" volumes are
// VeraCrypt's Camellia-Kuznyechik and Kuznyechik-Serpent-Camellia).
var cryptsetupNames = map[string]string{
	"camellia-kuznyechik":         "kuznyechik-camellia",
	"kuznyechik-serpent-camellia": "camellia-serpent-kuznyechik",
}

// CanonicalChain returns the VeraCrypt name of a cipher chain given in
// VeraCrypt's or cryptsetup's naming, in any case, and whether it is one
// of the chains of this package.
func CanonicalChain(name string) (string, bool) {
	name = strings.ToLower(name)
	for vc, cs := range cryptsetupNames {
		if name == cs {
			return vc, true
		}
	}
	return name, slices.Contains(chainNames, name)
}

// CryptsetupChain returns cryptsetup's name for a chain (as tcryptDump
// prints it): the VeraCrypt name but for the two chains it names the
// other way round.
func CryptsetupChain(name string) string {
	if cs, ok := cryptsetupNames[name]; ok {
		return cs
	}
	return name
}

// Chains returns the names of the cipher chains this build can open and
// create (in cryptsetup's naming, "aes-twofish-serpent"): the chains whose
// every block cipher is available.
func Chains() []string {
	var out []string
	for _, n := range chainNames {
		if chainAvailable(n) == nil {
			out = append(out, n)
		}
	}
	return out
}

// chainAvailable reports why a chain cannot be used, or nil.
func chainAvailable(name string) error {
	for _, c := range strings.Split(name, "-") {
		f, ok := blockCiphers[c]
		if !ok {
			return fmt.Errorf("veracrypt: unknown cipher %q", c)
		}
		if f == nil {
			return fmt.Errorf("veracrypt: cipher %s is not in this build yet", c)
		}
	}
	return nil
}

// chainKeySize is the key size of a chain: 64 bytes (a 32-byte primary
// and a 32-byte secondary key) per cipher.
func chainKeySize(name string) int { return 64 * (strings.Count(name, "-") + 1) }

// chain is a cascade of XTS ciphers. enc[0] encrypts first.
type chain struct {
	enc []*xts.Cipher
}

// newChain builds the XTS ciphers of a chain from its key: the key holds
// the primary keys of the ciphers in the order they encrypt (the
// last-named first), 32 bytes each, then their secondary keys in the same
// order.
func newChain(name string, key []byte, opts ...xts.Option) (*chain, error) {
	if err := chainAvailable(name); err != nil {
		return nil, err
	}
	names := strings.Split(name, "-")
	n := len(names)
	if len(key) < 64*n {
		return nil, fmt.Errorf("veracrypt: %s needs a %d-byte key, have %d", name, 64*n, len(key))
	}
	c := &chain{}
	k := make([]byte, 64)
	defer clear(k)
	for i := range n {
		cn := names[n-1-i] // encryption order
		copy(k[:32], key[32*i:])
		copy(k[32:], key[32*n+32*i:])
		x, err := xts.NewCipher(blockCiphers[cn], k, opts...)
		if err != nil {
			c.wipe()
			return nil, fmt.Errorf("veracrypt: %s: %w", cn, err)
		}
		c.enc = append(c.enc, x)
	}
	return c, nil
}

func (c *chain) wipe() {
	for _, x := range c.enc {
		x.Wipe()
	}
	c.enc = nil
}

// cascadePiece is how much of a call each cipher of a cascade runs over
// before the next takes it, so that the data stays in cache.
const cascadePiece = 32 << 10

// crypt runs the chain over len(src)/512 data units numbered from unit.
func (c *chain) crypt(dst, src []byte, unit uint64, encrypt bool) {
	n := len(c.enc)
	if n == 1 {
		if encrypt {
			c.enc[0].EncryptSectors(dst, src, 512, unit)
		} else {
			c.enc[0].DecryptSectors(dst, src, 512, unit)
		}
		return
	}
	for off := 0; off < len(src); off += cascadePiece {
		end := min(off+cascadePiece, len(src))
		d, s := dst[off:end], src[off:end]
		u := unit + uint64(off/512)
		for i := range n {
			if encrypt {
				c.enc[i].EncryptSectors(d, s, 512, u)
			} else {
				c.enc[n-1-i].DecryptSectors(d, s, 512, u)
			}
			s = d
		}
	}
}

// header crypts the 448 encrypted bytes of a header (data unit 0).
func (c *chain) header(dst, src []byte, encrypt bool) {
	n := len(c.enc)
	for i := range n {
		if encrypt {
			c.enc[i].Encrypt(dst, src, 0)
		} else {
			c.enc[n-1-i].Decrypt(dst, src, 0)
		}
		src = dst
	}
}

// sectors is the volume.Sectors of a data area: sector k of the area is
// data units first+k*(ss/512).. of the chain: an XTS chain or
// (opened read-only) a TrueCrypt CBC one.
type sectors struct {
	c     unitCrypter
	first uint64 // data unit of the area's first byte
	ss    int
}

// unitCrypter is a cipher chain over 512-byte data units: *chain and
// *cbcChain.
type unitCrypter interface {
	crypt(dst, src []byte, unit uint64, encrypt bool)
	wipe()
}

func (s *sectors) Encrypt(dst, src []byte, k uint64) {
	s.c.crypt(dst, src, s.first+k*uint64(s.ss/512), true)
}

func (s *sectors) Decrypt(dst, src []byte, k uint64) {
	s.c.crypt(dst, src, s.first+k*uint64(s.ss/512), false)
}

func (s *sectors) Wipe() { s.c.wipe() }
