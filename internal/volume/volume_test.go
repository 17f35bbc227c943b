package volume

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fastxts/xts/internal/sector"
)

// memDev is a writable in-memory device.
type memDev struct{ b []byte }

func (d *memDev) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(d.b)) {
		return 0, io.EOF
	}
	n := copy(p, d.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (d *memDev) WriteAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > int64(len(d.b)) {
		return 0, errors.New("memDev: write past the end")
	}
	return copy(d.b[off:], p), nil
}

func (d *memDev) Size() int64 { return int64(len(d.b)) }

func newCipher(t *testing.T, ss int) *sector.Cipher {
	t.Helper()
	key := make([]byte, 64)
	for i := range key {
		key[i] = byte(i)
	}
	c, err := sector.New("aes-xts-plain64", key, sector.Numbering{SectorSize: ss})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestReadWriteAnyRange: writes and reads at random offsets and lengths
// (partial sectors, whole runs, chunk edges) agree with a plaintext model,
// the device holds the per-sector encryption of that model, and nothing
// outside the area changes.
func TestReadWriteAnyRange(t *testing.T) {
	for _, ss := range []int{512, 4096} {
		t.Run(fmt.Sprint("ss=", ss), func(t *testing.T) {
			const off, size, pad = 3 * 4096, 3 << 20, 8192
			dev := &memDev{b: make([]byte, off+size+pad)}
			for i := range dev.b {
				dev.b[i] = byte(i * 31)
			}
			orig := bytes.Clone(dev.b)
			c := newCipher(t, ss)
			v, err := New(Config{Data: dev, Offset: off, Size: size, SectorSize: ss, Cipher: c, Name: "test"})
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			model := make([]byte, size)
			c.Decrypt(model, dev.b[off:off+size], 0)
			r := rand.New(rand.NewPCG(1, uint64(ss)))
			for i := range 200 {
				o := r.Int64N(size)
				n := r.IntN(int(min(size-o, 1<<20))) + 1
				if i%2 == 0 {
					p := make([]byte, n)
					for j := range p {
						p[j] = byte(r.Uint32())
					}
					if got, err := v.WriteAt(p, o); err != nil || got != n {
						t.Fatalf("WriteAt(%d at %d) = %d, %v", n, o, got, err)
					}
					copy(model[o:], p)
				} else {
					p := make([]byte, n)
					if got, err := v.ReadAt(p, o); err != nil || got != n {
						t.Fatalf("ReadAt(%d at %d) = %d, %v", n, o, got, err)
					}
					if !bytes.Equal(p, model[o:o+int64(n)]) {
						t.Fatalf("ReadAt(%d at %d) differs from what was written", n, o)
					}
				}
			}
			want := make([]byte, size)
			c.Encrypt(want, model, 0)
			if !bytes.Equal(dev.b[off:off+size], want) {
				t.Fatal("the device does not hold the encryption of the written data")
			}
			if !bytes.Equal(dev.b[:off], orig[:off]) || !bytes.Equal(dev.b[off+size:], orig[off+size:]) {
				t.Fatal("bytes outside the data area changed")
			}
			// The end: a short read returns io.EOF, a write past it fails.
			p := make([]byte, 100)
			if n, err := v.ReadAt(p, size-50); n != 50 || err != io.EOF {
				t.Errorf("ReadAt across the end = %d, %v; want 50, io.EOF", n, err)
			}
			if _, err := v.WriteAt(p, size-50); err == nil || !strings.HasPrefix(err.Error(), "test: ") {
				t.Errorf("WriteAt across the end: %v", err)
			}
			if _, err := v.ReadAt(p, -1); err == nil {
				t.Error("ReadAt at a negative offset: no error")
			}
		})
	}
}

// TestGuard: a write the Guard refuses writes nothing and returns its
// error; the Guard sees the whole sectors the write replaces.
func TestGuard(t *testing.T) {
	dev := &memDev{b: make([]byte, 1<<20)}
	refuse := errors.New("protected")
	var seen [][2]int64
	v, err := New(Config{Data: dev, Size: 1 << 20, SectorSize: 512, Cipher: newCipher(t, 512),
		Guard: func(off, n int64) error {
			seen = append(seen, [2]int64{off, n})
			if off+n > 1<<19 {
				return refuse
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	before := bytes.Clone(dev.b)
	if _, err := v.WriteAt(make([]byte, 10), 1<<19-5); !errors.Is(err, refuse) {
		t.Fatalf("a write into the guarded range: %v", err)
	}
	if !bytes.Equal(dev.b, before) {
		t.Fatal("a refused write changed the device")
	}
	if _, err := v.WriteAt(make([]byte, 700), 100); err != nil {
		t.Fatal(err)
	}
	want := [][2]int64{{1<<19 - 512, 1024}, {0, 1024}}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("Guard saw %v, want %v", seen, want)
	}
}

// TestReadOnlyAndClose: ReadOnly refuses writes; Close wipes the cipher
// and makes I/O fail with ErrClosed.
func TestReadOnlyAndClose(t *testing.T) {
	dev := &memDev{b: make([]byte, 8192)}
	c := newCipher(t, 512)
	v, err := New(Config{Data: dev, Size: 8192, SectorSize: 512, Cipher: c, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if !v.ReadOnly() {
		t.Error("ReadOnly() = false")
	}
	if _, err := v.WriteAt([]byte{1}, 0); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("WriteAt on a read-only volume: %v", err)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := v.ReadAt(make([]byte, 1), 0); !errors.Is(err, ErrClosed) {
		t.Errorf("ReadAt after Close: %v", err)
	}
	if err := v.Flush(); !errors.Is(err, ErrClosed) {
		t.Errorf("Flush after Close: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("the cipher still works after Close")
		}
	}()
	c.Encrypt(make([]byte, 512), make([]byte, 512), 0)
}

// TestNewChecks: geometry errors name the format.
func TestNewChecks(t *testing.T) {
	dev := &memDev{b: make([]byte, 8192)}
	for _, c := range []Config{
		{Data: dev, Size: 8192, SectorSize: 768},
		{Data: dev, Size: 8192, SectorSize: 8192},
		{Data: dev, Size: 1000, SectorSize: 512},
		{Data: dev, Offset: -1, Size: 512, SectorSize: 512},
	} {
		c.Cipher, c.Name = newCipher(t, 512), "fmt"
		if _, err := New(c); err == nil || !strings.HasPrefix(err.Error(), "fmt: ") {
			t.Errorf("New(%+v): %v", c, err)
		}
	}
}

// TestMappedFile: a large image file is read through a mapping (on Linux)
// and reads the same as through the file; Flush syncs it.
func TestMappedFile(t *testing.T) {
	const size = 4 << 20
	f, err := os.Create(filepath.Join(t.TempDir(), "img"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(4096 + size); err != nil {
		t.Fatal(err)
	}
	v, err := New(Config{Data: f, Offset: 4096, Size: size, SectorSize: 4096, Cipher: newCipher(t, 4096), Map: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	p := make([]byte, size)
	for i := range p {
		p[i] = byte(i / 4096)
	}
	if _, err := v.WriteAt(p, 0); err != nil {
		t.Fatal(err)
	}
	if err := v.Flush(); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, size)
	if _, err := v.ReadAt(got, 0); err != nil || !bytes.Equal(got, p) {
		t.Fatalf("ReadAt after WriteAt: %v, equal %v (mapped %v)", err, bytes.Equal(got, p), v.Mapped())
	}
}
