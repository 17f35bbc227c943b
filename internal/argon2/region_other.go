//go:build !linux

package argon2

// allocRegion returns n blocks from the Go heap.
func allocRegion(n int) *region {
	regionBytes(n) // the same limit as on Linux
	return &region{blocks: make([]block, n)}
}
