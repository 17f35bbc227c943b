package parallel

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// FaultError is a memory fault (a read past the end of a file shrunk
// under its mapping) that CatchFaults caught.
type FaultError struct {
	// Err is the runtime's error: it has an Addr() uintptr method where
	// the signal carried the faulting address.
	Err error
}

func (e *FaultError) Error() string { return "memory fault: " + e.Err.Error() }

func (e *FaultError) Unwrap() error { return e.Err }

// Addr returns the faulting address, or 0 where the signal carried none.
func (e *FaultError) Addr() uintptr {
	if a, ok := e.Err.(interface{ Addr() uintptr }); ok {
		return a.Addr()
	}
	return 0
}

// CatchFaults runs fn on the calling goroutine with debug.SetPanicOnFault
// set, and returns a memory fault in fn, on this goroutine or on a helper
// of any Run that fn reaches, as a *FaultError instead of crashing. Other
// panics pass through unchanged. The setting is restored on return.
//
// Only Run's helpers inherit the setting: fn must not start goroutines
// of its own that touch the mapping.
func CatchFaults(fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if v := recover(); v != nil {
			f := fault(v)
			if f == nil {
				panic(v)
			}
			err = f
		}
	}()
	return fn()
}

// fault returns v, a recovered panic, as a *FaultError if it is a memory
// fault: a runtime error with the faulting address, or, where the signal
// carries none (as under qemu-user), the runtime's invalid-memory-address
// error. A *Panic from a Run is looked into.
func fault(v any) *FaultError {
	if p, ok := v.(*Panic); ok {
		v = p.Value
	}
	e, ok := v.(runtime.Error)
	if !ok {
		return nil
	}
	if _, ok := e.(interface{ Addr() uintptr }); ok || strings.Contains(e.Error(), "invalid memory address") {
		return &FaultError{Err: e}
	}
	return nil
}
