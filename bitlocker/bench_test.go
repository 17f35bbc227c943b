package bitlocker

import (
	"io"
	"os"
	"testing"
)

// BenchmarkSectors: decryption of 1 MiB by method; Elephant against plain
// CBC shows the diffuser's cost.
func BenchmarkSectors(b *testing.B) {
	for _, m := range []Method{AESXTS128, AESXTS256, AESCBC128, AESCBC128Elephant, AESCBC256, AESCBC256Elephant} {
		for _, serial := range []bool{false, true} {
			name := m.String()
			n := 1 << 20
			if serial {
				name += "/64KiB-one-core"
				n = parallelMin - 4096 // below the parallel threshold of CBC
			}
			b.Run(name, func(b *testing.B) {
				c, err := newSectorCipher(m, make([]byte, m.KeySize()), 512)
				if err != nil {
					b.Fatal(err)
				}
				buf := make([]byte, n)
				b.SetBytes(int64(n))
				for b.Loop() {
					c.Decrypt(buf, buf, 1000)
				}
			})
		}
	}
}

// BenchmarkUnlock compares an Open with the password against the stretch
// alone (2^20 SHA-256 calls): the rest of the unlock should be noise.
func BenchmarkUnlock(b *testing.B) {
	f := openImage(b, "bitlk-aes-xts-128", false)
	m, err := ReadMetadata(f)
	if err != nil {
		b.Fatal(err)
	}
	salt := m.Protectors[0].Salt
	b.Run("stretch", func(b *testing.B) {
		for b.Loop() {
			passwordKey(Password("anaconda").data, salt)
		}
	})
	b.Run("Open-password", func(b *testing.B) {
		for b.Loop() {
			v, err := Open(f, Password("anaconda"), &Options{ReadOnly: true})
			if err != nil {
				b.Fatal(err)
			}
			v.Close()
		}
	})
}

// BenchmarkDecryptImage decrypts the whole 100 MiB AES-XTS-128 image, opened
// with its volume key, to a file in /dev/shm (or the temporary directory):
// compare with `dislocker-file -k FVEK-FILE -V IMAGE OUT`.
func BenchmarkDecryptImage(b *testing.B) {
	for _, name := range []string{"bitlk-aes-xts-128", "bitlk-aes-cbc-128", "bitlk-aes-cbc-elephant-128"} {
		b.Run(name, func(b *testing.B) {
			f := openImage(b, name, false)
			v, err := Open(f, Password("anaconda"), &Options{ReadOnly: true})
			if err != nil {
				b.Fatal(err)
			}
			key := v.FVEK()
			v.Close()
			dir := "/dev/shm"
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				dir = b.TempDir()
			}
			out, err := os.CreateTemp(dir, "bitlocker-bench-")
			if err != nil {
				b.Fatal(err)
			}
			defer os.Remove(out.Name())
			defer out.Close()
			b.SetBytes(v.Size())
			buf := make([]byte, 4<<20)
			for b.Loop() {
				v, err := Open(f, VolumeKey(key), &Options{ReadOnly: true})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := out.Seek(0, 0); err != nil {
					b.Fatal(err)
				}
				if _, err := io.CopyBuffer(out, io.NewSectionReader(v, 0, v.Size()), buf); err != nil {
					b.Fatal(err)
				}
				v.Close()
			}
		})
	}
}
