//go:build !linux

package luks

import "time"

// threadCPUTime falls back to the process's CPU time where the system
// has no per-thread clock.
func threadCPUTime() time.Duration { return processCPUTime() }

// totalMemoryKiB is 0 (unknown) outside Linux: only the 1 GiB cap on a
// benchmarked keyslot's memory applies there.
func totalMemoryKiB() uint64 { return 0 }
