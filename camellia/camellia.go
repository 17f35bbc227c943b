package camellia

import (
	"crypto/cipher"
	"encoding/binary"
	"strconv"
)

// BlockSize is the Camellia block size in bytes.
const BlockSize = 16

// KeySizeError is returned by NewCipher for a key that is not 16, 24 or 32
// bytes long; its value is the length given.
type KeySizeError int

// Error returns "camellia: invalid key size N".
func (k KeySizeError) Error() string {
	return "camellia: invalid key size " + strconv.Itoa(int(k))
}

// The key schedule is laid out in the order the data randomizing part uses
// it, so that encryption and decryption run the same code over two
// schedules:
//
//	[0], [1]     whitening before the rounds (kw1, kw2 when encrypting)
//	[2..7]       rounds 1-6
//	[8], [9]     FL and FLINV after round 6
//	[10..15]     rounds 7-12
//	[16], [17]   FL and FLINV after round 12
//	[18..23]     rounds 13-18
//	[24], [25]   FL and FLINV after round 18 (192- and 256-bit keys)
//	[26..31]     rounds 19-24 (192- and 256-bit keys)
//	[32], [33]   whitening after the rounds (kw3, kw4 when encrypting)
type schedule [34]uint64

// camelliaCipher is a Camellia key schedule. It is not modified after
// NewCipher, so one value is safe for concurrent use.
type camelliaCipher struct {
	enc, dec schedule
	long     bool // 24 rounds (192- and 256-bit keys) rather than 18
}

// The constants Sigma1..Sigma6 of RFC 3713, section 2.2.
const (
	sigma1 = 0xA09E667F3BCC908B
	sigma2 = 0xB67AE8584CAA73B2
	sigma3 = 0xC6EF372FE94F82BE
	sigma4 = 0x54FF53A5F1D36F1C
	sigma5 = 0x10E527FADE682D1D
	sigma6 = 0xB05688C2B3E6C1FD
)

// NewCipher returns a Camellia cipher.Block (RFC 3713) for a 16-, 24- or
// 32-byte key: Camellia-128, -192 or -256. Any other length returns a
// KeySizeError. The key is copied into the key schedule; the caller may
// reuse key afterwards.
func NewCipher(key []byte) (cipher.Block, error) {
	switch len(key) {
	case 16, 24, 32:
	default:
		return nil, KeySizeError(len(key))
	}
	spOnce.Do(fillSP)
	c := new(camelliaCipher)
	c.expand(key)
	return c, nil
}

// u128 is a 128-bit value as two 64-bit halves.
type u128 struct{ hi, lo uint64 }

// rotl returns v <<< n for 0 <= n < 128.
func (v u128) rotl(n uint) u128 {
	if n >= 64 {
		v = u128{v.lo, v.hi}
		n -= 64
	}
	if n == 0 {
		return v
	}
	return u128{v.hi<<n | v.lo>>(64-n), v.lo<<n | v.hi>>(64-n)}
}

// expand computes the subkeys of RFC 3713, section 2.2, and lays them out
// as the encryption and decryption schedules.
func (c *camelliaCipher) expand(key []byte) {
	be := binary.BigEndian
	kl := u128{be.Uint64(key[0:8]), be.Uint64(key[8:16])}
	var kr u128
	switch len(key) {
	case 24:
		r := be.Uint64(key[16:24])
		kr = u128{r, ^r}
	case 32:
		kr = u128{be.Uint64(key[16:24]), be.Uint64(key[24:32])}
	}

	d1, d2 := kl.hi^kr.hi, kl.lo^kr.lo
	d2 ^= f(&sp, d1^sigma1)
	d1 ^= f(&sp, d2^sigma2)
	d1 ^= kl.hi
	d2 ^= kl.lo
	d2 ^= f(&sp, d1^sigma3)
	d1 ^= f(&sp, d2^sigma4)
	ka := u128{d1, d2}

	// kw: kw1..kw4; k: k1..k18 or k1..k24; ke: ke1..ke4 or ke1..ke6.
	var kw [4]uint64
	var k [24]uint64
	var ke [6]uint64
	pair := func(dst []uint64, v u128, n uint) {
		r := v.rotl(n)
		dst[0], dst[1] = r.hi, r.lo
	}
	if len(key) == 16 {
		pair(kw[0:2], kl, 0)
		pair(k[0:2], ka, 0)
		pair(k[2:4], kl, 15)
		pair(k[4:6], ka, 15)
		pair(ke[0:2], ka, 30)
		pair(k[6:8], kl, 45)
		k[8] = ka.rotl(45).hi
		k[9] = kl.rotl(60).lo
		pair(k[10:12], ka, 60)
		pair(ke[2:4], kl, 77)
		pair(k[12:14], kl, 94)
		pair(k[14:16], ka, 94)
		pair(k[16:18], kl, 111)
		pair(kw[2:4], ka, 111)
	} else {
		d1, d2 = ka.hi^kr.hi, ka.lo^kr.lo
		d2 ^= f(&sp, d1^sigma5)
		d1 ^= f(&sp, d2^sigma6)
		kb := u128{d1, d2}

		pair(kw[0:2], kl, 0)
		pair(k[0:2], kb, 0)
		pair(k[2:4], kr, 15)
		pair(k[4:6], ka, 15)
		pair(ke[0:2], kr, 30)
		pair(k[6:8], kb, 30)
		pair(k[8:10], kl, 45)
		pair(k[10:12], ka, 45)
		pair(ke[2:4], kl, 60)
		pair(k[12:14], kr, 60)
		pair(k[14:16], kb, 60)
		pair(k[16:18], kl, 77)
		pair(ke[4:6], ka, 77)
		pair(k[18:20], kr, 94)
		pair(k[20:22], ka, 94)
		pair(k[22:24], kl, 111)
		pair(kw[2:4], kb, 111)
		c.long = true
	}

	nr, nke := 18, 4
	if c.long {
		nr, nke = 24, 6
	}
	// Encryption uses the subkeys in order; decryption in reverse, with
	// kw3, kw4 first, kw1, kw2 last, and each FL/FLINV pair swapped
	// (RFC 3713, section 2.3.2: ke4 for FL, ke3 for FLINV, ...).
	c.enc[0], c.enc[1] = kw[0], kw[1]
	c.dec[0], c.dec[1] = kw[2], kw[3]
	for g := 0; g*6 < nr; g++ {
		for j := range 6 {
			c.enc[2+8*g+j] = k[6*g+j]
			c.dec[2+8*g+j] = k[nr-1-(6*g+j)]
		}
		if 6*(g+1) < nr {
			c.enc[8+8*g], c.enc[9+8*g] = ke[2*g], ke[2*g+1]
			c.dec[8+8*g], c.dec[9+8*g] = ke[nke-1-2*g], ke[nke-2-2*g]
		}
	}
	c.enc[32], c.enc[33] = kw[2], kw[3]
	c.dec[32], c.dec[33] = kw[0], kw[1]
}

