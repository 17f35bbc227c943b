package nbd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// Backend is the data an export serves. The server validates every
// request against Size before calling it, so ReadAt and WriteAt only see
// ranges inside [0, Size()); they must accept any offset and length in
// that range (the server does no read-modify-write of partial sectors:
// luks.Volume and a plain file do their own). ReadAt may return io.EOF
// together with a full read. All methods may be called from several
// goroutines at once.
type Backend interface {
	// Size is the export's size in bytes; it does not change while the
	// server runs.
	Size() int64
	// BlockSize is the backend's sector size, advertised to clients as
	// the minimum block size: a power of two from 1 to 65536.
	BlockSize() int
	// ReadOnly reports whether the export refuses writes.
	ReadOnly() bool
	io.ReaderAt
	io.WriterAt
	// Flush makes every write that has returned durable (fsync).
	Flush() error
}

// Trimmer is a Backend that can discard a range. The server advertises
// NBD_CMD_TRIM only for backends that implement it; after a trim, reads
// of the range may return anything.
type Trimmer interface {
	Trim(off, n int64) error
}

// Zeroer is a Backend with a fast way to make a range read as zeros.
// Backends without it get NBD_CMD_WRITE_ZEROES as ordinary writes of
// zeros (through the cipher, for an encrypted image). mayTrim is false
// when the client asked for the space to stay allocated (NBD_CMD_FLAG_NO_HOLE).
type Zeroer interface {
	WriteZeroes(off, n int64, mayTrim bool) error
}

// checkBackend returns an error when b cannot be served.
func checkBackend(b Backend) error {
	if b == nil {
		return errors.New("nbd: no backend")
	}
	if b.Size() < 0 {
		return fmt.Errorf("nbd: negative backend size %d", b.Size())
	}
	bs := b.BlockSize()
	if bs < 1 || bs > 1<<16 || bs&(bs-1) != 0 {
		return fmt.Errorf("nbd: backend block size %d is not a power of two from 1 to 65536", bs)
	}
	return nil
}

// Mem is a Backend held in memory, for tests and examples.
type Mem struct {
	mu        sync.RWMutex
	data      []byte
	blockSize int
	readOnly  bool
}

// NewMem returns a Mem serving data (not copied) with the given block
// size.
func NewMem(data []byte, blockSize int, readOnly bool) *Mem {
	return &Mem{data: data, blockSize: blockSize, readOnly: readOnly}
}

// Size implements Backend.
func (m *Mem) Size() int64 { return int64(len(m.data)) }

// BlockSize implements Backend.
func (m *Mem) BlockSize() int { return m.blockSize }

// ReadOnly implements Backend.
func (m *Mem) ReadOnly() bool { return m.readOnly }

// ReadAt implements Backend.
func (m *Mem) ReadAt(p []byte, off int64) (int, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if off < 0 || off > int64(len(m.data)) {
		return 0, fmt.Errorf("nbd: read at %d outside the %d-byte memory backend", off, len(m.data))
	}
	n := copy(p, m.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// WriteAt implements Backend.
func (m *Mem) WriteAt(p []byte, off int64) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.readOnly {
		return 0, errors.New("nbd: memory backend is read-only")
	}
	if off < 0 || off > int64(len(m.data)) || int64(len(p)) > int64(len(m.data))-off {
		return 0, fmt.Errorf("nbd: write of %d bytes at %d outside the %d-byte memory backend", len(p), off, len(m.data))
	}
	return copy(m.data[off:], p), nil
}

// Flush implements Backend; memory has nothing to flush.
func (m *Mem) Flush() error { return nil }

// Bytes returns a copy of the data.
func (m *Mem) Bytes() []byte {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return append([]byte(nil), m.data...)
}

// File is a Backend on a plain file or block device: every write goes to
// the one shared *os.File and Flush fsyncs it, so a flush on any
// connection covers the writes acknowledged on all of them.
type File struct {
	f         *os.File
	size      int64
	blockSize int
	readOnly  bool
}

// NewFile returns a File serving the first size bytes of f.
func NewFile(f *os.File, size int64, blockSize int, readOnly bool) *File {
	return &File{f: f, size: size, blockSize: blockSize, readOnly: readOnly}
}

// Size implements Backend.
func (b *File) Size() int64 { return b.size }

// BlockSize implements Backend.
func (b *File) BlockSize() int { return b.blockSize }

// ReadOnly implements Backend.
func (b *File) ReadOnly() bool { return b.readOnly }

// ReadAt implements Backend.
func (b *File) ReadAt(p []byte, off int64) (int, error) { return b.f.ReadAt(p, off) }

// WriteAt implements Backend.
func (b *File) WriteAt(p []byte, off int64) (int, error) {
	if b.readOnly {
		return 0, errors.New("nbd: file backend is read-only")
	}
	return b.f.WriteAt(p, off)
}

// Flush implements Backend: fsync.
func (b *File) Flush() error {
	if b.readOnly {
		return nil
	}
	return b.f.Sync()
}
