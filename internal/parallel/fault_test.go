package parallel

import (
	"errors"
	"runtime/debug"
	"testing"
	"unsafe"
)

func unsafeAddr(b []byte) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(b)) }

// TestCatchFaultsPassesThrough: errors come back as they are, panics that
// are not faults are re-raised, and the fault setting is restored.
func TestCatchFaultsPassesThrough(t *testing.T) {
	boom := errors.New("boom")
	if err := CatchFaults(func() error { return boom }); err != boom {
		t.Fatalf("CatchFaults = %v, want boom", err)
	}
	v := func() (v any) {
		defer func() { v = recover() }()
		CatchFaults(func() error { panic("not a fault") })
		return nil
	}()
	if v != "not a fault" {
		t.Fatalf("recovered %#v, want the panic unchanged", v)
	}
	v = func() (v any) {
		defer func() { v = recover() }()
		CatchFaults(func() error {
			return Run(4, 1, 2, func(lo, hi int) error {
				if lo == 3 {
					panic("helper, not a fault")
				}
				return nil
			})
		})
		return nil
	}()
	if p, ok := v.(*Panic); !ok || p.Value != "helper, not a fault" {
		t.Fatalf("recovered %#v, want the worker's *Panic", v)
	}
	if debug.SetPanicOnFault(false) {
		t.Fatal("CatchFaults left SetPanicOnFault on")
	}
}
