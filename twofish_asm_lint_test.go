package xts

import (
	"regexp"
	"strings"
	"testing"
)

// TestGeneratedTwofishAssembly checks ztwofish_amd64.s (read as a file, on
// any platform) as TestGeneratedSerpentAssembly checks Serpent's: the
// generated header and build constraint, NOSPLIT without a frame or stack
// use, VZEROUPPER before every RET of code that touched ymm/zmm, and every
// vector register written zeroed before each RET; and every opmask
// register written cleared before it (the routines use none today; a
// masked variant would carry data bits in them).
func TestGeneratedTwofishAssembly(t *testing.T) {
	header, rs := asmLintParse(t, "ztwofish_amd64.s")
	if len(header) < 2 || !strings.Contains(header[0], "Code generated") ||
		!strings.Contains(header[0], "DO NOT EDIT") || header[1] != "//go:build !purego" {
		t.Errorf("header %q: want a Code generated ... DO NOT EDIT. line and //go:build !purego", header)
	}
	wideRe := regexp.MustCompile(`\b[YZ][0-9]+\b`)
	maskRe := regexp.MustCompile(`^K[0-7]$`)
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
					if !twofishMaskCleared(r.lines[1:1+i], k) {
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
			if maskRe.MatchString(last) && mn != "KXORQ" {
				masks[last] = true
			}
		}
		if rets == 0 {
			t.Errorf("%s: no RET", r.name)
		}
	}
	if len(rs) != 2 {
		t.Errorf("found %d routines, want 2 (Twofish-XTS encrypt and decrypt)", len(rs))
	}
}

// twofishMaskCleared reports whether "KXORQ k, k, k" comes after the last
// other write of mask register k in lines.
func twofishMaskCleared(lines []string, k string) bool {
	for i := len(lines) - 1; i >= 0; i-- {
		mn, ops, _ := strings.Cut(lines[i], " ")
		fields := strings.Split(ops, ",")
		if strings.TrimSpace(fields[len(fields)-1]) != k {
			continue
		}
		if mn != "KXORQ" {
			return false
		}
		for _, f := range fields {
			if strings.TrimSpace(f) != k {
				return false
			}
		}
		return true
	}
	return false
}
