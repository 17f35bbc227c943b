//go:build (linux || darwin || freebsd) && !386 && !arm && !mips && !mipsle

package fusefile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// memBackend is a Backend in memory that counts Syncs.
type memBackend struct {
	mu    sync.Mutex
	data  []byte
	syncs atomic.Int64
}

func (m *memBackend) ReadAt(p []byte, off int64) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return copy(p, m.data[off:]), nil
}

func (m *memBackend) WriteAt(p []byte, off int64) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return copy(m.data[off:], p), nil
}

func (m *memBackend) Size() int64 { return int64(len(m.data)) }
func (m *memBackend) Sync() error { m.syncs.Add(1); return nil }

func mount(t *testing.T, b Backend, o Options) *Mount {
	t.Helper()
	if err := Available(); err != nil {
		t.Skipf("FUSE cannot be used here: %v", err)
	}
	m, err := New(t.TempDir(), b, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := m.Unmount(); err != nil {
			t.Errorf("unmount: %v", err)
		}
		m.Wait()
	})
	return m
}

func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i>>9)
	}
	return b
}

func TestReadWrite(t *testing.T) {
	const size = 3<<20 + 4096
	b := &memBackend{data: pattern(size)}
	want := bytes.Clone(b.data)
	m := mount(t, b, Options{})
	path := filepath.Join(m.Dir(), "volume")

	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() != size || st.Mode().Perm() != 0o600 || !st.Mode().IsRegular() {
		t.Fatalf("stat: size %d mode %v, want %d and -rw-------", st.Size(), st.Mode(), size)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("read back differs from the backend")
	}

	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Odd offsets and lengths, one across the 1 MiB request size.
	for _, w := range []struct{ off, n int }{{1, 1}, {4095, 3}, {1<<20 - 5, 2<<20 + 11}, {size - 7, 7}} {
		p := bytes.Repeat([]byte{byte(w.off)}, w.n)
		if _, err := f.WriteAt(p, int64(w.off)); err != nil {
			t.Fatalf("write %d at %d: %v", w.n, w.off, err)
		}
		copy(want[w.off:], p)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if b.syncs.Load() == 0 {
		t.Error("fsync did not reach the backend's Sync")
	}
	b.mu.Lock()
	same := bytes.Equal(b.data, want)
	b.mu.Unlock()
	if !same {
		t.Fatal("backend differs from the writes made through the mount")
	}
	got = make([]byte, size)
	if _, err := f.ReadAt(got, 0); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("read through the mount after writing differs")
	}

	// The size is fixed: past the end is ENOSPC, a truncate is refused.
	if _, err := f.WriteAt([]byte{1}, size); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("write at the end: %v, want ENOSPC", err)
	}
	if err := f.Truncate(size - 1); !errors.Is(err, syscall.EPERM) {
		t.Errorf("truncate: %v, want EPERM", err)
	}
	if _, err := os.OpenFile(path, os.O_RDWR|os.O_TRUNC, 0); !errors.Is(err, syscall.EPERM) {
		t.Errorf("open with O_TRUNC: %v, want EPERM", err)
	}
	if err := os.Chmod(path, 0o644); !errors.Is(err, syscall.EPERM) {
		t.Errorf("chmod: %v, want EPERM", err)
	}
	if st, err := os.Stat(path); err != nil || st.Size() != size {
		t.Errorf("after the refused changes: %v, size %d", err, st.Size())
	}
	ents, err := os.ReadDir(m.Dir())
	if err != nil || len(ents) != 1 || ents[0].Name() != "volume" {
		t.Errorf("directory: %v %v, want just volume", ents, err)
	}
}

func TestReadOnly(t *testing.T) {
	b := &memBackend{data: pattern(1 << 16)}
	m := mount(t, b, Options{ReadOnly: true, Name: "disk.raw"})
	path := filepath.Join(m.Dir(), "disk.raw")
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o400 {
		t.Errorf("mode %v, want -r--------", st.Mode())
	}
	if _, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
		t.Fatal("opening a read-only mount for writing succeeded")
	} else if !errors.Is(err, syscall.EROFS) && !errors.Is(err, syscall.EACCES) {
		t.Errorf("open for writing: %v, want EROFS or EACCES", err)
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, b.data) {
		t.Fatalf("read: %v, equal %v", err, bytes.Equal(got, b.data))
	}
}

// failing is a backend whose I/O fails with a given error.
type failing struct {
	memBackend
	err error
}

func (f *failing) ReadAt(p []byte, off int64) (int, error)  { return 0, f.err }
func (f *failing) WriteAt(p []byte, off int64) (int, error) { return 0, f.err }
func (f *failing) Sync() error                              { return f.err }

func TestErrorsReachTheCaller(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want syscall.Errno
	}{
		{"errno kept", &os.PathError{Op: "write", Path: "img", Err: syscall.ENOSPC}, syscall.ENOSPC},
		{"other errors are EIO", errors.New("luks: volume is closed"), syscall.EIO},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &failing{memBackend: memBackend{data: make([]byte, 1<<16)}, err: tc.err}
			m := mount(t, b, Options{})
			f, err := os.OpenFile(filepath.Join(m.Dir(), "volume"), os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.ReadAt(make([]byte, 4096), 0); !errors.Is(err, tc.want) {
				t.Errorf("read: %v, want %v", err, tc.want)
			}
			if _, err := f.WriteAt(make([]byte, 4096), 0); !errors.Is(err, tc.want) {
				t.Errorf("write: %v, want %v", err, tc.want)
			}
			if err := f.Sync(); !errors.Is(err, tc.want) {
				t.Errorf("fsync: %v, want %v", err, tc.want)
			}
		})
	}
}
