//go:build !(amd64 || arm64) || purego

package cpuid

import "runtime"

// detect knows nothing beyond the architecture here: there is no
// assembly to run CPUID with (other architectures, or the purego tag) and
// no implementation whose choice depends on it.
func detect() Info {
	return Info{Name: runtime.GOARCH}
}
