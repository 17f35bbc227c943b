//go:build !purego

package cpuid

import (
	"strings"
	"testing"

	"github.com/klauspost/cpuid/v2"
)

// TestDetectMatchesCPUID cross-checks our detection of this machine with
// github.com/klauspost/cpuid/v2 on everything both know. cpuid/v2 folds the
// OS-enabled state into AVX, AVX2 and AVX-512, so those are compared as
// "usable" (CPU bit and OS state).
func TestDetectMatchesCPUID(t *testing.T) {
	c, brand := host()
	k := cpuid.CPU

	if c.Vendor != k.VendorString {
		t.Errorf("vendor %q, cpuid/v2 %q", c.Vendor, k.VendorString)
	}
	if c.Family != k.Family || c.Model != k.Model {
		t.Errorf("family/model %#x/%#x, cpuid/v2 %#x/%#x", c.Family, c.Model, k.Family, k.Model)
	}
	if want := strings.Join(strings.Fields(k.BrandName), " "); brand != want && k.BrandName != "unknown" {
		t.Errorf("brand %q, cpuid/v2 %q", brand, k.BrandName)
	}

	ymm := c.OSXSAVE && c.OSYMM
	zmm := ymm && c.OSZMM
	for _, f := range []struct {
		name string
		ours bool
		id   cpuid.FeatureID
	}{
		{"AES-NI", c.AES, cpuid.AESNI},
		{"SSSE3", c.SSSE3, cpuid.SSSE3},
		{"PCLMULQDQ", c.PCLMULQDQ, cpuid.CLMUL},
		{"OSXSAVE", c.OSXSAVE, cpuid.OSXSAVE},
		{"AVX usable", c.AVX && ymm, cpuid.AVX},
		{"AVX2 usable", c.AVX2 && c.AVX && ymm, cpuid.AVX2},
		{"VAES", c.VAES, cpuid.VAES},
		{"VPCLMULQDQ", c.VPCLMULQDQ, cpuid.VPCLMULQDQ},
		{"BMI2", c.BMI2, cpuid.BMI2},
		{"AVX-512F usable", c.AVX512F && zmm, cpuid.AVX512F},
		{"AVX-512BW usable", c.AVX512BW && zmm, cpuid.AVX512BW},
		{"AVX-512VL usable", c.AVX512VL && zmm, cpuid.AVX512VL},
	} {
		if theirs := k.Supports(f.id); f.ours != theirs {
			t.Errorf("%s: ours %v, cpuid/v2 %v", f.name, f.ours, theirs)
		}
	}
	t.Logf("%s (%s, family %#x model %#x): %+v", brand, c.Vendor, c.Family, c.Model, c)
}

// TestXCR0Sane checks what every x86-64 OS that enables XSAVE must do:
// x87 and SSE state are always on, and AVX state never comes without SSE.
func TestXCR0Sane(t *testing.T) {
	_, _, ecx, _ := cpuidex(1, 0)
	if ecx&leaf1ECXOSXSAVE == 0 {
		t.Skip("OS has not enabled XSAVE; XGETBV would fault")
	}
	xcr0, _ := xgetbv(0)
	if xcr0&3 != 3 {
		t.Errorf("XCR0 = %#x: x87 and SSE state must be enabled", xcr0)
	}
	if xcr0&4 != 0 && xcr0&2 == 0 {
		t.Errorf("XCR0 = %#x: AVX state without SSE state", xcr0)
	}
}

// TestCPUIDSubLeaf checks that cpuidex passes the sub-leaf in ECX: leaf
// 0xB (extended topology) echoes the sub-leaf number in ECX bits 0-7 for
// every level it reports.
func TestCPUIDSubLeaf(t *testing.T) {
	maxLeaf, _, _, _ := cpuidex(0, 0)
	if maxLeaf < 0xB {
		t.Skipf("CPUID max leaf %#x has no leaf 0xB", maxLeaf)
	}
	if _, ebx, _, _ := cpuidex(0xB, 0); ebx == 0 {
		t.Skip("leaf 0xB reports no topology levels")
	}
	for sub := uint32(0); sub < 2; sub++ {
		_, ebx, ecx, _ := cpuidex(0xB, sub)
		if ebx == 0 {
			break
		}
		if ecx&0xFF != sub {
			t.Errorf("CPUID(0xB, %d): ECX = %#x, want level number %d in bits 0-7", sub, ecx, sub)
		}
	}
}

func TestDetectInfo(t *testing.T) {
	c, brand := host()
	info := Detect()
	if info.Vendor != c.Vendor || info.Name != brand || info.Family != c.Family || info.Model != c.Model {
		t.Errorf("Detect = %+v, detected %+v %q", info, c, brand)
	}
	// A fresh copy each call.
	info.Features[0].CPU = !info.Features[0].CPU
	if Detect().Features[0] == info.Features[0] {
		t.Errorf("Detect shares its Features slice between calls")
	}
}
