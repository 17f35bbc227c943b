//go:build !unix

package veracrypt

import "time"

// processCPU returns 0: no process CPU time on this system.
func processCPU() time.Duration { return 0 }
