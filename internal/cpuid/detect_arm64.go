//go:build !purego

package cpuid

import (
	"runtime"

	"golang.org/x/sys/cpu"
)

// detect reports the arm64 features the implementations use or could use,
// as golang.org/x/sys/cpu reads them from the OS (HWCAP on Linux), after
// GODEBUG=cpu.X=off has been applied: AES (armv8-ce), PMULL and SHA3
// (EOR3; not used today). The OS column is always true: these
// instructions work on the vector registers every arm64 OS saves.
//
// Vendor and Name come from /proc/cpuinfo's MIDR fields where it has them
// (Linux); elsewhere Name is GOARCH.
func detect() Info {
	vendor, name := hostCPUName()
	if name == "" {
		name = runtime.GOARCH
	}
	return Info{
		Vendor: vendor,
		Name:   name,
		Features: []Feature{
			{"AES", cpu.ARM64.HasAES, true},
			{"PMULL", cpu.ARM64.HasPMULL, true},
			{"SHA3", cpu.ARM64.HasSHA3, true},
		},
	}
}
