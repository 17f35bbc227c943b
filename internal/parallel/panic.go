package parallel

import (
	"fmt"
	"runtime/debug"
)

// Panic is a panic in a piece of a Run, re-raised in Run's caller.
type Panic struct {
	// Value is what the piece panicked with.
	Value any
	// Stack is the stack of the goroutine that panicked, taken as it
	// unwound (debug.Stack), so it shows where the panic began.
	Stack []byte
}

// newPanic wraps v, the value recovered on this goroutine; a *Panic from
// a nested Run passes unchanged, keeping the innermost stack.
func newPanic(v any) *Panic {
	if p, ok := v.(*Panic); ok {
		return p
	}
	return &Panic{Value: v, Stack: debug.Stack()}
}

// Error is the original panic's message followed by its stack, so that
// a crash report shows both.
func (p *Panic) Error() string {
	return fmt.Sprintf("%v\n\n[re-raised from a parallel worker; its stack:]\n%s", p.Value, p.Stack)
}

// Unwrap returns the original value when it is an error.
func (p *Panic) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}
