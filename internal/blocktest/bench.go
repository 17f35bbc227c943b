package blocktest

import (
	"crypto/cipher"
	"fmt"
	"testing"

	"github.com/fastxts/xts"
)

// BenchEncrypt benchmarks Encrypt of one block in place, one sub-benchmark
// per key size in bits.
func BenchEncrypt(b *testing.B, c Cipher) {
	benchBlock(b, c, cipher.Block.Encrypt)
}

// BenchDecrypt benchmarks Decrypt of one block in place, one sub-benchmark
// per key size in bits.
func BenchDecrypt(b *testing.B, c Cipher) {
	benchBlock(b, c, cipher.Block.Decrypt)
}

func benchBlock(b *testing.B, c Cipher, op func(cipher.Block, []byte, []byte)) {
	for _, size := range c.KeySizes {
		b.Run(fmt.Sprint(size*8), func(b *testing.B) {
			blk, err := c.New(make([]byte, size))
			if err != nil {
				b.Fatal(err)
			}
			buf := make([]byte, BlockSize)
			b.SetBytes(BlockSize)
			for b.Loop() {
				op(blk, buf, buf)
			}
		})
	}
}

// BenchNewCipher benchmarks New with a key of the largest size.
func BenchNewCipher(b *testing.B, c Cipher) {
	key := make([]byte, c.KeySizes[len(c.KeySizes)-1])
	for b.Loop() {
		if _, err := c.New(key); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchXTS benchmarks the XTS mode of c through the root package, with two
// keys of the largest size, over one 4 KiB data unit in place
// (sub-benchmarks Encrypt4K and Decrypt4K).
func BenchXTS(b *testing.B, c Cipher) {
	key := make([]byte, 2*c.KeySizes[len(c.KeySizes)-1])
	for i := range key {
		key[i] = byte(i)
	}
	x, err := xts.NewCipher(c.New, key)
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 4096)
	b.Run("Encrypt4K", func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		for b.Loop() {
			x.Encrypt(buf, buf, 1)
		}
	})
	b.Run("Decrypt4K", func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		for b.Loop() {
			x.Decrypt(buf, buf, 1)
		}
	})
}
