package xts

import (
	"fmt"
	"testing"

	"github.com/fastxts/xts/serpent"
)

// BenchmarkSerpentXTS: BenchmarkSerpentXTS/op=enc|dec/size=N/impl=NAME,
// one call per data unit, Serpent-256 (a 64-byte XTS key), generic and
// every Serpent implementation that runs here.
func BenchmarkSerpentXTS(b *testing.B) {
	names := []string{genericName}
	for _, im := range theSerpentImpls() {
		if im.available {
			names = append(names, im.name)
		}
	}
	key := make([]byte, 64)
	for i := range key {
		key[i] = byte(i)
	}
	for _, op := range []string{"enc", "dec"} {
		for _, size := range []int{512, 4096, 65536} {
			for _, name := range names {
				b.Run(fmt.Sprintf("op=%s/size=%d/impl=%s", op, size, name), func(b *testing.B) {
					c, err := NewCipher(serpent.NewCipher, key, WithImplementation(name))
					if err != nil {
						b.Fatal(err)
					}
					buf := make([]byte, size)
					b.SetBytes(int64(size))
					for i := 0; b.Loop(); i++ {
						if op == "enc" {
							c.Encrypt(buf, buf, uint64(i))
						} else {
							c.Decrypt(buf, buf, uint64(i))
						}
					}
				})
			}
		}
	}
}
