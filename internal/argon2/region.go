package argon2

import (
	"math"
	"runtime"
	"sync"
)

// region is the memory of one Argon2 call: its blocks and the way to give
// them back.
type region struct {
	blocks []block
	unmap  func() // returns the memory to the system; nil for Go memory
}

// regionBytes is the size of n blocks in bytes; it panics if that does not
// fit an int with room for alignment (a memory cost of terabytes, or over
// 2 GiB on a 32-bit platform).
func regionBytes(n int) int {
	const blockBytes = blockWords * 8
	if n < 0 || n > (math.MaxInt-8<<20)/blockBytes {
		panic("xts: argon2: memory cost too large for this platform")
	}
	return n * blockBytes
}

// free zeroes the blocks, several goroutines side by side for a large
// region, and unmaps them.
func (r *region) free() {
	wipeBlocks(r.blocks)
	r.blocks = nil
	if r.unmap != nil {
		r.unmap()
		r.unmap = nil
	}
}

// wipeBlocks zeroes b, split over up to GOMAXPROCS goroutines when it is
// large enough for that to pay.
func wipeBlocks(b []block) {
	const perWorker = 16 << 10 // blocks (16 MiB)
	workers := min(runtime.GOMAXPROCS(0), (len(b)+perWorker-1)/perWorker)
	if workers <= 1 {
		clear(b)
		return
	}
	var wg sync.WaitGroup
	chunk := (len(b) + workers - 1) / workers
	for lo := 0; lo < len(b); lo += chunk {
		part := b[lo:min(lo+chunk, len(b))]
		wg.Go(func() { clear(part) })
	}
	wg.Wait()
}
