//go:build unix

package guard

import (
	"os"
	"syscall"
)

// barrierSignal is what Guard.drain sends itself: SIGWINCH, which
// is numbered above every abort signal and does nothing by default (the
// progress line only re-reads the terminal's width).
var barrierSignal os.Signal = syscall.SIGWINCH

func signalSelf(s os.Signal) error { return syscall.Kill(os.Getpid(), s.(syscall.Signal)) }
