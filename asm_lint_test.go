package xts

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The generated assembly must run on every CPU its dispatch allows, so the
// encodings are checked here, on any platform (the file is only read):
//   - routines for CPUs without AVX-512 (names with AESNI or AVX2) use no
//     register >= 16, no Z or K register and no EVEX-only instruction;
//   - the legacy-SSE routines (names ending in AESNI) use no VEX
//     instruction, the AVX ones no legacy-SSE instruction on a vector
//     register, and no routine mixes the two (a state transition on many
//     CPUs);
//   - ymm/zmm routines execute VZEROUPPER before every RET;
//   - no routine has a stack frame or touches the stack.
//   - expandKey and the sector routines leave zero in each vector
//     register they wrote: round keys, tweaks and data do not outlive the
//     call (the zeroing runs just before every RET, on every path). The
//     unit routines do not, for speed: see clearVectors in
//     _asm/xts_phases.go.
// _asm/check.sh runs these tests after checking that the file is current.

var (
	asmLintHighReg = regexp.MustCompile(`\b([XY](1[6-9]|2[0-9]|3[01])|Z[0-9]+|K[0-7])\b`)
	asmLintVecReg  = regexp.MustCompile(`\b[XYZ][0-9]+\b`)
	asmLintEVEX    = regexp.MustCompile(`^(VPTERNLOG[DQ]|VMOVDQ[AU](8|16|32|64)|VP(XOR|AND|ANDN|OR)[DQ]|` +
		`VBROADCASTI(32X4|64X2|32X8|64X4)|VSHUF[IF](32X4|64X2)|V(INSERT|EXTRACT)[IF](32X4|64X2|32X8|64X4)|` +
		`VPERM[IT]2[BWDQ]|VPCOMPRESS[BWDQ]|VPEXPAND[BWDQ]|VPRO[LR]V?[DQ]|VPSRAV?Q|VALIGN[DQ]|VPBLENDM[BWDQ]|` +
		`VPTESTN?M[BWDQ]|VPCMPU?[BWDQ]|VPMOV[BWDQ]2M|VPMOVM2[BWDQ]|K[A-Z]+[BWDQ]?)(\.|$)`)
)

// asmLintRoutine is one TEXT block of a generated file: its instruction
// lines, the TEXT line first.
type asmLintRoutine struct {
	name  string
	lines []string // instruction lines: mnemonic and operands
}

// asmLintParse reads a generated assembly file (zasm_amd64.s,
// zxts_arm64.s) into its leading comment lines and its routines, with
// comments, labels, #include lines and DATA/GLOBL blocks left out.
func asmLintParse(t *testing.T, file string) (header []string, rs []asmLintRoutine) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var cur *asmLintRoutine
	for _, line := range strings.Split(string(data), "\n") {
		trim := strings.TrimSpace(line)
		if i := strings.Index(trim, "//"); i >= 0 {
			if cur == nil && len(rs) == 0 {
				header = append(header, trim)
			}
			trim = strings.TrimSpace(trim[:i])
		}
		switch {
		case trim == "", strings.HasPrefix(trim, "#include"):
		case strings.HasPrefix(trim, "TEXT "):
			name := strings.TrimPrefix(strings.Fields(trim)[1], "·")
			name = strings.TrimSuffix(name, "(SB),")
			rs = append(rs, asmLintRoutine{name: name, lines: []string{trim}})
			cur = &rs[len(rs)-1]
		case strings.HasPrefix(trim, "DATA ") || strings.HasPrefix(trim, "GLOBL "):
			cur = nil
		case strings.HasSuffix(trim, ":"): // label
		case cur != nil:
			cur.lines = append(cur.lines, trim)
		}
	}
	return header, rs
}

