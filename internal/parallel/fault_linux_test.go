package parallel

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// shrunkMapping maps a two-page file and truncates it to nothing, so that
// any read of the mapping faults (SIGBUS).
func shrunkMapping(t *testing.T) []byte {
	t.Helper()
	page := os.Getpagesize()
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, make([]byte, 2*page), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := syscall.Mmap(int(f.Fd()), 0, 2*page, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(m) })
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCatchFaultsHelper: a read of a shrunk mapping on a helper goroutine
// (never on the caller's) comes back from CatchFaults as a *FaultError,
// directly under Run and two Runs deep.
func TestCatchFaultsHelper(t *testing.T) {
	m := shrunkMapping(t)
	for _, depth := range []int{1, 2} {
		t.Run(fmt.Sprint("depth=", depth), func(t *testing.T) {
			caller := goid()
			helperIn := make(chan struct{})
			var sink byte
			piece := func(lo, hi int) error {
				if goid() == caller {
					// Hold the caller here until a helper has its piece.
					select {
					case <-helperIn:
					case <-time.After(10 * time.Second):
						return errors.New("no helper started")
					}
					return nil
				}
				select {
				case <-helperIn:
				default:
					close(helperIn)
				}
				sink += m[lo]
				return nil
			}
			err := CatchFaults(func() error {
				if depth == 1 {
					return Run(8, 1, 2, piece)
				}
				return Run(1, 1, 1, func(int, int) error { return Run(8, 1, 2, piece) })
			})
			var f *FaultError
			if !errors.As(err, &f) {
				t.Fatalf("CatchFaults = %v, want a *FaultError", err)
			}
			if f.Addr() != 0 && (f.Addr() < uintptr(unsafeAddr(m)) || f.Addr() >= uintptr(unsafeAddr(m))+uintptr(len(m))) {
				t.Errorf("fault at %#x, outside the mapping", f.Addr())
			}
			_ = sink
		})
	}
}

// TestCatchFaultsCaller: a fault on the calling goroutine, with no Run.
func TestCatchFaultsCaller(t *testing.T) {
	m := shrunkMapping(t)
	var sink byte
	err := CatchFaults(func() error { sink = m[0]; return nil })
	if _, ok := errors.AsType[*FaultError](err); !ok {
		t.Fatalf("CatchFaults = %v, want a *FaultError", err)
	}
	_ = sink
}
