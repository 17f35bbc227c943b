package xts

import (
	"fmt"
	"strings"
)

// This file holds the dispatch policy: which assembly variants a CPU can
// run and in which order they are preferred. It is a pure function of a
// description of the CPU, with no build tag, so that it can be tested
// against a table of real processors on any machine.

// cpuFeatures describes a CPU as far as the dispatch policy cares. The
// feature fields are raw CPUID bits; OSXSAVE, OSYMM and OSZMM say what the
// operating system enabled (CPUID.1:ECX.OSXSAVE and XCR0). An instruction
// set is only usable when the CPU has it and, for the wide registers, the
// OS saves and restores their state.
type cpuFeatures struct {
	Vendor        string // "GenuineIntel", "AuthenticAMD", ...
	Family, Model int    // with the extended family and model folded in

	AES, SSSE3, PCLMULQDQ, AVX, AVX2, VAES, VPCLMULQDQ bool
	AVX512F, AVX512BW, AVX512VL, BMI2                  bool

	OSXSAVE bool // the OS enabled XSAVE, so XCR0 can be read
	OSYMM   bool // XCR0 bits 1 and 2: XMM and YMM state
	OSZMM   bool // XCR0 bits 5, 6 and 7: opmask, ZMM0-15 upper halves, ZMM16-31
}

// verdict is the policy's answer for one assembly variant.
type verdict struct {
	Name      string // public implementation name, as in asmVariants
	Available bool   // the CPU and OS can run it
	Default   bool   // the first available variant in priority order
	Note      string // why: what is missing, or why it ranks where it does
}

// Variant names, best first in the usual order.
const (
	nameAVX10_512 = "vaes-avx10_512"
	nameAVX10_256 = "vaes-avx10_256"
	nameVAESAVX2  = "vaes-avx2"
	nameAESNIAVX  = "aesni-avx"
	nameAESNI     = "aesni"
)

// zmmDownclockers lists the Intel family 6 models whose cores lower their
// clock while 512-bit instructions run, which slows every other program on
// the core too. There the 256-bit AVX-512 variant is preferred.
var zmmDownclockers = map[int]string{
	0x55: "Skylake-X",
	0x6A: "Ice Lake",
	0x6C: "Ice Lake",
	0x7D: "Ice Lake",
	0x7E: "Ice Lake",
	0x9D: "Ice Lake",
	0x8C: "Tiger Lake",
	0x8D: "Tiger Lake",
}

// zmmPenalty names the microarchitecture when c is one whose zmm use
// downclocks the core, and returns "" otherwise.
func zmmPenalty(c cpuFeatures) string {
	if c.Vendor != "GenuineIntel" || c.Family != 6 {
		return ""
	}
	return zmmDownclockers[c.Model]
}

// requirement is one thing a variant needs: a CPU feature or an OS-enabled
// register state.
type requirement struct {
	name string
	ok   bool
	os   bool // an OS register state rather than a CPU feature
}

// missing explains the first reason reqs are not met: every absent CPU
// feature if there is one (the hardware is the fundamental limit),
// otherwise the register state the OS does not enable. It returns "" when
// everything is present.
func missing(reqs []requirement) string {
	var hw []string
	osState := ""
	for _, r := range reqs {
		switch {
		case r.ok:
		case !r.os:
			hw = append(hw, r.name)
		case osState == "":
			osState = r.name
		}
	}
	switch {
	case len(hw) > 0:
		return "needs " + joinAnd(groupAVX512(hw))
	case osState != "":
		return "OS does not enable " + osState + " state"
	}
	return ""
}

// groupAVX512 shortens AVX-512F, AVX-512BW and AVX-512VL, when all three
// are missing (the usual case), to AVX-512F/BW/VL.
func groupAVX512(names []string) []string {
	var out []string
	n := 0
	for _, name := range names {
		switch name {
		case "AVX-512F", "AVX-512BW", "AVX-512VL":
			n++
		}
	}
	for _, name := range names {
		switch {
		case n < 3:
			out = append(out, name)
		case name == "AVX-512F":
			out = append(out, "AVX-512F/BW/VL")
		case name == "AVX-512BW", name == "AVX-512VL":
		default:
			out = append(out, name)
		}
	}
	return out
}

// joinAnd joins names as "A", "A and B", "A, B and C".
func joinAnd(names []string) string {
	if len(names) <= 2 {
		return strings.Join(names, " and ")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// rankVariants returns a verdict for each of the five assembly variants,
// in priority order: vaes-avx10_512, vaes-avx10_256, vaes-avx2, aesni-avx,
// aesni, except that on CPUs where zmm use downclocks the core
// vaes-avx10_512 ranks just below vaes-avx10_256. The first available one
// is the default. (generic, always available and always last, is the core
// registry's business.)
func rankVariants(c cpuFeatures) []verdict {
	// The OS state bits mean nothing unless the OS enabled XSAVE.
	osYMM := c.OSXSAVE && c.OSYMM
	osZMM := osYMM && c.OSZMM

	// aesni byte-shuffles with PSHUFB. Every CPU with AES-NI has SSSE3,
	// but a hypervisor may mask one and not the other; the wider
	// variants inherit the requirement, which only keeps the order
	// monotone, since AVX implies it.
	aesni := []requirement{{"AES-NI", c.AES, false}, {"SSSE3", c.SSSE3, false}}
	aesniAVX := append(aesni[:len(aesni):len(aesni)],
		requirement{"AVX", c.AVX, false},
		requirement{"YMM", osYMM, true})
	vaesAVX2 := append(aesniAVX[:len(aesniAVX):len(aesniAVX)],
		requirement{"AVX2", c.AVX2, false},
		requirement{"VAES", c.VAES, false},
		requirement{"VPCLMULQDQ", c.VPCLMULQDQ, false})
	avx10 := append(vaesAVX2[:len(vaesAVX2):len(vaesAVX2)],
		requirement{"AVX-512F", c.AVX512F, false},
		requirement{"AVX-512BW", c.AVX512BW, false},
		requirement{"AVX-512VL", c.AVX512VL, false},
		requirement{"BMI2", c.BMI2, false},
		requirement{"ZMM", osZMM, true})

	vs := []verdict{
		{Name: nameAVX10_512, Note: missing(avx10)},
		{Name: nameAVX10_256, Note: missing(avx10)},
		{Name: nameVAESAVX2, Note: missing(vaesAVX2)},
		{Name: nameAESNIAVX, Note: missing(aesniAVX)},
		{Name: nameAESNI, Note: missing(aesni)},
	}
	for i := range vs {
		vs[i].Available = vs[i].Note == ""
	}

	// The registry appends "; default" to the note of the one it picks,
	// which is this first available one unless XTS_IMPLEMENTATION says
	// otherwise, so the notes here do not claim it.
	defaultNote := "fastest available"
	if uarch := zmmPenalty(c); uarch != "" {
		vs[0], vs[1] = vs[1], vs[0]
		if vs[1].Available {
			defaultNote = "fastest available without zmm"
			vs[1].Note = fmt.Sprintf("zmm avoided: %s downclocks (family 6 model 0x%02X)", uarch, c.Model)
		}
	}

	def := -1
	for i := range vs {
		switch {
		case !vs[i].Available:
		case def < 0:
			def = i
			vs[i].Default = true
			vs[i].Note = defaultNote
		case vs[i].Note == "":
			vs[i].Note = "available; " + vs[def].Name + " is preferred"
		}
	}
	return vs
}
