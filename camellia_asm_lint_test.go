package xts

import (
	"regexp"
	"strings"
	"testing"
)

// TestGeneratedCamelliaAssembly checks zcamellia_amd64.s (read as a file,
// on any platform) by the rules TestGeneratedSerpentAssembly applies to
// zserpent_amd64.s: the generated header and build constraint, NOSPLIT
// without a frame or stack use, VZEROUPPER before every RET of code that
// touched ymm/zmm, every vector register written zeroed before each RET
// (subkeys, tweaks and data do not outlive the call), and no memory
// operand indexed by a register (no table lookup at a data-dependent
// address: the only memory operands are the arguments, the schedule,
// the data and the constants, at fixed displacements).
func TestGeneratedCamelliaAssembly(t *testing.T) {
	header, rs := asmLintParse(t, "zcamellia_amd64.s")
	if len(header) < 2 || !strings.Contains(header[0], "Code generated") ||
		!strings.Contains(header[0], "DO NOT EDIT") || header[1] != "//go:build !purego" {
		t.Errorf("header %q: want a Code generated ... DO NOT EDIT. line and //go:build !purego", header)
	}
	wideRe := regexp.MustCompile(`\b[YZ][0-9]+\b`)
	indexRe := regexp.MustCompile(`\)\([A-Z0-9]+\*[1248]\)`)
	for _, r := range rs {
		if !strings.Contains(r.lines[0], "NOSPLIT") || !strings.Contains(r.lines[0], "$0-") {
			t.Errorf("%s: %q: want NOSPLIT and no frame", r.name, r.lines[0])
		}
		wide := false
		written := map[int]bool{}
		rets := 0
		for i, l := range r.lines[1:] {
			mn, ops, _ := strings.Cut(l, " ")
			ops = strings.TrimSpace(ops)
			if strings.Contains(ops, "SP)") {
				t.Errorf("%s: %q uses the stack", r.name, l)
			}
			if indexRe.MatchString(ops) {
				t.Errorf("%s: %q: an indexed memory operand", r.name, l)
			}
			if wideRe.MatchString(ops) {
				wide = true
			}
			if mn == "RET" {
				rets++
				if wide && (i == 0 || r.lines[i] != "VZEROUPPER") {
					t.Errorf("%s: RET without VZEROUPPER before it", r.name)
				}
				cleared := asmLintCleared(r.lines[1 : 1+i])
				for n := range 32 {
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
	if len(rs) != 2 {
		t.Errorf("found %d routines, want 2 (Camellia-XTS, both directions, and the single block)", len(rs))
	}
}
