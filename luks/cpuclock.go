package luks

import (
	"math"
	"runtime"
	"time"
)

// benchRuns is how many times the benchmark times each probe; it keeps the
// cheapest run.
const benchRuns = 3

// cheapest runs f benchRuns times and returns the least CPU time (user
// plus system) one run cost. CPU time, not wall-clock time: other processes
// taking turns on the cores make a run take longer, not cost more, so a
// busy machine does not make new keyslots cheaper; and the cheapest run is
// the one least disturbed by what CPU time still feels (caches and cores
// shared with other work). thread measures only the calling goroutine's
// thread, locked to it meanwhile (f must not start goroutines: pbkdf2);
// otherwise the whole process (argon2's lanes run on goroutines of their
// own), which also counts whatever else the process does meanwhile. Where
// the system reports no CPU time, wall-clock time is measured instead.
func cheapest(f func(), thread bool) time.Duration {
	clock := processCPUTime
	if thread {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		clock = threadCPUTime
	}
	best := time.Duration(math.MaxInt64)
	for range benchRuns {
		c0, w0 := clock(), time.Now()
		f()
		el := time.Since(w0)
		if c1 := clock(); c0 >= 0 && c1 >= c0 {
			el = c1 - c0
		}
		best = min(best, max(el, 1))
	}
	return best
}
