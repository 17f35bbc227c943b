package parallel

import (
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// Helpers linger. A goroutine started by a go statement first runs on an
// idle core only once the runtime has woken a thread there, and on a
// virtual machine whose idle vCPU has halted that takes long: on the
// 2-core Zen 5 VM this was measured on, about 100 µs at best, which is a
// third of an 8 MiB DecryptSectors call. So a helper that finishes its
// part of a Run does not exit at once: it waits, spinning, for the next
// Run to hand it work, and exits when none comes within its linger time.
// A Run that finds a lingering helper gives it work in a few hundred
// nanoseconds; one that finds none starts a new goroutine, as before.
//
// The linger time is as long as the helper just worked (at most
// maxLinger), so that spinning never costs more than the parallel work
// it serves: at most about twice the helper's CPU time for isolated calls,
// nothing extra for calls that follow each other. While it spins the
// helper yields its P (runtime.Gosched) at every turn, so it delays no
// other goroutine.

// maxLinger bounds how long an idle helper spins before it exits.
const maxLinger = 200 * time.Microsecond

// helper is one lingering goroutine.
type helper struct {
	// job is the Run handed to the helper: set once by the Run that
	// claimed it (state 0 -> 1), cleared by the helper.
	job   atomic.Pointer[run]
	state atomic.Int32 // helperIdle, helperClaimed or helperGone
}

const (
	helperIdle = iota
	helperClaimed
	helperGone
)

// idle holds the helpers lingering now, the newest last.
var idle struct {
	mu      sync.Mutex
	helpers []*helper
}

// startHelper runs a helper's share of r on a lingering helper, or on a
// new goroutine when none lingers.
func startHelper(j *run) {
	for {
		idle.mu.Lock()
		n := len(idle.helpers)
		if n == 0 {
			idle.mu.Unlock()
			break
		}
		h := idle.helpers[n-1]
		idle.helpers[n-1] = nil
		idle.helpers = idle.helpers[:n-1]
		idle.mu.Unlock()
		if h.state.CompareAndSwap(helperIdle, helperClaimed) {
			h.job.Store(j)
			return
		}
		// It timed out as we took it; try the next one.
	}
	h := &helper{}
	h.job.Store(j)
	h.state.Store(helperClaimed)
	started.Add(1)
	go h.loop()
}

// loop runs the helper's jobs until it has lingered without one.
func (h *helper) loop() {
	faults := false
	for {
		j := h.job.Load()
		for j == nil {
			runtime.Gosched()
			j = h.job.Load()
		}
		h.job.Store(nil)
		if j.faults != faults {
			debug.SetPanicOnFault(j.faults)
			faults = j.faults
		}
		start := time.Now()
		h.runJob(j)
		if !h.wait(min(time.Since(start), maxLinger)) {
			return
		}
	}
}

// runJob runs the helper's share of r, then offers the helper before r
// learns it is done, so that the Run its caller starts next finds this
// helper lingering. A panic in a piece is recovered in work;
// runtime.Goexit (t.FailNow in a test's piece, say) is not, and ends the
// helper: the deferred helperDone still counts it done, so that the Run
// returns, as it did when helpers were plain goroutines.
func (h *helper) runJob(r *run) {
	defer r.helperDone()
	r.work()
	h.offer()
}

// helperDone counts one of r's helpers done.
func (r *run) helperDone() {
	r.helpers.Add(-1)
	r.done.Done()
}

// offer lists the helper as lingering.
func (h *helper) offer() {
	h.state.Store(helperIdle)
	idle.mu.Lock()
	idle.helpers = append(idle.helpers, h)
	idle.mu.Unlock()
}

// wait lingers for up to linger after offer; it reports whether a Run
// claimed the helper (its job is then set or about to be).
func (h *helper) wait(linger time.Duration) bool {
	deadline := time.Now().Add(linger)
	for time.Now().Before(deadline) {
		if h.state.Load() == helperClaimed {
			return true
		}
		runtime.Gosched()
	}
	if h.state.CompareAndSwap(helperIdle, helperGone) {
		idle.mu.Lock()
		for i, o := range idle.helpers {
			if o == h {
				idle.helpers = append(idle.helpers[:i], idle.helpers[i+1:]...)
				break
			}
		}
		idle.mu.Unlock()
		return false
	}
	return true
}

// awaitHelpers waits for r's helpers. The caller, done with its own share
// after worked, spins (yielding its P) for up to as long again before it
// blocks: blocking lets its core go idle, and the wake-up after the last
// helper's Done would cost as much as a helper's start does.
func (r *run) awaitHelpers(worked time.Duration) {
	deadline := time.Now().Add(min(worked, maxLinger))
	for r.helpers.Load() > 0 && time.Now().Before(deadline) {
		runtime.Gosched()
	}
	r.done.Wait()
}

// started counts the helper goroutines ever started (tests).
var started atomic.Int64
