package pump

import (
	"testing"
	"unsafe"
)

// TestBuffers: n buffers of the size asked, zeroed, each with its own
// memory (full slice expressions: appending to one cannot reach the next).
func TestBuffers(t *testing.T) {
	for _, tc := range []struct{ n, size int }{{0, 100}, {1, 0}, {1, 1}, {3, 4096}, {2, 8 << 20}, {5, 512 << 10}, {3, 3<<20 + 17}} {
		bufs := Buffers(tc.n, tc.size)
		if len(bufs) != tc.n {
			t.Fatalf("Buffers(%d, %d): %d buffers", tc.n, tc.size, len(bufs))
		}
		seen := map[uintptr]bool{}
		for i, b := range bufs {
			if len(b) != tc.size || cap(b) != tc.size {
				t.Fatalf("Buffers(%d, %d)[%d]: len %d cap %d", tc.n, tc.size, i, len(b), cap(b))
			}
			for j, c := range b {
				if c != 0 {
					t.Fatalf("Buffers(%d, %d)[%d][%d] = %d, want 0", tc.n, tc.size, i, j, c)
				}
			}
			if tc.size > 0 {
				p := uintptr(unsafe.Pointer(&b[0]))
				if seen[p] {
					t.Fatalf("Buffers(%d, %d): two buffers share memory", tc.n, tc.size)
				}
				seen[p] = true
				b[0], b[len(b)-1] = 1, 2 // writable; later buffers still zero
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Buffers(-1, 1) did not panic")
		}
	}()
	Buffers(-1, 1)
}
