//go:build unix

package progress

import (
	"os"
	"os/signal"
	"syscall"
)

// notifyResize sends c a value whenever the terminal is resized (SIGWINCH).
func notifyResize(c chan<- os.Signal) { signal.Notify(c, syscall.SIGWINCH) }
