package luks

import (
	"syscall"
	"time"
)

// rusageThread is Linux's RUSAGE_THREAD, which package syscall does not
// name.
const rusageThread = 1

// threadCPUTime is the user plus system time of the calling thread.
func threadCPUTime() time.Duration { return rusageCPU(rusageThread) }

// totalMemoryKiB is the machine's RAM in KiB, or 0 if unknown.
func totalMemoryKiB() uint64 {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil {
		return 0
	}
	return uint64(si.Totalram) * uint64(si.Unit) / 1024
}
