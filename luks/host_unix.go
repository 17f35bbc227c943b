//go:build unix

package luks

import (
	"syscall"
	"time"
)

// processCPUTime is the user plus system time of the whole process, or -1
// if the system does not report it.
func processCPUTime() time.Duration { return rusageCPU(syscall.RUSAGE_SELF) }

func rusageCPU(who int) time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(who, &ru) != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
