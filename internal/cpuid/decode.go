package cpuid

import "strings"

// This file decodes raw CPUID and XCR0 words into X86. It is pure
// (the instructions themselves run in detect_amd64.go) so that the
// decoding can be tested against known register values on any machine.

// X86 describes an x86 CPU as far as the dispatch policy cares. The
// feature fields are raw CPUID bits; OSXSAVE, OSYMM and OSZMM say what the
// operating system enabled (CPUID.1:ECX.OSXSAVE and XCR0). An instruction
// set is only usable when the CPU has it and, for the wide registers, the
// OS saves and restores their state.
type X86 struct {
	Vendor        string // "GenuineIntel", "AuthenticAMD", ...
	Family, Model int    // with the extended family and model folded in

	AES, SSSE3, PCLMULQDQ, AVX, AVX2, VAES, VPCLMULQDQ bool
	AVX512F, AVX512BW, AVX512VL, BMI2                  bool
	AVX512VBMI, GFNI                                   bool

	OSXSAVE bool // the OS enabled XSAVE, so XCR0 can be read
	OSYMM   bool // XCR0 bits 1 and 2: XMM and YMM state
	OSZMM   bool // XCR0 bits 5, 6 and 7: opmask, ZMM0-15 upper halves, ZMM16-31
}

// UsableYMM and UsableZMM say whether the OS saves the ymm, and the zmm
// and opmask, register state (meaningless without XSAVE).
func (c X86) UsableYMM() bool { return c.OSXSAVE && c.OSYMM }
func (c X86) UsableZMM() bool { return c.UsableYMM() && c.OSZMM }

// CPUID bits read by the dispatch policy and `xts info`.
const (
	leaf1ECXPCLMULQDQ = 1 << 1
	leaf1ECXSSSE3     = 1 << 9
	leaf1ECXAES       = 1 << 25
	leaf1ECXOSXSAVE   = 1 << 27
	leaf1ECXAVX       = 1 << 28

	leaf7EBXAVX2     = 1 << 5
	leaf7EBXBMI2     = 1 << 8
	leaf7EBXAVX512F  = 1 << 16
	leaf7EBXAVX512BW = 1 << 30
	leaf7EBXAVX512VL = 1 << 31

	leaf7ECXAVX512VBMI = 1 << 1 // VPERMB, VPERMI2B, VPERMT2B
	leaf7ECXGFNI       = 1 << 8 // GF2P8AFFINEQB, GF2P8AFFINEINVQB, GF2P8MULB
	leaf7ECXVAES       = 1 << 9
	leaf7ECXVPCLMULQDQ = 1 << 10

	// XCR0 state components: 1 SSE (xmm), 2 AVX (upper ymm), 5 opmask,
	// 6 upper halves of zmm0-15, 7 zmm16-31.
	xcr0YMM = 1<<1 | 1<<2
	xcr0ZMM = 1<<5 | 1<<6 | 1<<7
)

// vendorString spells the vendor from CPUID leaf 0, whose twelve bytes
// come in the order EBX, EDX, ECX.
func vendorString(ebx, ecx, edx uint32) string {
	return string(appendLE(nil, ebx, edx, ecx))
}

// familyModel decodes the display family and model from CPUID.1:EAX, as
// both Intel and AMD define them: the extended family is added only to
// base family 0xF, the extended model is prepended for base families 6
// and 0xF.
func familyModel(eax uint32) (family, model int) {
	baseFamily := int(eax>>8) & 0xF
	family = baseFamily
	model = int(eax>>4) & 0xF
	if baseFamily == 0xF {
		family += int(eax>>20) & 0xFF
	}
	if baseFamily == 0x6 || baseFamily == 0xF {
		model |= (int(eax>>16) & 0xF) << 4
	}
	return family, model
}

// setLeaf1 records the features in CPUID.1:ECX.
func (c *X86) setLeaf1(ecx uint32) {
	c.PCLMULQDQ = ecx&leaf1ECXPCLMULQDQ != 0
	c.SSSE3 = ecx&leaf1ECXSSSE3 != 0
	c.AES = ecx&leaf1ECXAES != 0
	c.OSXSAVE = ecx&leaf1ECXOSXSAVE != 0
	c.AVX = ecx&leaf1ECXAVX != 0
}

// setLeaf7 records the features in CPUID.(7,0):EBX and ECX.
func (c *X86) setLeaf7(ebx, ecx uint32) {
	c.AVX2 = ebx&leaf7EBXAVX2 != 0
	c.BMI2 = ebx&leaf7EBXBMI2 != 0
	c.AVX512F = ebx&leaf7EBXAVX512F != 0
	c.AVX512BW = ebx&leaf7EBXAVX512BW != 0
	c.AVX512VL = ebx&leaf7EBXAVX512VL != 0
	c.AVX512VBMI = ecx&leaf7ECXAVX512VBMI != 0
	c.GFNI = ecx&leaf7ECXGFNI != 0
	c.VAES = ecx&leaf7ECXVAES != 0
	c.VPCLMULQDQ = ecx&leaf7ECXVPCLMULQDQ != 0
}

// setXCR0 records which register states the OS enabled.
func (c *X86) setXCR0(xcr0 uint32) {
	c.OSYMM = xcr0&xcr0YMM == xcr0YMM
	c.OSZMM = xcr0&xcr0ZMM == xcr0ZMM
}

// darwinZMM decides whether the opmask and zmm state is usable on macOS,
// where XCR0 alone does not tell: the kernel enables AVX-512 state lazily,
// on a thread's first AVX-512 instruction, so XCR0 may not show it yet
// when the CPU has it, and kernels before 21.3.0 (macOS 12.2) could
// corrupt the opmask registers on signal return. As golang.org/x/sys/cpu
// does: AVX state enabled (osYMM), sysctl hw.optional.avx512f set, and a
// kernel release (kern.osrelease) of 21.3.0 or later.
func darwinZMM(osYMM, sysctlAVX512F bool, release string) bool {
	return osYMM && sysctlAVX512F && releaseAtLeast(release, 21, 3, 0)
}

// releaseAtLeast reports whether a kernel release "major.minor.patch"
// (fewer parts count as zeros) is at least the given version. Anything
// else is not.
func releaseAtLeast(release string, major, minor, patch int) bool {
	parts := strings.Split(release, ".")
	if release == "" || len(parts) > 3 {
		return false
	}
	var v [3]int
	for i, p := range parts {
		if p == "" || len(p) > 6 {
			return false
		}
		for _, ch := range p {
			if ch < '0' || ch > '9' {
				return false
			}
			v[i] = 10*v[i] + int(ch-'0')
		}
	}
	want := [3]int{major, minor, patch}
	for i := range v {
		if v[i] != want[i] {
			return v[i] > want[i]
		}
	}
	return true
}

// brandString decodes the processor name from the EAX, EBX, ECX, EDX of
// CPUID leaves 0x80000002..4: up to 48 bytes, NUL-terminated, sometimes
// padded with spaces at the start or inside; runs of spaces are collapsed.
func brandString(words []uint32) string {
	b := appendLE(nil, words...)
	if i := strings.IndexByte(string(b), 0); i >= 0 {
		b = b[:i]
	}
	return strings.Join(strings.Fields(string(b)), " ")
}

// appendLE appends each word's four bytes, least significant first, as
// CPUID packs strings.
func appendLE(b []byte, words ...uint32) []byte {
	for _, w := range words {
		b = append(b, byte(w), byte(w>>8), byte(w>>16), byte(w>>24))
	}
	return b
}
