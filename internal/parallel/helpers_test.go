package parallel

import (
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// spin works for about d without yielding, as a piece of real work does.
func spin(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
	}
}

// TestHelpersReused: Runs that follow each other hand their work to the
// helper the Run before left lingering, instead of starting a goroutine
// each, and every piece is still done exactly once.
func TestHelpersReused(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs GOMAXPROCS >= 2: a lingering helper spins on a P of its own")
	}
	const runs = 100
	before := started.Load()
	for range runs {
		var done [8]atomic.Int32
		Run(8, 1, 2, func(lo, hi int) error {
			spin(50 * time.Microsecond)
			done[lo].Add(1)
			return nil
		})
		for i := range done {
			if n := done[i].Load(); n != 1 {
				t.Fatalf("piece %d ran %d times", i, n)
			}
		}
	}
	if n := started.Load() - before; n >= runs {
		t.Errorf("%d Runs started %d helpers: none was reused", runs, n)
	} else {
		t.Logf("%d Runs started %d helper goroutines", runs, n)
	}
}

// TestHelpersExit: lingering helpers exit once no Run comes for them, so
// the goroutine count returns to what it was.
func TestHelpersExit(t *testing.T) {
	settled := func() int {
		deadline := time.Now().Add(5 * time.Second)
		for lingering() > 0 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(10 * time.Millisecond) // an exited helper takes a moment to go
		return runtime.NumGoroutine()
	}
	before := settled()
	for range 10 {
		Run(16, 1, 4, func(lo, hi int) error {
			spin(20 * time.Microsecond)
			return nil
		})
	}
	after := settled()
	if n := lingering(); n != 0 {
		t.Errorf("%d helpers still lingering 5 s after the Runs", n)
	}
	if after > before {
		t.Errorf("%d goroutines a while after the Runs, %d before", after, before)
	}
}

// lingering counts the helpers listed as lingering.
func lingering() int {
	idle.mu.Lock()
	defer idle.mu.Unlock()
	return len(idle.helpers)
}

// TestHelpersFaultSetting: a reused helper takes each Run's
// SetPanicOnFault setting, not the one of the Run it served before.
func TestHelpersFaultSetting(t *testing.T) {
	for _, want := range []bool{true, false, true, false} {
		var wrong atomic.Int32
		withFaults(want, func() {
			Run(8, 1, 2, func(lo, hi int) error {
				got := setPanicOnFaultNow()
				if got != want {
					wrong.Add(1)
				}
				spin(20 * time.Microsecond)
				return nil
			})
		})
		if n := wrong.Load(); n != 0 {
			t.Errorf("SetPanicOnFault(%v): %d pieces ran with the other setting", want, n)
		}
	}
}

// withFaults runs fn with debug.SetPanicOnFault(on), then restores it.
func withFaults(on bool, fn func()) {
	old := debug.SetPanicOnFault(on)
	defer debug.SetPanicOnFault(old)
	fn()
}

// setPanicOnFaultNow reports this goroutine's SetPanicOnFault setting.
func setPanicOnFaultNow() bool {
	v := debug.SetPanicOnFault(false)
	debug.SetPanicOnFault(v)
	return v
}

// TestHelpersGoexit: a piece that ends its goroutine with runtime.Goexit
// (t.FailNow, say) on a helper does not leave Run waiting forever, and
// later Runs still work.
func TestHelpersGoexit(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs GOMAXPROCS >= 2, for a helper to take a piece")
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		caller := make(chan struct{})
		var once atomic.Bool
		go func() {
			defer close(caller)
			me := goid()
			Run(64, 1, 2, func(lo, hi int) error {
				spin(20 * time.Microsecond)
				if goid() != me && once.CompareAndSwap(false, true) {
					runtime.Goexit()
				}
				return nil
			})
		}()
		<-caller
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run still waiting 10 s after a helper's piece called runtime.Goexit")
	}
	var n atomic.Int32
	Run(16, 1, 2, func(lo, hi int) error { n.Add(1); return nil })
	if n.Load() != 16 {
		t.Errorf("a later Run ran %d of 16 pieces", n.Load())
	}
}

// goid is the current goroutine's number, from its stack header.
func goid() string {
	var b [64]byte
	s := string(b[:runtime.Stack(b[:], false)])
	return strings.Fields(s)[1]
}
