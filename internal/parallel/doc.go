// Package parallel is the module's one way to spread a job over cores.
//
// Run cuts the range [0, n) into consecutive pieces and calls a function
// on each, from the calling goroutine and up to workers-1 helpers, and
// returns when every piece is done. Helpers then linger, spinning, for
// at most as long as the call took (and never more than 200 µs), for the
// next Run to reuse (see helpers.go: on a VM, starting work on an idle
// core costs about 100 µs), and exit when none comes. A
// panic in any piece comes back to the caller, after the others have
// stopped, as a *Panic holding the panicking goroutine's stack; the first
// error stops the hand-out of further pieces and is returned.
//
// Memory faults: debug.SetPanicOnFault is a per-goroutine setting, so a
// caller that reads a memory-mapped file cannot protect helpers it does
// not know about. Run therefore gives every helper the caller's setting,
// and CatchFaults turns a fault anywhere below it (on its own goroutine
// or on a helper of any Run it reaches, however deeply nested) into a
// *FaultError. Code that reads a mapping wraps the read in CatchFaults
// and may call anything that parallelises through Run.
package parallel
