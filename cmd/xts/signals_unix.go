//go:build unix

package main

import (
	"os"
	"syscall"
)

// barrierSignal is what signalGuard.drain sends itself: SIGWINCH, which
// is numbered above every abort signal and does nothing by default (the
// progress line only re-reads the terminal's width).
var barrierSignal os.Signal = syscall.SIGWINCH

func signalSelf(s os.Signal) error { return syscall.Kill(os.Getpid(), s.(syscall.Signal)) }
