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
