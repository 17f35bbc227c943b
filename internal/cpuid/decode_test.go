package cpuid

import (
	"encoding/binary"
	"testing"
)

func TestFamilyModel(t *testing.T) {
	for _, tc := range []struct {
		name          string
		eax           uint32 // CPUID.1:EAX as the processor reports it
		family, model int
	}{
		{"Zen 4 Ryzen 9 7950X", 0x00A60F12, 0x19, 0x61},
		{"Zen 5 Ryzen 9 9950X", 0x00B40F40, 0x1A, 0x44},
		{"Zen 2 Ryzen 9 3900X", 0x00870F10, 0x17, 0x71},
		{"Ice Lake Core i7-1065G7", 0x000706E5, 6, 0x7E},
		{"Skylake-X Core i9-7900X", 0x00050654, 6, 0x55},
		{"Sapphire Rapids", 0x000806F8, 6, 0x8F},
		{"Sandy Bridge Core i7-2600", 0x000206A7, 6, 0x2A},
		{"Pentium 4 Prescott", 0x00000F41, 0xF, 0x4},
		{"Athlon 64 (K8 rev E)", 0x00020F32, 0xF, 0x23},
		{"Pentium P54C", 0x00000525, 5, 2},
		{"extended fields ignored below family 6", 0x0FF10525, 5, 2},
	} {
		f, m := familyModel(tc.eax)
		if f != tc.family || m != tc.model {
			t.Errorf("%s: familyModel(%#08x) = %#x, %#x; want %#x, %#x", tc.name, tc.eax, f, m, tc.family, tc.model)
		}
	}
}

func TestVendorString(t *testing.T) {
	for _, tc := range []struct {
		ebx, ecx, edx uint32
		want          string
	}{
		{0x756E6547, 0x6C65746E, 0x49656E69, "GenuineIntel"},
		{0x68747541, 0x444D4163, 0x69746E65, "AuthenticAMD"},
	} {
		if got := vendorString(tc.ebx, tc.ecx, tc.edx); got != tc.want {
			t.Errorf("vendorString(%#x, %#x, %#x) = %q, want %q", tc.ebx, tc.ecx, tc.edx, got, tc.want)
		}
	}
}

// packBrand lays a name out as the twelve little-endian words of leaves
// 0x80000002..4, NUL-padded to 48 bytes.
func packBrand(s string) []uint32 {
	var b [48]byte
	copy(b[:], s)
	words := make([]uint32, 12)
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return words
}

func TestBrandString(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{"AMD Ryzen 9 7950X 16-Core Processor           ", "AMD Ryzen 9 7950X 16-Core Processor"},
		{"Intel(R) Core(TM) i7 CPU         920  @ 2.67GHz", "Intel(R) Core(TM) i7 CPU 920 @ 2.67GHz"},
		{"              Intel(R) Xeon(TM) CPU 3.00GHz", "Intel(R) Xeon(TM) CPU 3.00GHz"},
		{"Intel(R) Xeon(R) Platinum 8480+", "Intel(R) Xeon(R) Platinum 8480+"},
		{"", ""},
		{"123456789012345678901234567890123456789012345678", "123456789012345678901234567890123456789012345678"},
	} {
		if got := brandString(packBrand(tc.raw)); got != tc.want {
			t.Errorf("brandString(%q) = %q, want %q", tc.raw, got, tc.want)
		}
	}
}

// Each feature comes from one bit of one register: setting that bit alone
// must set that field alone.
func TestFeatureBits(t *testing.T) {
	type setter func(*X86, uint32)
	leaf1 := func(c *X86, v uint32) { c.setLeaf1(v) }
	leaf7b := func(c *X86, v uint32) { c.setLeaf7(v, 0) }
	leaf7c := func(c *X86, v uint32) { c.setLeaf7(0, v) }
	xcr0 := func(c *X86, v uint32) { c.setXCR0(v) }
	for _, tc := range []struct {
		name string
		set  setter
		bits uint32
		want X86
	}{
		{"PCLMULQDQ", leaf1, 1 << 1, X86{PCLMULQDQ: true}},
		{"SSSE3", leaf1, 1 << 9, X86{SSSE3: true}},
		{"AES", leaf1, 1 << 25, X86{AES: true}},
		{"OSXSAVE", leaf1, 1 << 27, X86{OSXSAVE: true}},
		{"AVX", leaf1, 1 << 28, X86{AVX: true}},
		{"XSAVE is not OSXSAVE", leaf1, 1 << 26, X86{}},
		{"AVX2", leaf7b, 1 << 5, X86{AVX2: true}},
		{"BMI2", leaf7b, 1 << 8, X86{BMI2: true}},
		{"AVX512F", leaf7b, 1 << 16, X86{AVX512F: true}},
		{"AVX512BW", leaf7b, 1 << 30, X86{AVX512BW: true}},
		{"AVX512VL", leaf7b, 1 << 31, X86{AVX512VL: true}},
		{"AVX512DQ is not used", leaf7b, 1 << 17, X86{}},
		{"VAES", leaf7c, 1 << 9, X86{VAES: true}},
		{"VPCLMULQDQ", leaf7c, 1 << 10, X86{VPCLMULQDQ: true}},
		{"AVX512VBMI", leaf7c, 1 << 1, X86{AVX512VBMI: true}},
		{"GFNI", leaf7c, 1 << 8, X86{GFNI: true}},
		{"AVX512VBMI2 is not used", leaf7c, 1 << 6, X86{}},
		{"XCR0 x87|SSE", xcr0, 0x3, X86{}},
		{"XCR0 x87|SSE|AVX", xcr0, 0x7, X86{OSYMM: true}},
		{"XCR0 AVX without SSE", xcr0, 0x5, X86{}},
		{"XCR0 AVX-512 (Linux on Zen 4)", xcr0, 0x2E7, X86{OSYMM: true, OSZMM: true}},
		{"XCR0 ZMM without opmask", xcr0, 0xC7, X86{OSYMM: true}},
		{"XCR0 ZMM without hi16", xcr0, 0x67, X86{OSYMM: true}},
	} {
		var got X86
		tc.set(&got, tc.bits)
		if got != tc.want {
			t.Errorf("%s (%#x): got %+v, want %+v", tc.name, tc.bits, got, tc.want)
		}
	}
}

// On macOS the zmm state is not read from XCR0 alone (see darwinZMM).
func TestDarwinZMM(t *testing.T) {
	for _, tc := range []struct {
		osYMM, sysctl bool
		release       string
		want          bool
	}{
		{true, true, "21.3.0", true},
		{true, true, "23.6.0", true},
		{true, true, "22", true},
		{true, true, "21.3", true},
		{true, true, "21.2.9", false}, // opmask corruption on signal return
		{true, true, "20.6.0", false},
		{true, true, "19.6.0", false},
		{true, false, "23.6.0", false}, // no AVX-512 on this Mac
		{false, true, "23.6.0", false}, // no AVX state at all
		{true, true, "", false},
		{true, true, "23.x.0", false},
		{true, true, "23.6.0.1", false},
		{true, true, "23..0", false},
	} {
		if got := darwinZMM(tc.osYMM, tc.sysctl, tc.release); got != tc.want {
			t.Errorf("darwinZMM(ymm %v, sysctl %v, %q) = %v, want %v", tc.osYMM, tc.sysctl, tc.release, got, tc.want)
		}
	}
}
