//go:build !(amd64 || arm64) || purego

package cpuid

import (
	"runtime"
	"testing"
)

// Without CPUID the description says only what the build knows.
func TestDetectPortable(t *testing.T) {
	info := Detect()
	if info.Vendor != "" || info.Name != runtime.GOARCH || info.Family != 0 || info.Model != 0 || len(info.Features) != 0 {
		t.Errorf("Detect() = %+v, want only Name %q", info, runtime.GOARCH)
	}
}
