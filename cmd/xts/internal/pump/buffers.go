package pump

// Buffers returns n buffers of size bytes each, cut from one allocation
// (slab) that, where the platform allows, the kernel backs with huge
// pages. Run takes its chunk buffers from here; so may other engines of
// the command that keep a few large buffers for a whole run.
func Buffers(n, size int) [][]byte {
	if n < 0 || size < 0 {
		panic("pump: Buffers with a negative count or size")
	}
	mem := slab(n * size)
	bufs := make([][]byte, n)
	for i := range bufs {
		bufs[i] = mem[i*size : (i+1)*size : (i+1)*size]
	}
	return bufs
}

// MappedBuffers is Buffers outside the Go heap (on Linux: an anonymous
// mapping, its huge pages hinted), for a caller that knows when the
// buffers are no longer used: they neither start nor lengthen a garbage
// collection, which a few MiB of fresh heap do in a short-lived command
// (about 5 ms of CPU here). release unmaps them; after it any use of them
// crashes the program, so it must come after every goroutine that touches
// them has finished. Where no mapping can be made they come from the heap
// and release does nothing.
func MappedBuffers(n, size int) (bufs [][]byte, release func()) {
	if n < 0 || size < 0 {
		panic("pump: MappedBuffers with a negative count or size")
	}
	if n*size == 0 {
		return Buffers(n, size), func() {}
	}
	mem, release, ok := mapped(n * size)
	if !ok {
		return Buffers(n, size), func() {}
	}
	bufs = make([][]byte, n)
	for i := range bufs {
		bufs[i] = mem[i*size : (i+1)*size : (i+1)*size]
	}
	return bufs, release
}
