package pump

import (
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on x86-64 (and on arm64
// with 4 KiB pages).
const hugePage = 2 << 20

// slab returns size bytes of the Go heap. From a quarter of a huge page
// on, they start on a huge-page boundary and the kernel is asked
// (MADV_HUGEPAGE) to back the whole huge pages they lie in with
// transparent huge pages: the first touch then costs one page fault per
// 2 MiB instead of one per 4 KiB. Page faults are dear in some virtual
// machines: about 18 µs each on this project's Zen 5 VM, where the two
// fresh 8 MiB buffers of a decrypt cost 70 ms before this, and even two
// 512 KiB ones 5 ms. The hint changes nothing else; where the kernel
// ignores it the memory is the same.
func slab(size int) []byte {
	if size < hugePage/4 {
		return make([]byte, size)
	}
	whole := (size + hugePage - 1) / hugePage * hugePage
	b := make([]byte, whole+hugePage)
	skip := 0
	if r := int(uintptr(unsafe.Pointer(unsafe.SliceData(b))) % hugePage); r != 0 {
		skip = hugePage - r
	}
	syscall.Madvise(b[skip:skip+whole], syscall.MADV_HUGEPAGE) // a hint: its error changes nothing
	return b[skip : skip+size : skip+size]
}

// mapped returns size bytes of an anonymous private mapping, outside the
// Go heap, that starts on a huge-page boundary with its huge pages hinted
// as slab's are, and the function that unmaps it; ok is false where the
// mapping failed.
func mapped(size int) (b []byte, release func(), ok bool) {
	whole := (size + hugePage - 1) / hugePage * hugePage
	m, err := syscall.Mmap(-1, 0, whole+hugePage, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, nil, false
	}
	skip := 0
	if r := int(uintptr(unsafe.Pointer(unsafe.SliceData(m))) % hugePage); r != 0 {
		skip = hugePage - r
	}
	syscall.Madvise(m[skip:skip+whole], syscall.MADV_HUGEPAGE) // a hint: its error changes nothing
	return m[skip : skip+size : skip+size], func() { syscall.Munmap(m) }, true
}
