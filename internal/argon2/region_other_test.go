//go:build !linux

package argon2

import "math"

// hugePageAlign and minMapped are only checked for mappings, which this
// platform does not make.
const (
	hugePageAlign = 1
	minMapped     = math.MaxInt
)
