package volume

import (
	"io"
	"os"
	"syscall"
)

// mapArea maps [off, off+size) of data read-only and shared when data
// is a file and the area is large enough to gain from it; it returns
// the whole mapping and the area within it, or nils (the caller then
// reads through data).
func mapArea(data io.ReaderAt, off, size int64) (mapping, seg []byte) {
	f, ok := data.(*os.File)
	if !ok || size < minMapped {
		return nil, nil
	}
	page := int64(os.Getpagesize())
	start := off &^ (page - 1)
	length := off - start + size
	if length != int64(int(length)) {
		return nil, nil // larger than this platform's address space
	}
	m, err := syscall.Mmap(int(f.Fd()), start, int(length), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil
	}
	return m, m[off-start:]
}

func unmapArea(mapping []byte) { syscall.Munmap(mapping) }
