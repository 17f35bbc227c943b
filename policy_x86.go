package xts

import (
	"fmt"
	"strings"

	"github.com/fastxts/xts/internal/cpuid"
)

// This file holds the x86 dispatch policy: which assembly variants a CPU
// can run and in which order they are preferred. It is a pure function of
// a description of the CPU and of the variants' needs (the table in
// variants_amd64.go), so that it can be tested against real processors
// on any x86 machine.

// x86Policy is what the policy knows of one variant: its name, what it
// needs of the CPU and the OS, and whether it runs on zmm registers (which
// some cores pay for with a lower clock).
type x86Policy struct {
	name  string
	needs func(c cpuid.X86) []requirement
	zmm   bool
}

// verdict is the policy's answer for one assembly variant.
type verdict struct {
	Name      string // public implementation name, as in the variant table
	Available bool   // the CPU and OS can run it
	Default   bool   // the first available variant in priority order
	Note      string // why: what is missing, or why it ranks where it does
}

// zmmDownclockers lists the Intel family 6 models whose cores lower their
// clock while 512-bit instructions run, which slows every other program on
// the core too. There a zmm variant ranks below the variant after it.
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
func zmmPenalty(c cpuid.X86) string {
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

// rankVariants returns a verdict for each variant of table (best first),
// in priority order: the table's, except that on CPUs where zmm use
// downclocks the core a zmm variant ranks just below the one after it.
// The first available one is the default. (generic, always available and
// always last, is the core registry's business.)
func rankVariants(c cpuid.X86, table []x86Policy) []verdict {
	order := make([]x86Policy, len(table))
	copy(order, table)
	uarch := zmmPenalty(c)
	demoted := map[string]bool{}
	if uarch != "" {
		for i := 0; i+1 < len(order); i++ {
			if order[i].zmm && !demoted[order[i].name] {
				demoted[order[i].name] = true
				order[i], order[i+1] = order[i+1], order[i]
			}
		}
	}

	vs := make([]verdict, len(order))
	for i, p := range order {
		vs[i] = verdict{Name: p.name, Note: missing(p.needs(c))}
		vs[i].Available = vs[i].Note == ""
	}

	// The registry appends "; default" to the note of the one it picks,
	// which is this first available one unless XTS_IMPLEMENTATION says
	// otherwise, so the notes here do not claim it.
	defaultNote := "fastest available"
	if uarch != "" {
		for i := range vs {
			if demoted[vs[i].Name] && vs[i].Available {
				defaultNote = "fastest available without zmm"
				vs[i].Note = fmt.Sprintf("zmm avoided: %s downclocks (family 6 model 0x%02X)", uarch, c.Model)
			}
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
