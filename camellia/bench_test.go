package camellia_test

import (
	"fmt"
	"testing"

	"github.com/fastxts/xts"
	"github.com/fastxts/xts/camellia"
)

func BenchmarkEncrypt(b *testing.B) {
	for _, size := range []int{16, 32} {
		b.Run(fmt.Sprint(size*8), func(b *testing.B) {
			c, err := camellia.NewCipher(make([]byte, size))
			if err != nil {
				b.Fatal(err)
			}
			buf := make([]byte, camellia.BlockSize)
			b.SetBytes(camellia.BlockSize)
			for b.Loop() {
				c.Encrypt(buf, buf)
			}
		})
	}
}

func BenchmarkDecrypt(b *testing.B) {
	for _, size := range []int{16, 32} {
		b.Run(fmt.Sprint(size*8), func(b *testing.B) {
			c, err := camellia.NewCipher(make([]byte, size))
			if err != nil {
				b.Fatal(err)
			}
			buf := make([]byte, camellia.BlockSize)
			b.SetBytes(camellia.BlockSize)
			for b.Loop() {
				c.Decrypt(buf, buf)
			}
		})
	}
}

func BenchmarkNewCipher(b *testing.B) {
	key := make([]byte, 32)
	for b.Loop() {
		if _, err := camellia.NewCipher(key); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkXTS is Camellia-256-XTS (LUKS camellia-xts-plain64, VeraCrypt)
// over 4 KiB sectors through the root package.
func BenchmarkXTS(b *testing.B) {
	key := make([]byte, 64)
	for i := range key {
		key[i] = byte(i)
	}
	c, err := xts.NewCipher(camellia.NewCipher, key)
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 4096)
	b.Run("Encrypt4K", func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		for b.Loop() {
			c.Encrypt(buf, buf, 1)
		}
	})
	b.Run("Decrypt4K", func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		for b.Loop() {
			c.Decrypt(buf, buf, 1)
		}
	})
}
