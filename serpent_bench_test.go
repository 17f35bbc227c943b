package xts

import (
	"fmt"
	"testing"

	"github.com/fastxts/xts/serpent"
)

// BenchmarkSerpentXTS: BenchmarkSerpentXTS/op=enc|dec/size=N/impl=NAME,
// one call per data unit, and op=dec-sectors512: DecryptSectors of N bytes
// in 512-byte sectors on one goroutine; Serpent-256 (a 64-byte XTS key),
// generic and every Serpent implementation that runs here.
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
	for _, op := range []string{"enc", "dec", "dec-sectors512"} {
		for _, size := range []int{512, 4096, 65536} {
			for _, name := range names {
				b.Run(fmt.Sprintf("op=%s/size=%d/impl=%s", op, size, name), func(b *testing.B) {
					c, err := NewCipher(serpent.NewCipher, key, WithImplementation(name), WithoutParallelism())
					if err != nil {
						b.Fatal(err)
					}
					buf := make([]byte, size)
					b.SetBytes(int64(size))
					for i := 0; b.Loop(); i++ {
						switch op {
						case "enc":
							c.Encrypt(buf, buf, uint64(i))
						case "dec":
							c.Decrypt(buf, buf, uint64(i))
						default:
							c.DecryptSectors(buf, buf, 512, uint64(i))
						}
					}
				})
			}
		}
	}
}
