package xts

import (
	"crypto/aes"
	"fmt"
	"testing"
	"unsafe"

	xxts "golang.org/x/crypto/xts"
)

var benchSizes = []int{16, 512, 1420, 4096, 65536, 1048576}

// benchKey returns a fixed key of keyBits*2/8 bytes with distinct halves.
func benchKey(keyBits int) []byte {
	k := make([]byte, keyBits/4)
	for i := range k {
		k[i] = byte(i*7 + 1)
	}
	return k
}

// pageAligned returns n zero bytes that start a page (4096 bytes), so
// that where the buffer lies relative to other memory the call touches
// (the key schedule, the stack) does not change from one build or run to
// the next: on some cores a load whose address matches a pending store's
// in the low 12 bits waits for it (4K aliasing), which moved BenchmarkXTS
// at 512 bytes by up to 10% on a Zen 5 with the buffer's placement. xts
// bench places its buffer the same way.
func pageAligned(n int) []byte {
	b := make([]byte, n+4095)
	off := int(-uintptr(unsafe.Pointer(&b[0])) & 4095)
	return b[off : off+n : off+n]
}

// BenchmarkXTS: BenchmarkXTS/impl=NAME/op=enc|dec/key=128|256/size=N, one
// call per data unit, with x/crypto/xts as impl=x-crypto-xts for the
// baseline (skipped at 1420 bytes: it needs a multiple of 16).
func BenchmarkXTS(b *testing.B) {
	var names []string
	for _, im := range Implementations() {
		if im.Available && im.Cipher == "" {
			names = append(names, im.Name)
		}
	}
	names = append(names, "x-crypto-xts")
	for _, name := range names {
		for _, op := range []string{"enc", "dec"} {
			for _, keyBits := range []int{128, 256} {
				for _, size := range benchSizes {
					b.Run(fmt.Sprintf("impl=%s/op=%s/key=%d/size=%d", name, op, keyBits, size), func(b *testing.B) {
						key := benchKey(keyBits)
						buf := pageAligned(size)
						var f func(dst, src []byte, n uint64)
						if name == "x-crypto-xts" {
							if size%16 != 0 {
								b.Skipf("x/crypto/xts cannot encrypt %d bytes: it has no ciphertext stealing", size)
							}
							x, err := xxts.NewCipher(aes.NewCipher, key)
							if err != nil {
								b.Fatal(err)
							}
							f = x.Encrypt
							if op == "dec" {
								f = x.Decrypt
							}
						} else {
							c := newImpl(b, name, key)
							f = c.Encrypt
							if op == "dec" {
								f = c.Decrypt
							}
						}
						b.SetBytes(int64(size))
						b.ReportAllocs()
						b.ResetTimer()
						for i := 0; b.Loop(); i++ {
							f(buf, buf, uint64(i))
						}
					})
				}
			}
		}
	}
}

// benchSectors: BenchmarkSectors (1 MiB, one core) and
// BenchmarkSectorsParallel (8 MiB, all cores), names fixed for scripts:
// impl=NAME/op=enc|dec/key=128|256/sector=512|4096.
func benchSectors(b *testing.B, bufSize int, parallel bool) {
	for _, im := range Implementations() {
		if !im.Available || im.Cipher != "" {
			continue
		}
		for _, op := range []string{"enc", "dec"} {
			for _, keyBits := range []int{128, 256} {
				for _, sector := range []int{512, 4096} {
					b.Run(fmt.Sprintf("impl=%s/op=%s/key=%d/sector=%d", im.Name, op, keyBits, sector), func(b *testing.B) {
						opt := WithoutParallelism()
						if parallel {
							opt = WithParallelThreshold(defaultParallelThreshold)
						}
						c := newImpl(b, im.Name, benchKey(keyBits), opt)
						f := c.EncryptSectors
						if op == "dec" {
							f = c.DecryptSectors
						}
						buf := pageAligned(bufSize)
						b.SetBytes(int64(bufSize))
						b.ReportAllocs()
						for i := uint64(0); b.Loop(); i++ {
							f(buf, buf, sector, i*uint64(bufSize/sector))
						}
					})
				}
			}
		}
	}
}

func BenchmarkSectors(b *testing.B)         { benchSectors(b, 1<<20, false) }
func BenchmarkSectorsParallel(b *testing.B) { benchSectors(b, 8<<20, true) }
