//go:build !purego

package cpuid

import (
	"runtime"
	"sync"
)

// Host returns this machine's CPU and its brand string, detected once with
// the generated cpuidex and xgetbv.
func Host() (X86, string) { return host() }

var host = sync.OnceValues(detectHost)

// detectHost reads the CPUID leaves the policy needs and, when the OS has
// enabled XSAVE (without which XGETBV faults), XCR0. It returns the
// features and the brand string.
func detectHost() (X86, string) {
	var c X86
	maxLeaf, ebx, ecx, edx := cpuidex(0, 0)
	c.Vendor = vendorString(ebx, ecx, edx)
	if maxLeaf >= 1 {
		eax, _, ecx, _ := cpuidex(1, 0)
		c.Family, c.Model = familyModel(eax)
		c.setLeaf1(ecx)
	}
	if maxLeaf >= 7 {
		_, ebx, ecx, _ := cpuidex(7, 0)
		c.setLeaf7(ebx, ecx)
	}
	if c.OSXSAVE {
		xcr0, _ := xgetbv(0)
		c.setXCR0(xcr0)
		if runtime.GOOS == "darwin" {
			avx512f, release := darwinProbe()
			c.OSZMM = darwinZMM(c.OSYMM, avx512f, release)
		}
	}

	brand := ""
	if maxExt, _, _, _ := cpuidex(0x80000000, 0); maxExt >= 0x80000004 {
		words := make([]uint32, 0, 12)
		for leaf := uint32(0x80000002); leaf <= 0x80000004; leaf++ {
			a, b, c, d := cpuidex(leaf, 0)
			words = append(words, a, b, c, d)
		}
		brand = brandString(words)
	}
	return c, brand
}

func detect() Info {
	c, brand := host()
	return c.Info(brand)
}