func TestGeneratedAssemblyRules(t *testing.T) {
	header, rs := asmLintParse(t, "zasm_amd64.s")
	if len(header) < 2 || !strings.Contains(header[0], "Code generated") ||
		!strings.Contains(header[0], "DO NOT EDIT") || header[1] != "//go:build !purego" {
		t.Errorf("header %q: want a Code generated ... DO NOT EDIT. line and //go:build !purego", header)
	}
	xts := 0
	for _, r := range rs {
		noAVX512 := strings.Contains(r.name, "AESNI") || strings.Contains(r.name, "AVX2")
		legacy := strings.HasSuffix(r.name, "AESNI")
		vex := strings.Contains(r.name, "AVX")
		wide, vexSeen, sseSeen := false, false, false
		if !strings.Contains(r.lines[0], "NOSPLIT") || !strings.Contains(r.lines[0], "$0-") {
			t.Errorf("%s: %q: want NOSPLIT and no frame", r.name, r.lines[0])
		}
		if strings.Contains(r.name, "crypt") {
			xts++
		}
		for i, l := range r.lines[1:] {
			mn, ops, _ := strings.Cut(l, " ")
			ops = strings.TrimSpace(ops)
			if strings.Contains(ops, "SP)") {
				t.Errorf("%s: %q uses the stack", r.name, l)
			}
			if strings.ContainsAny(ops, "YZ") && regexp.MustCompile(`\b[YZ][0-9]+\b`).MatchString(ops) {
				wide = true
			}
			if noAVX512 {
				if asmLintHighReg.MatchString(ops) {
					t.Errorf("%s: %q: register needs AVX-512", r.name, l)
				}
				if asmLintEVEX.MatchString(mn) {
					t.Errorf("%s: %q: EVEX-only instruction", r.name, l)
				}
			}
			isVec := asmLintVecReg.MatchString(ops) || mn == "VZEROUPPER"
			switch {
			case isVec && strings.HasPrefix(mn, "V"):
				vexSeen = true
			case isVec:
				sseSeen = true
			}
			if mn == "RET" && wide && (i == 0 || r.lines[i] != "VZEROUPPER") {
				t.Errorf("%s: RET without VZEROUPPER before it", r.name)
			}
		}
		switch {
		case legacy && vexSeen:
			t.Errorf("%s: VEX instructions in legacy-SSE code", r.name)
		case vex && sseSeen:
			t.Errorf("%s: legacy-SSE instructions in VEX code", r.name)
		case vexSeen && sseSeen:
			t.Errorf("%s: mixes legacy-SSE and VEX instructions", r.name)
		}
	}
	// Ten per-unit routines and ten sector-batch routines.
	if xts != 20 {
		t.Errorf("found %d XTS routines, want 20", xts)
	}
}

// TestGeneratedAssemblyClearsVectors checks that expandKey and the sector
// routines zero, just before each RET, every vector register they write
// other than by zeroing it: round keys (zmm16-31 included, which
// VZEROUPPER leaves alone), tweaks and data do not stay behind in
// registers after the call. The unit routines (encrypt<variant>,
// decrypt<variant>) are exempt: clearVectors in _asm/xts_phases.go gives
// the measurements.
func TestGeneratedAssemblyClearsVectors(t *testing.T) {
	_, rs := asmLintParse(t, "zasm_amd64.s")
	checked := 0
	for _, r := range rs {
		unit := (strings.HasPrefix(r.name, "encrypt") || strings.HasPrefix(r.name, "decrypt")) &&
			!strings.Contains(r.name, "Sectors")
		if unit {
			continue
		}
		checked++
		written := map[int]bool{}
		rets := 0
		for i, l := range r.lines[1:] {
			mn, ops, _ := strings.Cut(l, " ")
			if mn == "RET" {
				rets++
				cleared := asmLintCleared(r.lines[1 : 1+i])
				for n := 0; n < 32; n++ {
					if written[n] && !cleared[n] {
						t.Errorf("%s: RET %d leaves vector register %d as written", r.name, rets, n)
					}
				}
				continue
			}
			if _, ok := asmLintZeroIdiom(mn, ops); ok {
				continue
			}
			fields := strings.Split(ops, ",")
			if n, ok := asmLintVecNum(strings.TrimSpace(fields[len(fields)-1])); ok {
				written[n] = true
			}
		}
		if rets == 0 {
			t.Errorf("%s: no RET", r.name)
		}
	}
	// expandKey and ten sector-batch routines.
	if checked != 11 {
		t.Errorf("checked %d routines, want 11", checked)
	}
}

// asmLintCleared returns the vector registers zeroed by the run of
// VZEROALL, VZEROUPPER and zero idioms at the end of lines.
func asmLintCleared(lines []string) map[int]bool {
	cleared := map[int]bool{}
	for i := len(lines) - 1; i >= 0; i-- {
		mn, ops, _ := strings.Cut(lines[i], " ")
		switch n, ok := asmLintZeroIdiom(mn, ops); {
		case ok:
			cleared[n] = true
		case mn == "VZEROALL":
			for n := 0; n < 16; n++ {
				cleared[n] = true
			}
		case mn == "VZEROUPPER":
		default:
			return cleared
		}
	}
	return cleared
}

// asmLintZeroIdiom reports whether an instruction XORs an xmm register
// with itself, and which register. That zeroes the whole register: VEX
// and EVEX zero the bits above 128 too, and legacy SSE appears only in
// routines that write no more than the low 128 bits.
func asmLintZeroIdiom(mn, ops string) (int, bool) {
	if mn != "PXOR" && mn != "VPXOR" && mn != "VPXORD" {
		return 0, false
	}
	fields := strings.Split(ops, ",")
	first := strings.TrimSpace(fields[0])
	for _, f := range fields[1:] {
		if strings.TrimSpace(f) != first {
			return 0, false
		}
	}
	if !strings.HasPrefix(first, "X") {
		return 0, false
	}
	return asmLintVecNum(first)
}

// asmLintVecNum returns the number of a vector register operand (X, Y or Z).
func asmLintVecNum(op string) (int, bool) {
	if len(op) < 2 || !strings.ContainsRune("XYZ", rune(op[0])) {
		return 0, false
	}
	n, err := strconv.Atoi(op[1:])
	return n, err == nil
}
