//go:build !linux

package argon2

// hugePageAlign is only checked for mappings, which this platform does not
// make.
const hugePageAlign = 1
