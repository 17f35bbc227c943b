//go:build !purego

package cpuid

import "syscall"

// darwinProbe reads what darwinZMM needs from the kernel: sysctl
// hw.optional.avx512f and kern.osrelease (false and "" where absent).
func darwinProbe() (avx512f bool, release string) {
	v, err := syscall.SysctlUint32("hw.optional.avx512f")
	avx512f = err == nil && v == 1
	release, _ = syscall.Sysctl("kern.osrelease")
	return avx512f, release
}
