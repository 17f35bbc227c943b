//go:build !linux

package pump

// slab returns size bytes of the Go heap.
func slab(size int) []byte { return make([]byte, size) }

// mapped maps nothing here: MappedBuffers takes the Go heap.
func mapped(size int) (b []byte, release func(), ok bool) { return nil, nil, false }
