package xts

import (
	"regexp"
	"strings"
	"testing"
)

// TestGeneratedCipherAssembly checks the generated files of the block
// ciphers other than AES (read as files, on any platform) by the rules
// TestGeneratedAssemblyRules and TestGeneratedAssemblyClearsVectors apply
// to zasm_amd64.s: the generated header and build constraint, NOSPLIT
// without a frame or stack use, VZEROUPPER before every RET of code that
// touched ymm/zmm, every vector register written zeroed before each RET
// (round keys, tweaks and data do not outlive the call), every mask
// register written cleared (KXORQ Kn, Kn, Kn) before each RET (the
// Kuznyechik routines hold the top bits of S-box inputs in them), and no
// memory operand indexed by a register (no table lookup at a
// data-dependent address: the memory operands are the arguments, the
// key schedule, the data and constants, at fixed displacements).
func TestGeneratedCipherAssembly(t *testing.T) {
	for _, tc := range []struct {
		file     string
		routines int
		what     string
	}{
		{"zserpent_amd64.s", 2, "Serpent-XTS encrypt and decrypt"},
		{"ztwofish_amd64.s", 2, "Twofish-XTS encrypt and decrypt"},
		{"zkuznyechik_amd64.s", 2, "Kuznyechik-XTS encrypt and decrypt"},
		{"zcamellia_amd64.s", 2, "Camellia-XTS, both directions, and the single block"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			if n := lintCipherAsm(t, tc.file); n != tc.routines {
				t.Errorf("found %d routines, want %d (%s)", n, tc.routines, tc.what)
			}
		})
	}
}

var (
	lintWideRe  = regexp.MustCompile(`\b[YZ][0-9]+\b`)
	lintMaskRe  = regexp.MustCompile(`^K[1-7]$`)
	lintIndexRe = regexp.MustCompile(`\)\([A-Z0-9]+\*[1248]\)`)
)

// lintCipherAsm applies TestGeneratedCipherAssembly's rules to one file
// and returns how many routines it holds.
func lintCipherAsm(t *testing.T, file string) int {
	t.Helper()
	header, rs := asmLintParse(t, file)
	if len(header) < 2 || !strings.Contains(header[0], "Code generated") ||
		!strings.Contains(header[0], "DO NOT EDIT") || header[1] != "//go:build !purego" {
		t.Errorf("header %q: want a Code generated ... DO NOT EDIT. line and //go:build !purego", header)
	}
	for _, r := range rs {
		if !strings.Contains(r.lines[0], "NOSPLIT") || !strings.Contains(r.lines[0], "$0-") {
			t.Errorf("%s: %q: want NOSPLIT and no frame", r.name, r.lines[0])
		}
		wide := false
		written := map[int]bool{}
		masks := map[string]bool{}
		rets := 0
		for i, l := range r.lines[1:] {
			mn, ops, _ := strings.Cut(l, " ")
			ops = strings.TrimSpace(ops)
			if strings.Contains(ops, "SP)") {
				t.Errorf("%s: %q uses the stack", r.name, l)
			}
			if lintIndexRe.MatchString(ops) {
				t.Errorf("%s: %q: an indexed memory operand", r.name, l)
			}
			if lintWideRe.MatchString(ops) {
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
				for k := range masks {
					if !lintMaskCleared(r.lines[1:1+i], k) {
						t.Errorf("%s: RET %d leaves mask register %s as written", r.name, rets, k)
					}
				}
				continue
			}
			if _, ok := asmLintZeroIdiom(mn, ops); ok {
				continue
			}
			fields := strings.Split(ops, ",")
			last := strings.TrimSpace(fields[len(fields)-1])
			if n, ok := asmLintVecNum(last); ok {
				written[n] = true
			}
			if lintMaskRe.MatchString(last) {
				masks[last] = true
			}
		}
		if rets == 0 {
			t.Errorf("%s: no RET", r.name)
		}
	}
	return len(rs)
}

// lintMaskCleared reports whether the last write of mask register k in
// lines is KXORQ k, k, k.
func lintMaskCleared(lines []string, k string) bool {
	for i := len(lines) - 1; i >= 0; i-- {
		mn, ops, _ := strings.Cut(lines[i], " ")
		fields := strings.Split(ops, ",")
		if strings.TrimSpace(fields[len(fields)-1]) != k {
			continue
		}
		return mn == "KXORQ" && strings.ReplaceAll(ops, " ", "") == k+","+k+","+k
	}
	return true
}
