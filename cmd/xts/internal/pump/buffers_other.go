//go:build !linux

package pump

// slab returns size bytes of the Go heap.
func slab(size int) []byte { return make([]byte, size) }
