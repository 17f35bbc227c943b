//go:build !unix

package luks

import "time"

// processCPUTime is -1 where the system reports no CPU time: cheapest then
// measures wall-clock time.
func processCPUTime() time.Duration { return -1 }
