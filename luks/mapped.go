package luks

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Bulk reads from an image file map its data segment read-only (on Linux,
// mapped_linux.go) and decrypt straight from the page cache into the
// caller's buffer: the same single pass as DecryptSectors over bytes in
// memory, where a read into a buffer first would copy every byte once
// more. Writes still go through the file; the shared mapping sees them.

// minMapped is the smallest data segment worth mapping.
const minMapped = 1 << 20

// faultAddr is what a memory fault becomes under debug.SetPanicOnFault.
type faultAddr interface{ Addr() uintptr }

// isFault reports whether r, a recovered panic, is a memory fault: an
// error with the faulting address, or, where the signal carries none (as
// under qemu-user), the runtime's invalid-memory-address error.
func isFault(r any) bool {
	if _, ok := r.(faultAddr); ok {
		return true
	}
	e, ok := r.(runtime.Error)
	return ok && strings.Contains(e.Error(), "invalid memory address")
}

// readMapped decrypts the whole sectors at segment offset off from the
// mapping into p. If the file shrank under the mapping, the access faults:
// that becomes an error instead of a crash.
func (v *Volume) readMapped(p []byte, off int64) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if !isFault(r) {
				panic(r)
			}
			err = fmt.Errorf("luks: reading %d bytes at %d of the mapped image: %v (did the file shrink?)", len(p), v.off+off, r)
		}
	}()
	v.sc.decryptTo(p, v.seg[off:off+int64(len(p))], off)
	return nil
}
