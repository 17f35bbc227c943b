//go:build !linux

package argon2

// allocRegion returns n blocks from the Go heap.
func allocRegion(n int) *region {
	return &region{blocks: make([]block, n)}
}
