//go:build unix

package main

import (
	"os"
	"os/signal"
	"syscall"
)

// notifyResize sends c a value whenever the terminal is resized (SIGWINCH).
func notifyResize(c chan<- os.Signal) { signal.Notify(c, syscall.SIGWINCH) }
