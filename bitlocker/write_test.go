package bitlocker

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// copyImage copies an image into the test's temporary directory.
func copyImage(t *testing.T, name string) string {
	t.Helper()
	src, err := os.Open(filepath.Join(images(t), name+".img"))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	path := filepath.Join(t.TempDir(), name+".img")
	dst, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// protectedBytes returns what must not change on the raw image: the boot
// sectors that BitLocker keeps in place and the three metadata areas.
func protectedBytes(t *testing.T, path string, m *Metadata) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []byte
	areas := [][2]int64{{0, m.HeaderSize}}
	for _, o := range m.MetadataOffsets {
		areas = append(areas, [2]int64{o, MetadataAreaSize})
	}
	for _, a := range areas {
		b := make([]byte, a[1])
		if _, err := f.ReadAt(b, a[0]); err != nil {
			t.Fatal(err)
		}
		out = append(out, b...)
	}
	return out
}

// TestWrite writes random data at random offsets (partial sectors, the
// relocated boot sectors, across their end), refuses writes into the
// metadata areas, then reopens the image: the volume reads back as the
// model, the metadata bytes are unchanged, and dislocker-file (when
// installed) decrypts the written image to the same bytes.
func TestWrite(t *testing.T) {
	names := []string{"bitlk-aes-xts-128", "bitlk-aes-cbc-elephant-128", "bitlk-aes-cbc-128-4k", "bitlk-togo-aes-cbc-128"}
	if testing.Short() {
		names = names[:1]
	}
	for i, name := range names {
		t.Run(name, func(t *testing.T) {
			path := copyImage(t, name)
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			m, err := ReadMetadata(f)
			if err != nil {
				t.Fatal(err)
			}
			before := protectedBytes(t, path, m)
			v, err := Open(f, Password("anaconda"), &Options{Metadata: m})
			if err != nil {
				t.Fatal(err)
			}
			model := make([]byte, v.Size())
			if _, err := v.ReadAt(model, 0); err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			write := func(off int64, n int) error {
				p := make([]byte, n)
				for j := range p {
					p[j] = byte(rng.Uint32())
				}
				k, err := v.WriteAt(p, off)
				if err == nil {
					if k != n {
						t.Fatalf("wrote %d of %d", k, n)
					}
					copy(model[off:], p)
				} else if k != 0 {
					t.Fatalf("refused write at %d wrote %d bytes", off, k)
				}
				return err
			}
			// The boot sectors, partially and across the end of the copy.
			hs := m.HeaderSize
			for _, w := range [][2]int64{{0, 512}, {3, 100}, {hs - 700, 1400}, {hs - 512, 512}, {hs, 4096}} {
				if err := write(w[0], int(w[1])); err != nil {
					t.Fatalf("write [%d, +%d): %v", w[0], w[1], err)
				}
			}
			refusedN, okN := 0, 0
			for j := 0; j < 300; j++ {
				n := 1 + rng.IntN(70000)
				off := rng.Int64N(v.Size() - int64(n))
				if j%10 == 0 { // aim at a metadata area
					z := v.zeros[rng.IntN(len(v.zeros))]
					off = max(0, z[0]-int64(rng.IntN(1000)))
				}
				err := write(off, n)
				switch {
				case err == nil:
					okN++
				case errors.Is(err, ErrProtectedArea):
					refusedN++
				default:
					t.Fatal(err)
				}
			}
			if refusedN == 0 || okN < 200 {
				t.Fatalf("%d writes refused, %d done", refusedN, okN)
			}
			if _, err := v.WriteAt([]byte{1}, v.Size()); err == nil {
				t.Error("write past the end accepted")
			}
			// Read back through the open volume, in odd pieces.
			got := make([]byte, len(model))
			for off := 0; off < len(got); {
				n := min(len(got)-off, 1+rng.IntN(3<<20))
				if _, err := v.ReadAt(got[off:off+n], int64(off)); err != nil {
					t.Fatal(err)
				}
				off += n
			}
			if !bytes.Equal(got, model) {
				t.Fatal("read back differs from the model")
			}
			if err := v.Flush(); err != nil {
				t.Fatal(err)
			}
			v.Close()
			if _, err := v.ReadAt(got[:1], 0); err == nil {
				t.Error("read after Close succeeded")
			}
			if !bytes.Equal(protectedBytes(t, path, m), before) {
				t.Fatal("the metadata bytes on the image changed")
			}
			v2, err := Open(f, Password("anaconda"), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer v2.Close()
			sum := sha256.Sum256(model)
			want := hex.EncodeToString(sum[:])
			if got := volumeSHA256(t, v2); got != want {
				t.Fatal("reopened volume differs from the model")
			}
			if !testing.Short() {
				if d, ok := dislockerDecrypt(t, path, "-uanaconda"); ok && d != want {
					t.Errorf("dislocker-file reads the written image as %s, we wrote %s", d, want)
				}
			}
		})
	}
}
