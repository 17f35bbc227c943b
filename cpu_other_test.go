//go:build !amd64 || purego

package xts

import (
	"runtime"
	"testing"
)

// Without CPUID the description says only what the build knows.
func TestDetectCPUPortable(t *testing.T) {
	info := DetectCPU()
	if info.Vendor != "" || info.Name != runtime.GOARCH || info.Family != 0 || info.Model != 0 || len(info.Features) != 0 {
		t.Errorf("DetectCPU() = %+v, want only Name %q", info, runtime.GOARCH)
	}
}
