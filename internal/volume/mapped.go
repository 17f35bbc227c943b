package volume

import (
	"fmt"

	"github.com/fastxts/xts/internal/parallel"
)

// Bulk reads from an image file map its data area read-only (on Linux,
// mapped_linux.go) and decrypt straight from the page cache into the
// caller's buffer: the same single pass as DecryptSectors over bytes in
// memory, where a read into a buffer first would copy every byte once
// more. Writes still go through the file; the shared mapping sees them.

// minMapped is the smallest data area worth mapping.
const minMapped = 1 << 20

// readMapped decrypts the whole sectors at area offset off from the
// mapping into p. If the file shrank under the mapping, the access faults:
// parallel.CatchFaults makes that an error instead of a crash, on this
// goroutine and on any the decryption spreads to.
func (v *Volume) readMapped(p []byte, off int64) error {
	err := parallel.CatchFaults(func() error {
		v.c.Decrypt(p, v.seg[off:off+int64(len(p))], uint64(off)/uint64(v.sectorSize))
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: reading %d bytes at %d of the mapped image: %w (did the file shrink?)", v.name, len(p), v.off+off, err)
	}
	return nil
}
