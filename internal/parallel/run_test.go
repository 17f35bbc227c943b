package parallel

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestRunCovers: every index of [0, n) is visited exactly once, in pieces
// of at most grain that start on multiples of grain, whatever the number
// of workers.
func TestRunCovers(t *testing.T) {
	for _, c := range []struct{ n, grain, workers int }{
		{0, 1, 4}, {1, 1, 4}, {10, 3, 1}, {10, 3, 2}, {10, 3, 8}, {1000, 7, 3},
		{4096, 4096, 2}, {4097, 4096, 2}, {100000, 64, 16}, {5, 100, 0},
	} {
		t.Run(fmt.Sprintf("n=%d/grain=%d/workers=%d", c.n, c.grain, c.workers), func(t *testing.T) {
			seen := make([]atomic.Int32, c.n)
			var calls atomic.Int32
			err := Run(c.n, c.grain, c.workers, func(lo, hi int) error {
				calls.Add(1)
				if lo%c.grain != 0 || hi <= lo || hi-lo > c.grain || hi > c.n {
					return fmt.Errorf("piece [%d, %d)", lo, hi)
				}
				for i := lo; i < hi; i++ {
					seen[i].Add(1)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for i := range seen {
				if v := seen[i].Load(); v != 1 {
					t.Fatalf("index %d visited %d times", i, v)
				}
			}
			if want := (c.n + c.grain - 1) / c.grain; int(calls.Load()) != want {
				t.Fatalf("%d calls, want %d pieces", calls.Load(), want)
			}
		})
	}
}

// TestRunError: the first error is returned and no piece starts after it.
func TestRunError(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		boom := errors.New("boom")
		var calls atomic.Int32
		err := Run(1000, 1, workers, func(lo, hi int) error {
			calls.Add(1)
			if lo == 3 {
				return boom
			}
			return nil
		})
		if err != boom {
			t.Fatalf("workers=%d: error %v, want boom", workers, err)
		}
		// Pieces 0..3 ran, and at most one more per other worker that had
		// claimed its piece before the error stopped the hand-out.
		if n := int(calls.Load()); n < 4 || n > 4+workers-1 {
			t.Fatalf("workers=%d: %d pieces ran after an error at the fourth", workers, n)
		}
	}
}

// TestRunPanic: a panic in a helper comes back to the caller as a *Panic
// with its value and the helper's stack, after every goroutine stopped.
func TestRunPanic(t *testing.T) {
	before := runtime.NumGoroutine()
	var running atomic.Int32
	v := func() (v any) {
		defer func() { v = recover() }()
		Run(64, 1, 4, func(lo, hi int) error {
			running.Add(1)
			defer running.Add(-1)
			if lo == 5 {
				panicInPiece()
			}
			time.Sleep(time.Millisecond)
			return nil
		})
		return nil
	}()
	p, ok := v.(*Panic)
	if !ok {
		t.Fatalf("recovered %T %v, want *Panic", v, v)
	}
	if p.Value != "parallel test: boom" {
		t.Errorf("Value %v", p.Value)
	}
	if !strings.Contains(string(p.Stack), "panicInPiece") {
		t.Errorf("stack does not show where the panic began:\n%s", p.Stack)
	}
	if !strings.HasPrefix(p.Error(), "parallel test: boom") || !strings.Contains(p.Error(), "panicInPiece") {
		t.Errorf("Error() = %q", p.Error())
	}
	if n := running.Load(); n != 0 {
		t.Errorf("%d pieces still running after Run panicked", n)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond) // exited helpers take a moment to go
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Run, %d before", n, before)
	}
}

//go:noinline
func panicInPiece() { panic("parallel test: boom") }

//go:noinline
func panicWith(v any) { panic(v) }

// TestRunPanicNested: a panic two Runs deep keeps its own stack, and an
// error value stays reachable through errors.As.
func TestRunPanicNested(t *testing.T) {
	boom := errors.New("nested boom")
	v := func() (v any) {
		defer func() { v = recover() }()
		Run(4, 1, 2, func(lo, hi int) error {
			return Run(4, 1, 2, func(lo2, hi2 int) error {
				if lo == 1 && lo2 == 2 {
					panicWith(boom)
				}
				return nil
			})
		})
		return nil
	}()
	p, ok := v.(*Panic)
	if !ok || !errors.Is(p, boom) {
		t.Fatalf("recovered %T %v, want a *Panic wrapping the error", v, v)
	}
	if !strings.Contains(string(p.Stack), "panicWith") {
		t.Errorf("stack is not the inner piece's:\n%s", p.Stack)
	}
}

// TestRunSerialPanicUnwrapped: with nothing in parallel the panic is the
// caller's own, not wrapped.
func TestRunSerialPanicUnwrapped(t *testing.T) {
	v := func() (v any) {
		defer func() { v = recover() }()
		Run(10, 100, 4, func(lo, hi int) error { panic("serial") })
		return nil
	}()
	if v != "serial" {
		t.Fatalf("recovered %#v, want the plain value", v)
	}
}

func TestRunMisuse(t *testing.T) {
	for _, c := range []struct{ n, grain int }{{-1, 1}, {1, 0}} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.HasPrefix(fmt.Sprint(r), "parallel: ") {
					t.Errorf("Run(%d, %d): recovered %v, want a parallel: panic", c.n, c.grain, r)
				}
			}()
			Run(c.n, c.grain, 2, func(lo, hi int) error { return nil })
		}()
	}
}
