package xts

import (
	"regexp"
	"strings"
	"testing"
)

// TestGeneratedKuznyechikAssembly checks zkuznyechik_amd64.s (read as a
// file, on any platform) as TestGeneratedSerpentAssembly checks Serpent's:
// the generated header and build constraint, NOSPLIT without a frame or
// stack use, VZEROUPPER before every RET of code that touched ymm/zmm,
// every vector register written zeroed before each RET; and, as these
// routines also hold secret bits in mask registers (the top bits of the
// S-box inputs), every mask register written is cleared (KXORQ Kn, Kn, Kn)
// before each RET.
func TestGeneratedKuznyechikAssembly(t *testing.T) {
	header, rs := asmLintParse(t, "zkuznyechik_amd64.s")
	if len(header) < 2 || !strings.Contains(header[0], "Code generated") ||
		!strings.Contains(header[0], "DO NOT EDIT") || header[1] != "//go:build !purego" {
		t.Errorf("header %q: want a Code generated ... DO NOT EDIT. line and //go:build !purego", header)
	}
	wideRe := regexp.MustCompile(`\b[YZ][0-9]+\b`)
	maskRe := regexp.MustCompile(`^K[1-7]$`)
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
				for k := range masks {
					if !kuznyechikMaskCleared(r.lines[1:1+i], k) {
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
			if maskRe.MatchString(last) {
				masks[last] = true
			}
		}
		if rets == 0 {
			t.Errorf("%s: no RET", r.name)
		}
	}
	if len(rs) != 2 {
		t.Errorf("found %d routines, want 2 (Kuznyechik-XTS encrypt and decrypt)", len(rs))
	}
}

// kuznyechikMaskCleared reports whether the last KXORQ k, k, k before the
// end of lines comes after the last other write of k.
func kuznyechikMaskCleared(lines []string, k string) bool {
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
