package luks

import (
	"io"
	"os"
	"syscall"
)

// mapSegment maps [off, off+size) of data read-only and shared when data
// is a file and the segment is large enough to gain from it; it returns
// the whole mapping and the segment within it, or nils (the caller then
// reads through data).
func mapSegment(data io.ReaderAt, off, size int64) (mapping, seg []byte) {
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

func unmapSegment(mapping []byte) { syscall.Munmap(mapping) }
