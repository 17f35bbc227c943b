//go:build !linux

package veracrypt

import "time"

// threadCPU returns 0: no thread CPU time here.
func threadCPU() time.Duration { return 0 }

// processCPU returns 0: not measured here.
func processCPU() time.Duration { return 0 }
