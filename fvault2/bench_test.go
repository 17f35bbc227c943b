package fvault2

import (
	"os"
	"testing"
)

// BenchmarkReadVolume reads the whole logical volume of the test image
// through Volume.ReadAt, in 1 MiB and in whole-volume calls (MB/s of
// decrypted data; the image is in the page cache after the first pass).
func BenchmarkReadVolume(b *testing.B) {
	f, err := os.Open(smallImage(b))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	v, err := Open(f, []byte(smallPassword), &Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	for _, bc := range []struct {
		name string
		size int
	}{{"1MiB", 1 << 20}, {"whole", int(v.Size())}} {
		b.Run(bc.name, func(b *testing.B) {
			buf := make([]byte, bc.size)
			b.SetBytes(v.Size())
			for b.Loop() {
				for off := int64(0); off < v.Size(); off += int64(len(buf)) {
					if _, err := v.ReadAt(buf, off); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
