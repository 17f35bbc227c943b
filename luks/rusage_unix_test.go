//go:build unix

package luks

import (
	"syscall"
	"time"
)

// rusage is the process's user and system CPU time.
func rusage() (user, sys time.Duration) {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}
