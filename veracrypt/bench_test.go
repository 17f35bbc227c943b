package veracrypt

import (
	"fmt"
	"testing"
)

// BenchmarkReadAt reads a volume's data area in 1 MiB calls (decryption
// across cores by the volume layer), for one cipher and a cascade.
func BenchmarkReadAt(b *testing.B) {
	for _, chain := range []string{"aes", "serpent", "serpent-twofish-aes"} {
		b.Run(chain, func(b *testing.B) {
			dev := newMemDev(64<<20 + 2*backupReserve)
			if err := Create(dev, dev.Size(), []byte("pw"), &CreateOptions{Cipher: chain, PIM: 1, Rand: seeded(5)}); err != nil {
				b.Fatal(err)
			}
			v, err := Open(dev, []byte("pw"), &Options{PIM: 1, PRF: "sha512", Cipher: chain})
			if err != nil {
				b.Fatal(err)
			}
			defer v.Close()
			buf := make([]byte, 1<<20)
			b.SetBytes(int64(len(buf)))
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if _, err := v.ReadAt(buf, int64(i%64)<<20); err != nil {
					b.Fatal(fmt.Sprint(err))
				}
			}
		})
	}
}
