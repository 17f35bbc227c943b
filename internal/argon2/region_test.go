package argon2

import (
	"testing"
	"unsafe"
)

// TestWipeBlocks checks that wipeBlocks zeroes every word of regions below
// and above the size it splits across goroutines, the split's last, short
// part included.
func TestWipeBlocks(t *testing.T) {
	for _, n := range []int{1, 100, 16<<10 + 3, 3*16<<10 + 1} {
		b := make([]block, n)
		for i := range b {
			for j := range b[i] {
				b[i][j] = uint64(i*blockWords+j) | 1
			}
		}
		wipeBlocks(b)
		for i := range b {
			if b[i] != (block{}) {
				t.Fatalf("n=%d: block %d not zeroed", n, i)
			}
		}
	}
}

// TestAllocRegion checks that a region has the blocks asked for, writable
// end to end, and (where it is a mapping) starts on a huge-page boundary,
// and that free empties it.
func TestAllocRegion(t *testing.T) {
	for _, n := range []int{1, 3000, 5000} {
		r := allocRegion(n)
		if len(r.blocks) != n {
			t.Fatalf("allocRegion(%d): %d blocks", n, len(r.blocks))
		}
		if mapped := r.unmap != nil; mapped != (n*1024 >= minMapped) {
			t.Errorf("allocRegion(%d): mapped %v, want a mapping from %d bytes up", n, mapped, minMapped)
		}
		if r.unmap != nil {
			if addr := uintptr(unsafe.Pointer(&r.blocks[0])); addr%hugePageAlign != 0 {
				t.Errorf("allocRegion(%d): mapping at %#x, not %d-aligned", n, addr, hugePageAlign)
			}
		}
		r.blocks[0][0], r.blocks[n-1][blockWords-1] = 1, 2
		r.free()
		if r.blocks != nil || r.unmap != nil {
			t.Errorf("allocRegion(%d): free left the region set", n)
		}
	}
}