// BlockSize returns BlockSize.
func (c *camelliaCipher) BlockSize() int { return BlockSize }

// Encrypt encrypts the first block of src into dst. dst and src may be the
// same slice but must not overlap otherwise. It panics if either is shorter
// than a block.
func (c *camelliaCipher) Encrypt(dst, src []byte) {
	if len(src) < BlockSize {
		panic("camellia: input not full block")
	}
	if len(dst) < BlockSize {
		panic("camellia: output not full block")
	}
	crypt(&sp, &c.enc, c.long, (*[BlockSize]byte)(dst), (*[BlockSize]byte)(src))
}

// Decrypt decrypts the first block of src into dst. dst and src may be the
// same slice but must not overlap otherwise. It panics if either is shorter
// than a block.
func (c *camelliaCipher) Decrypt(dst, src []byte) {
	if len(src) < BlockSize {
		panic("camellia: input not full block")
	}
	if len(dst) < BlockSize {
		panic("camellia: output not full block")
	}
	crypt(&sp, &c.dec, c.long, (*[BlockSize]byte)(dst), (*[BlockSize]byte)(src))
}

// crypt is the data randomizing part of RFC 3713, section 2.3, over a
// schedule laid out as described at schedule. The SP tables t (always &sp)
// come in as a parameter so that the compiler addresses all eight from one
// register instead of keeping eight addresses live.
func crypt(t *[8][256]uint64, k *schedule, long bool, dst, src *[BlockSize]byte) {
	be := binary.BigEndian
	d1 := be.Uint64(src[0:8]) ^ k[0]
	d2 := be.Uint64(src[8:16]) ^ k[1]

	d2 ^= f(t, d1^k[2])
	d1 ^= f(t, d2^k[3])
	d2 ^= f(t, d1^k[4])
	d1 ^= f(t, d2^k[5])
	d2 ^= f(t, d1^k[6])
	d1 ^= f(t, d2^k[7])
	d1 = fl(d1, k[8])
	d2 = flInv(d2, k[9])

	d2 ^= f(t, d1^k[10])
	d1 ^= f(t, d2^k[11])
	d2 ^= f(t, d1^k[12])
	d1 ^= f(t, d2^k[13])
	d2 ^= f(t, d1^k[14])
	d1 ^= f(t, d2^k[15])
	d1 = fl(d1, k[16])
	d2 = flInv(d2, k[17])

	d2 ^= f(t, d1^k[18])
	d1 ^= f(t, d2^k[19])
	d2 ^= f(t, d1^k[20])
	d1 ^= f(t, d2^k[21])
	d2 ^= f(t, d1^k[22])
	d1 ^= f(t, d2^k[23])

	if long {
		d1 = fl(d1, k[24])
		d2 = flInv(d2, k[25])
		d2 ^= f(t, d1^k[26])
		d1 ^= f(t, d2^k[27])
		d2 ^= f(t, d1^k[28])
		d1 ^= f(t, d2^k[29])
		d2 ^= f(t, d1^k[30])
		d1 ^= f(t, d2^k[31])
	}

	d2 ^= k[32]
	d1 ^= k[33]
	be.PutUint64(dst[0:8], d2)
	be.PutUint64(dst[8:16], d1)
}
