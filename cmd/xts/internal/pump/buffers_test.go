package pump

import (
	"testing"
	"unsafe"
)

// TestBuffers: n buffers of the size asked, zeroed, each with its own
// memory (full slice expressions: appending to one cannot reach the next),
// from the heap (Buffers) and from a mapping (MappedBuffers).
func TestBuffers(t *testing.T) {
	for _, tc := range []struct{ n, size int }{{0, 100}, {1, 0}, {1, 1}, {3, 4096}, {2, 8 << 20}, {5, 512 << 10}, {3, 3<<20 + 17}} {
		checkBuffers(t, tc.n, tc.size, Buffers(tc.n, tc.size))
		bufs, release := MappedBuffers(tc.n, tc.size)
		checkBuffers(t, tc.n, tc.size, bufs)
		release()
	}
	for _, f := range []func(){func() { Buffers(-1, 1) }, func() { MappedBuffers(1, -1) }} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("a negative count or size did not panic")
				}
			}()
			f()
		}()
	}
}

// checkBuffers checks what Buffers(n, size) or MappedBuffers(n, size)
// returned.
func checkBuffers(t *testing.T, n, size int, bufs [][]byte) {
	t.Helper()
	if len(bufs) != n {
		t.Fatalf("Buffers(%d, %d): %d buffers", n, size, len(bufs))
	}
	seen := map[uintptr]bool{}
	for i, b := range bufs {
		if len(b) != size || cap(b) != size {
			t.Fatalf("Buffers(%d, %d)[%d]: len %d cap %d", n, size, i, len(b), cap(b))
		}
		for j, c := range b {
			if c != 0 {
				t.Fatalf("Buffers(%d, %d)[%d][%d] = %d, want 0", n, size, i, j, c)
			}
		}
		if size > 0 {
			p := uintptr(unsafe.Pointer(&b[0]))
			if seen[p] {
				t.Fatalf("Buffers(%d, %d): two buffers share memory", n, size)
			}
			seen[p] = true
			b[0], b[len(b)-1] = 1, 2 // writable; later buffers still zero
		}
	}
}
