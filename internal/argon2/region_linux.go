package argon2

import (
	"syscall"
	"unsafe"
)

// madvHugepage is Linux's MADV_HUGEPAGE (14 on every architecture Go
// supports), which package syscall does not name.
const madvHugepage = 14

// hugePageAlign is the size of a transparent huge page on the architectures
// this matters for (2 MiB on amd64 and arm64 with 4 KiB pages).
const hugePageAlign = 2 << 20

// minMapped is the smallest region worth a mapping of its own (two huge
// pages); smaller ones come from the Go heap.
const minMapped = 2 * hugePageAlign

// allocRegion maps n blocks of anonymous memory, aligned to a huge page and
// advised for transparent huge pages: the kernel then faults the region in
// 2 MiB at a time (where THP is enabled for madvise, the common setting)
// rather than page by page, which for cryptsetup's 1 GiB default is most of
// the system time of a plain Go allocation. The advice is best effort; if
// the mapping itself fails the memory comes from the Go heap, as it does
// for regions under minMapped.
func allocRegion(n int) *region {
	size := regionBytes(n)
	if size < minMapped {
		// A huge page for a few KiB would cost more than it saves.
		return &region{blocks: make([]block, n)}
	}
	// Whole huge pages from an aligned start: map one more to have room
	// to align, and advise the rounded-up range.
	span := (size + hugePageAlign - 1) &^ (hugePageAlign - 1)
	mapped, err := syscall.Mmap(-1, 0, span+hugePageAlign, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return &region{blocks: make([]block, n)}
	}
	skip := 0
	if rem := uintptr(unsafe.Pointer(&mapped[0])) % hugePageAlign; rem != 0 {
		skip = hugePageAlign - int(rem)
	}
	_ = syscall.Madvise(mapped[skip:skip+span], madvHugepage)
	return &region{
		blocks: unsafe.Slice((*block)(unsafe.Pointer(&mapped[skip])), n),
		unmap:  func() { _ = syscall.Munmap(mapped) },
	}
}
