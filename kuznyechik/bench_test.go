package kuznyechik_test

import (
	"testing"

	"github.com/fastxts/xts"
	"github.com/fastxts/xts/kuznyechik"
)

func BenchmarkEncrypt(b *testing.B) {
	c, err := kuznyechik.NewCipher(make([]byte, 32))
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, kuznyechik.BlockSize)
	b.SetBytes(kuznyechik.BlockSize)
	for b.Loop() {
		c.Encrypt(buf, buf)
	}
}

func BenchmarkDecrypt(b *testing.B) {
	c, err := kuznyechik.NewCipher(make([]byte, 32))
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, kuznyechik.BlockSize)
	b.SetBytes(kuznyechik.BlockSize)
	for b.Loop() {
		c.Decrypt(buf, buf)
	}
}

func BenchmarkNewCipher(b *testing.B) {
	key := make([]byte, 32)
	for b.Loop() {
		if _, err := kuznyechik.NewCipher(key); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkXTS is Kuznyechik-XTS (VeraCrypt) over 4 KiB sectors through
// the root package.
func BenchmarkXTS(b *testing.B) {
	key := make([]byte, 64)
	for i := range key {
		key[i] = byte(i)
	}
	c, err := xts.NewCipher(kuznyechik.NewCipher, key)
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
