package kuznyechik

import (
	"crypto/cipher"
	"encoding/binary"
	"strconv"
)

// BlockSize is the Kuznyechik block size in bytes.
const BlockSize = 16

// keySize is the Kuznyechik key size in bytes (256 bits).
const keySize = 32

// KeySizeError is returned by NewCipher for a key that is not 32 bytes
// long; its value is the length given.
type KeySizeError int

// Error returns "kuznyechik: invalid key size N".
func (k KeySizeError) Error() string {
	return "kuznyechik: invalid key size " + strconv.Itoa(int(k))
}

// kuznyechikCipher is a Kuznyechik key schedule. It is not modified after
// NewCipher, so one value is safe for concurrent use.
type kuznyechikCipher struct {
	// ek holds the round keys K_1..K_10.
	ek [10]words
	// dk holds the keys decryption uses: dk[0] = K_1, dk[i] = L^-1(K_{i+1})
	// for i = 1..8, dk[9] = K_10 (see Decrypt).
	dk [10]words
}

// NewCipher returns a Kuznyechik cipher.Block (GOST R 34.12-2015, RFC 7801)
// for a 32-byte key. Any other length returns a KeySizeError. The key is
// copied into the key schedule; the caller may reuse key afterwards.
//
// The first call builds the package's lookup tables (128 KiB, well under
// a millisecond).
func NewCipher(key []byte) (cipher.Block, error) {
	if len(key) != keySize {
		return nil, KeySizeError(len(key))
	}
	tableOnce.Do(buildTables)
	k := new(kuznyechikCipher)
	k.expand((*[keySize]byte)(key))
	return k, nil
}

// expand is the key schedule of RFC 7801, section 4.3: K_1 and K_2 are the
// two halves of the key, and each further pair is eight Feistel rounds
// F[C_j](a_1, a_0) = (LSX[C_j](a_1) XOR a_0, a_1) on the previous pair.
func (k *kuznyechikCipher) expand(key *[keySize]byte) {
	le := binary.LittleEndian
	a1 := words{le.Uint64(key[0:8]), le.Uint64(key[8:16])}
	a0 := words{le.Uint64(key[16:24]), le.Uint64(key[24:32])}
	k.ek[0], k.ek[1] = a1, a0
	for i := range 4 {
		for j := range 8 {
			cj := &c[8*i+j]
			y0, y1 := apply(&encT, a1[0]^cj[0], a1[1]^cj[1])
			a1, a0 = words{y0 ^ a0[0], y1 ^ a0[1]}, a1
		}
		k.ek[2*i+2], k.ek[2*i+3] = a1, a0
	}
	k.dk[0], k.dk[9] = k.ek[0], k.ek[9]
	for i := 1; i <= 8; i++ {
		// L^-1(K) = decT applied to S(K), since decT computes L^-1 S^-1.
		w := k.ek[i]
		k.dk[i][0], k.dk[i][1] = apply(&decT, subWord(pi, w[0]), subWord(pi, w[1]))
	}
}

// BlockSize returns BlockSize.
func (k *kuznyechikCipher) BlockSize() int { return BlockSize }

// Encrypt encrypts the first block of src into dst. dst and src may be the
// same slice but must not overlap otherwise. It panics if either is shorter
// than a block.
//
// E(a) = X[K_10] LSX[K_9] ... LSX[K_1](a): nine rounds of key addition,
// S and L (one table pass each), then a last key addition.
func (k *kuznyechikCipher) Encrypt(dst, src []byte) {
	if len(src) < BlockSize {
		panic("kuznyechik: input not full block")
	}
	if len(dst) < BlockSize {
		panic("kuznyechik: output not full block")
	}
	encrypt(&k.ek, (*[BlockSize]byte)(dst), (*[BlockSize]byte)(src))
}

func encrypt(ek *[10]words, dst, src *[BlockSize]byte) {
	le := binary.LittleEndian
	x0 := le.Uint64(src[0:8]) ^ ek[0][0]
	x1 := le.Uint64(src[8:16]) ^ ek[0][1]
	for r := 1; r < 10; r++ {
		x0, x1 = apply(&encT, x0, x1)
		x0 ^= ek[r][0]
		x1 ^= ek[r][1]
	}
	le.PutUint64(dst[0:8], x0)
	le.PutUint64(dst[8:16], x1)
}

// Decrypt decrypts the first block of src into dst. dst and src may be the
// same slice but must not overlap otherwise. It panics if either is shorter
// than a block.
//
// D(b) = X[K_1] S^-1 L^-1 X[K_2] ... S^-1 L^-1 X[K_10](b). With
// z = L^-1(state), one round S^-1 L^-1 X[K_i] becomes
// z' = L^-1 S^-1(z) XOR L^-1(K_i), one pass over decT, because L^-1 is
// linear. The first z is L^-1(b XOR K_10) = decT(S(b XOR K_10)) and the
// last step S^-1(z) XOR K_1.
func (k *kuznyechikCipher) Decrypt(dst, src []byte) {
	if len(src) < BlockSize {
		panic("kuznyechik: input not full block")
	}
	if len(dst) < BlockSize {
		panic("kuznyechik: output not full block")
	}
	decrypt(&k.dk, (*[BlockSize]byte)(dst), (*[BlockSize]byte)(src))
}

func decrypt(dk *[10]words, dst, src *[BlockSize]byte) {
	le := binary.LittleEndian
	x0 := subWord(pi, le.Uint64(src[0:8])^dk[9][0])
	x1 := subWord(pi, le.Uint64(src[8:16])^dk[9][1])
	x0, x1 = apply(&decT, x0, x1)
	for r := 8; r >= 1; r-- {
		x0, x1 = apply(&decT, x0, x1)
		x0 ^= dk[r][0]
		x1 ^= dk[r][1]
	}
	le.PutUint64(dst[0:8], subWord(&piInv, x0)^dk[0][0])
	le.PutUint64(dst[8:16], subWord(&piInv, x1)^dk[0][1])
}
