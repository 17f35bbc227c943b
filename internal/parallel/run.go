package parallel

import (
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// Run calls fn(lo, hi) for consecutive pieces [lo, hi) of [0, n), each at
// most grain long, which together cover [0, n) exactly once. The calling
// goroutine and up to workers-1 helper goroutines take the next piece as
// they finish the last, so a helper that starts late (a core waking from
// idle) costs only the pieces it did not take. With workers <= 1, or one
// piece, everything runs on the calling goroutine.
//
// Run returns when every piece has finished or been given up: after the
// first error no further piece starts, and that error is returned. A
// panic in fn is re-raised in the caller once all goroutines have
// stopped, as a *Panic with the stack of the goroutine that panicked (on
// the caller's own goroutine, when nothing runs in parallel, the panic is
// not wrapped). Helpers inherit the caller's debug.SetPanicOnFault
// setting; see CatchFaults.
//
// n < 0 or grain < 1 is a programmer error and panics.
func Run(n, grain, workers int, fn func(lo, hi int) error) error {
	if n < 0 || grain < 1 {
		panic("parallel: Run with a negative length or a grain below 1")
	}
	pieces := n / grain
	if n%grain != 0 {
		pieces++
	}
	workers = min(workers, pieces)
	if workers <= 1 {
		for lo := 0; lo < n; lo += grain {
			if err := fn(lo, lo+min(grain, n-lo)); err != nil {
				return err
			}
		}
		return nil
	}
	r := &run{n: n, grain: grain, pieces: int64(pieces), fn: fn}
	r.faults = debug.SetPanicOnFault(false)
	debug.SetPanicOnFault(r.faults)
	r.helpers.Store(int32(workers - 1))
	r.done.Add(workers - 1)
	for range workers - 1 {
		startHelper(r)
	}
	start := time.Now()
	r.work()
	r.awaitHelpers(time.Since(start))
	if r.panicked != nil {
		panic(r.panicked)
	}
	return r.err
}

// run is the state one Run shares between its goroutines. next, the
// counter every piece is claimed from, is written by every goroutine:
// it sits on a cache line of its own so that claiming a piece does not
// evict what the others read.
type run struct {
	_    [64]byte
	next atomic.Int64
	_    [56]byte
	stop atomic.Bool
	// helpers counts the helpers still working and done waits for them
	// (see helperDone and awaitHelpers).
	helpers atomic.Int32
	done    sync.WaitGroup
	faults  bool // the caller's debug.SetPanicOnFault setting, for the helpers
	n       int
	grain   int
	pieces  int64
	fn      func(lo, hi int) error

	mu       sync.Mutex
	err      error
	panicked *Panic
}

// work claims and runs pieces until none is left or the run has stopped.
func (r *run) work() {
	defer func() {
		if v := recover(); v != nil {
			r.fail(nil, newPanic(v))
		}
	}()
	for !r.stop.Load() {
		i := r.next.Add(1) - 1
		if i >= r.pieces {
			return
		}
		lo := int(i) * r.grain
		if err := r.fn(lo, lo+min(r.grain, r.n-lo)); err != nil {
			r.fail(err, nil)
			return
		}
	}
}

// fail records the first error or panic and stops the hand-out; a panic
// wins over an error.
func (r *run) fail(err error, p *Panic) {
	r.stop.Store(true)
	r.mu.Lock()
	defer r.mu.Unlock()
	if p != nil && r.panicked == nil {
		r.panicked = p
	}
	if err != nil && r.err == nil {
		r.err = err
	}
}
