package bitlocker

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestCBCDecrypter: AES-CBC decryption through XTS (cbcDecrypter) gives
// crypto/cipher's bytes, with and without Elephant, for both key sizes and
// sector sizes, runs of sectors shorter and longer than a batch, in place
// and into another buffer, at sector numbers that carry into high bytes.
func TestCBCDecrypter(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, m := range []Method{AESCBC128, AESCBC256, AESCBC128Elephant, AESCBC256Elephant} {
		for _, size := range []int{512, 4096} {
			key := make([]byte, m.KeySize())
			for i := range key {
				key[i] = byte(rng.Uint32())
			}
			fast, err := newSectorCipher(m, key, size)
			if err != nil {
				t.Fatal(err)
			}
			if fast.cbc == nil {
				t.Skip("no XTS assembly for AES in this build: the fast CBC path is off")
			}
			slow, err := newSectorCipher(m, key, size)
			if err != nil {
				t.Fatal(err)
			}
			slow.cbc = nil
			for _, sectors := range []int{1, 2, cbcBatch/size - 1, cbcBatch / size, cbcBatch/size + 1, 3*cbcBatch/size + 5} {
				for _, k := range []uint64{0, 7, 1<<32 - 3, 1<<56 + 11} {
					t.Run(fmt.Sprintf("%v/%d/%dx/%d", m, size, sectors, k), func(t *testing.T) {
						src := make([]byte, sectors*size)
						for i := range src {
							src[i] = byte(rng.Uint32())
						}
						want := make([]byte, len(src))
						slow.cbcRange(want, src, k, false)
						got := make([]byte, len(src))
						fast.cbcRange(got, src, k, false)
						if !bytes.Equal(got, want) {
							t.Fatal("into another buffer: differs from crypto/cipher's CBC")
						}
						inPlace := bytes.Clone(src)
						fast.cbcRange(inPlace, inPlace, k, false)
						if !bytes.Equal(inPlace, want) {
							t.Fatal("in place: differs from crypto/cipher's CBC")
						}
						// And back: encryption (block by block) of the plaintext.
						back := make([]byte, len(src))
						fast.cbcRange(back, want, k, true)
						if !bytes.Equal(back, src) {
							t.Fatal("encrypting the plaintext does not give the ciphertext")
						}
					})
				}
			}
		}
	}
}

// TestMulAlpha: multiplication by alpha against known doublings: a carry
// out of the top bit folds back as 0x87 into the low byte.
func TestMulAlpha(t *testing.T) {
	tests := []struct{ in, want [16]byte }{
		{[16]byte{1}, [16]byte{2}},
		{[16]byte{0x80}, [16]byte{0, 1}},
		{[16]byte{15: 0x80}, [16]byte{0x87}},
		{[16]byte{0: 0x01, 15: 0xc0}, [16]byte{0: 0x85, 15: 0x80}},
	}
	for _, tc := range tests {
		var got [16]byte
		mulAlpha(got[:], tc.in[:])
		if got != tc.want {
			t.Errorf("mulAlpha(%x) = %x, want %x", tc.in, got, tc.want)
		}
	}
}
