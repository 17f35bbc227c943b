package veracrypt

import (
	"crypto/cipher"
	"encoding/binary"
	"fmt"
	"math/bits"
	"strings"
)

// TrueCrypt 4.1 to 4.3a encrypted volumes and headers in LRW mode: each
// 16-byte block i is C = E(P ^ T) ^ T with T = K2*i in GF(2^128) (blocks
// read as big-endian polynomials, reduced by x^128+x^7+x^2+x+1), K2 the
// 16-byte tweak key, and E the cipher chain applied block by block (the
// last-named cipher first). The header's 448 encrypted bytes are blocks
// 1..28, a data area's blocks count from 1 at its start. The key (header
// key or master key) is the tweak key in a 32-byte slot, then the
// ciphers' 32-byte keys in the order they encrypt.

// lrwChains are the chains TrueCrypt offered in LRW mode (128-bit block
// ciphers only).
var lrwChains = []string{"aes", "serpent", "twofish", "aes-twofish", "aes-twofish-serpent", "serpent-aes", "serpent-twofish-aes", "twofish-serpent"}

func lrwKeySize(name string) int { return 32 + 32*(strings.Count(name, "-")+1) }

// gf128 is an element of GF(2^128) as a big-endian 128-bit integer.
type gf128 struct{ hi, lo uint64 }

// mulX multiplies by x.
func (a gf128) mulX() gf128 {
	c := a.hi >> 63
	return gf128{a.hi<<1 | a.lo>>63, a.lo<<1 ^ c*0x87}
}

// mul multiplies a by the integer b (up to 2^64-1).
func (a gf128) mul(b uint64) gf128 {
	var r gf128
	for ; b != 0; b >>= 1 {
		if b&1 == 1 {
			r.hi ^= a.hi
			r.lo ^= a.lo
		}
		a = a.mulX()
	}
	return r
}

// lrwChain is a cipher chain in LRW mode.
type lrwChain struct {
	enc []cipher.Block // encryption order
	k2  gf128
	// steps[t] = K2 * (2^(t+1) - 1): T(i+1) = T(i) ^ steps[trailing ones of i].
	steps [64]gf128
}

func newLRWChain(name string, key []byte) (*lrwChain, error) {
	if err := chainAvailable(name); err != nil {
		return nil, err
	}
	names := strings.Split(name, "-")
	n := len(names)
	if len(key) < lrwKeySize(name) {
		return nil, fmt.Errorf("veracrypt: LRW %s needs a %d-byte key, have %d", name, lrwKeySize(name), len(key))
	}
	c := &lrwChain{k2: gf128{binary.BigEndian.Uint64(key), binary.BigEndian.Uint64(key[8:])}}
	for i := range n {
		b, err := blockCiphers[names[n-1-i]](key[32+32*i : 64+32*i])
		if err != nil {
			return nil, fmt.Errorf("veracrypt: %s: %w", names[n-1-i], err)
		}
		if b.BlockSize() != 16 {
			return nil, fmt.Errorf("veracrypt: %s: LRW needs a 16-byte block", names[n-1-i])
		}
		c.enc = append(c.enc, b)
	}
	for t := range c.steps {
		c.steps[t] = c.k2.mul(1<<(t+1) - 1)
	}
	return c, nil
}

// crypt runs LRW over src, its first block having index first.
func (c *lrwChain) crypt(dst, src []byte, first uint64, encrypt bool) {
	t := c.k2.mul(first)
	var tb [16]byte
	n := len(c.enc)
	for off, i := 0, first; off+16 <= len(src); off, i = off+16, i+1 {
		binary.BigEndian.PutUint64(tb[:], t.hi)
		binary.BigEndian.PutUint64(tb[8:], t.lo)
		d := dst[off : off+16]
		subtleXOR(d, src[off:off+16], tb[:])
		for j := range n {
			if encrypt {
				c.enc[j].Encrypt(d, d)
			} else {
				c.enc[n-1-j].Decrypt(d, d)
			}
		}
		subtleXOR(d, d, tb[:])
		s := c.steps[bits.TrailingZeros64(^i)&63]
		t.hi ^= s.hi
		t.lo ^= s.lo
	}
}

func subtleXOR(dst, a, b []byte) {
	for k := range dst {
		dst[k] = a[k] ^ b[k]
	}
}

func (c *lrwChain) header(dst, src []byte, encrypt bool) { c.crypt(dst, src, 1, encrypt) }

func (c *lrwChain) wipe() {
	c.enc, c.k2, c.steps = nil, gf128{}, [64]gf128{}
}

// lrwSectors is the volume.Sectors of an LRW data area: sector k's first
// block has index k*(ss/16)+1.
type lrwSectors struct {
	c  *lrwChain
	ss int
}

func (s *lrwSectors) Encrypt(dst, src []byte, k uint64) {
	s.c.crypt(dst, src, k*uint64(s.ss/16)+1, true)
}

func (s *lrwSectors) Decrypt(dst, src []byte, k uint64) {
	s.c.crypt(dst, src, k*uint64(s.ss/16)+1, false)
}

func (s *lrwSectors) Wipe() { s.c.wipe() }
