//go:build linux || ((darwin || freebsd) && !386 && !arm && !mips && !mipsle)

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

// TestDirectory checks the mounted directory around the file: it lists
// the file alone, refuses changes, reports a file system, and answers
// several large reads at once (each more than one request).
func TestDirectory(t *testing.T) {
	const size = 5 << 20
	b := &memBackend{data: pattern(size)}
	m := mount(t, b, Options{Name: "disk"})
	dir := m.Dir()
	path := filepath.Join(dir, "disk")

	if _, err := os.Stat(filepath.Join(dir, "volume")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stat of a name that is not there: %v, want ENOENT", err)
	}
	if _, err := os.Stat(filepath.Join(path, "x")); err == nil {
		t.Error("stat of a path under the file succeeded")
	}
	if err := os.WriteFile(filepath.Join(dir, "new"), []byte("x"), 0o600); !errors.Is(err, syscall.EPERM) {
		t.Errorf("creating a file: %v, want EPERM", err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); !errors.Is(err, syscall.EPERM) {
		t.Errorf("mkdir: %v, want EPERM", err)
	}
	if err := os.Remove(path); !errors.Is(err, syscall.EPERM) {
		t.Errorf("removing the file: %v, want EPERM", err)
	}
	if err := os.Rename(path, filepath.Join(dir, "other")); !errors.Is(err, syscall.EPERM) {
		t.Errorf("renaming the file: %v, want EPERM", err)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Errorf("the mount point: %v, %v", st, err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) != 1 || ents[0].Name() != "disk" || !ents[0].Type().IsRegular() {
		t.Errorf("directory: %v %v, want the regular file disk alone", ents, err)
	}
	var fs syscall.Statfs_t
	if err := syscall.Statfs(path, &fs); err != nil {
		t.Errorf("statfs: %v", err)
	} else if fs.Bsize != 4096 || uint64(fs.Blocks)*4096 < size {
		t.Errorf("statfs: block size %d, %d blocks, want 4096 and at least %d bytes", fs.Bsize, fs.Blocks, size)
	}

	// Several readers at once, each reading the whole file in 3 MiB reads
	// (every one more than the 1 MiB a request carries) from its own
	// starting point.
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			f, err := os.Open(path)
			if err != nil {
				t.Error(err)
				return
			}
			defer f.Close()
			got := make([]byte, 3<<20)
			for k := range 5 {
				off := int64((i*5+k)*(1<<20)+i*4096) % size
				n, err := f.ReadAt(got, off)
				if want := min(len(got), size-int(off)); n != want || (err != nil && n != size-int(off)) {
					t.Errorf("read of %d at %d: %d bytes, %v", len(got), off, n, err)
					return
				}
				if !bytes.Equal(got[:n], b.data[off:off+int64(n)]) {
					t.Errorf("read of %d at %d differs from the backend", len(got), off)
					return
				}
			}
		})
	}
	wg.Wait()
}
