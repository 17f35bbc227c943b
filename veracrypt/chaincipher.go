package veracrypt

import (
	"fmt"

	"github.com/fastxts/xts"
)

// ChainCipher is a VeraCrypt cipher chain (a single cipher or a cascade
// such as "aes-twofish-serpent") in XTS over 512-byte data units, as a
// volume's data area uses it. It exists for measurements (xts bench
// --cipher aes-twofish-serpent); volumes use it through Open and Create.
// A ChainCipher is safe for concurrent use.
type ChainCipher struct {
	c *chain
}

// NewChainCipher builds the chain named name (VeraCrypt's or cryptsetup's
// naming, see Chains) from key: 64 bytes per cipher, the primary keys of
// the ciphers in the order they encrypt (the last-named first), 32 bytes
// each, then their secondary keys in the same order, as a volume header
// stores them. opts go to every cipher's xts.NewCipher.
func NewChainCipher(name string, key []byte, opts ...xts.Option) (*ChainCipher, error) {
	canon, ok := CanonicalChain(name)
	if !ok {
		return nil, fmt.Errorf("veracrypt: unknown cipher chain %q", name)
	}
	c, err := newChain(canon, key, opts...)
	if err != nil {
		return nil, err
	}
	return &ChainCipher{c}, nil
}

// ChainKeySize returns the key size NewChainCipher needs for a chain: 64 bytes
// per cipher.
func ChainKeySize(chain string) int { return chainKeySize(chain) }

// EncryptSectors encrypts src into dst as the 512-byte data units numbered
// from unit (dst and src may be the same buffer). It panics unless
// len(src) is a multiple of 512 and len(dst) at least len(src).
func (c *ChainCipher) EncryptSectors(dst, src []byte, unit uint64) {
	c.check(dst, src)
	c.c.crypt(dst[:len(src)], src, unit, true)
}

// DecryptSectors decrypts src into dst as the 512-byte data units numbered
// from unit, the inverse of EncryptSectors.
func (c *ChainCipher) DecryptSectors(dst, src []byte, unit uint64) {
	c.check(dst, src)
	c.c.crypt(dst[:len(src)], src, unit, false)
}

func (c *ChainCipher) check(dst, src []byte) {
	if len(src)%512 != 0 || len(dst) < len(src) {
		panic("veracrypt: ChainCipher: lengths must be a multiple of 512, dst at least src")
	}
}

// Wipe zeroes the chain's keys; the ChainCipher must not be used after.
func (c *ChainCipher) Wipe() { c.c.wipe() }
