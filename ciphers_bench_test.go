package xts

import (
	"crypto/cipher"
	"fmt"
	"testing"

	"github.com/fastxts/xts/camellia"
	"github.com/fastxts/xts/kuznyechik"
	"github.com/fastxts/xts/serpent"
	"github.com/fastxts/xts/twofish"
)

// benchCiphers are the block ciphers other than AES that
// BenchmarkCipherXTS runs, by the name the registry gives their family.
var benchCiphers = []struct {
	name      string
	newCipher func([]byte) (cipher.Block, error)
}{
	{"Serpent", serpent.NewCipher},
	{"Camellia", camellia.NewCipher},
	{"Twofish", twofish.NewCipher},
	{"Kuznyechik", kuznyechik.NewCipher},
}

// BenchmarkCipherXTS:
// BenchmarkCipherXTS/cipher=C/op=enc|dec/size=N/impl=NAME, one call per
// data unit, and op=dec-sectors512: DecryptSectors of N bytes in 512-byte
// sectors on one goroutine; 256-bit keys (a 64-byte XTS key), generic and
// every implementation of the cipher that runs here.
func BenchmarkCipherXTS(b *testing.B) {
	key := make([]byte, 64)
	for i := range key {
		key[i] = byte(i)
	}
	for _, bc := range benchCiphers {
		names := []string{genericName}
		if fam := familyNamed(bc.name); fam != nil {
			for _, im := range fam.list() {
				if im.available {
					names = append(names, im.name)
				}
			}
		}
		for _, op := range []string{"enc", "dec", "dec-sectors512"} {
			for _, size := range []int{512, 4096, 65536} {
				for _, name := range names {
					b.Run(fmt.Sprintf("cipher=%s/op=%s/size=%d/impl=%s", bc.name, op, size, name), func(b *testing.B) {
						c, err := NewCipher(bc.newCipher, key, WithImplementation(name), WithoutParallelism())
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
}
