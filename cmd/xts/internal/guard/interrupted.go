package guard

import (
	"fmt"
	"syscall"
)

// Interrupted is a command stopped by a signal. Its exit status is
// 128 + the signal number, as a shell reports a process killed by it;
// its message says whether output already went to standard output.
type Interrupted struct {
	Signal      syscall.Signal
	toStdout    bool  // the output was standard output
	stdoutBytes int64 // bytes that already went there
	pending     int64 // bytes of a write in progress (a second signal can come during one)
}

// newInterrupted is the error for signal s; out, if not nil, is the
// output whose standard output bytes the message counts.
func newInterrupted(s syscall.Signal, out *Output) *Interrupted {
	ie := &Interrupted{Signal: s}
	if out != nil && out.f == nil {
		ie.toStdout, ie.stdoutBytes, ie.pending = true, out.Written(), out.pending.Load()
	}
	return ie
}

func (e *Interrupted) Error() string {
	name := SignalName(e.Signal)
	switch {
	case e.pending > 0:
		return fmt.Sprintf("interrupted by %s; partial output already went to standard output (%d to %d bytes)", name, e.stdoutBytes, e.stdoutBytes+e.pending)
	case e.stdoutBytes > 0:
		return fmt.Sprintf("interrupted by %s; %d bytes of partial output already went to standard output", name, e.stdoutBytes)
	case e.toStdout:
		return fmt.Sprintf("interrupted by %s; nothing was written to standard output", name)
	default:
		return fmt.Sprintf("interrupted by %s; no output written", name)
	}
}

// ExitCode is 128 + the signal number.
func (e *Interrupted) ExitCode() int { return 128 + int(e.Signal) }

// SignalName is the name messages give s: SIGINT, SIGTERM, SIGHUP,
// SIGQUIT, else "signal N".
func SignalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	}
	return fmt.Sprintf("signal %d", int(s))
}
