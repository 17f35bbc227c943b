package cpuid

// Info describes the processor as far as this package cares: what
// `xts info` prints and what the choice of implementation rests on.
type Info struct {
	Vendor string // CPUID vendor string, e.g. "GenuineIntel"; "" where unknown
	Name   string // brand string; on other architectures or purego builds, GOARCH
	Family int    // display family, extended family included (0 where unknown)
	Model  int    // display model, extended model included (0 where unknown)

	// Features lists the instruction-set extensions the implementations
	// use, in a fixed order. Empty where the package cannot detect them.
	Features []Feature
}

// Feature reports one instruction-set extension. It is usable only when
// both CPU and OS are true.
type Feature struct {
	Name string // "AES-NI", "AVX", "AVX-512F", ...
	CPU  bool   // the processor implements it (the CPUID bit)
	// OS reports whether the operating system saves the register state
	// the extension's instructions use (XCR0: YMM for AVX, AVX2, VAES and
	// VPCLMULQDQ; also opmask and ZMM for AVX-512). It is always true
	// for extensions that need only the registers every OS saves
	// (AES-NI, SSSE3, PCLMULQDQ, BMI2).
	OS bool
}

// Detect describes the processor this program runs on. Detection runs
// once; each call returns a fresh copy.
func Detect() Info {
	return detect()
}

// Info turns detected features and the brand string into an Info.
func (c X86) Info(brand string) Info {
	ymm, zmm := c.UsableYMM(), c.UsableZMM()
	return Info{
		Vendor: c.Vendor,
		Name:   brand,
		Family: c.Family,
		Model:  c.Model,
		Features: []Feature{
			{"AES-NI", c.AES, true},
			{"SSSE3", c.SSSE3, true},
			{"PCLMULQDQ", c.PCLMULQDQ, true},
			{"AVX", c.AVX, ymm},
			{"AVX2", c.AVX2, ymm},
			{"VAES", c.VAES, ymm},
			{"VPCLMULQDQ", c.VPCLMULQDQ, ymm},
			{"AVX-512F", c.AVX512F, zmm},
			{"AVX-512BW", c.AVX512BW, zmm},
			{"AVX-512VL", c.AVX512VL, zmm},
			{"AVX-512VBMI", c.AVX512VBMI, zmm},
			{"GFNI", c.GFNI, ymm},
			{"BMI2", c.BMI2, true},
		},
	}
}
