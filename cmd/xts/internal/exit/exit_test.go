package exit

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
)

type signalled int

func (s signalled) Error() string { return "signalled" }
func (s signalled) ExitCode() int { return 128 + int(s) }

// TestCode: the statuses are cryptsetup's numbers; an error that says
// its code wins wherever it is in the chain; system errors map to theirs.
func TestCode(t *testing.T) {
	for _, c := range []struct {
		err  error
		code int
	}{
		{nil, OK},
		{errors.New("read error"), Failure},
		{Errorf(Busy, "output %s already exists", "x"), 5},
		{fmt.Errorf("wrapped: %w", Errorf(WrongDevice, "short read")), 4},
		{With(Permission, errors.New("no key")), 2},
		{fmt.Errorf("stopped: %w", signalled(2)), 130},
		{fmt.Errorf("key file: %w", &os.PathError{Op: "open", Path: "k", Err: syscall.EACCES}), 2},
		{fmt.Errorf("buffers: %w", syscall.ENOMEM), 3},
		{fmt.Errorf("input: %w", &os.PathError{Op: "open", Path: "x", Err: syscall.ENOENT}), 4},
		{fmt.Errorf("input: %w", syscall.EISDIR), 4},
		{fmt.Errorf("output: %w", syscall.EEXIST), 5},
		{fmt.Errorf("output: %w", syscall.EBUSY), 5},
	} {
		if got := Code(c.err); got != c.code {
			t.Errorf("Code(%v) = %d, want %d", c.err, got, c.code)
		}
	}
	if With(Busy, nil) != nil {
		t.Error("With(code, nil) is not nil")
	}
}
