//go:build !amd64 || purego

package xts

import "runtime"

// detectCPU knows nothing beyond the architecture here: there is no
// assembly to run CPUID with (other architectures, or the purego tag) and
// no implementation whose choice depends on it.
func detectCPU() CPUInfo {
	return CPUInfo{Name: runtime.GOARCH}
}
