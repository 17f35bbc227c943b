package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/fastxts/xts/_asm/internal/gencheck"
)

// TestGeneratedFileIsCurrent regenerates the loops and compares them with
// the committed internal/peak/peak_amd64.s (all but the first line, which
// names the output path). Run it with `cd _asm && go test ./peak`.
func TestGeneratedFileIsCurrent(t *testing.T) {
	fresh := gencheck.Fresh(t, "../../internal/peak/peak_amd64.s", "cd _asm/peak && go generate .")

	// Encoding rules: the xmm and ymm loops must run without AVX-512, so
	// no register numbered 16 or more and no zmm register; only the zmm
	// loops (rounds and chain) may use zmm; every loop that touches ymm or zmm ends with
	// VZEROUPPER.
	for _, fn := range strings.Split(string(fresh), "TEXT ")[1:] {
		name := fn[:strings.Index(fn, "(")]
		if regexp.MustCompile(`\b[XYZ](1[6-9]|2[0-9]|3[01])\b`).MatchString(fn) {
			t.Errorf("%s uses a register numbered 16 or more", name)
		}
		if strings.Contains(fn, "Z0") && !strings.HasSuffix(name, "EVEX512") {
			t.Errorf("%s uses zmm registers", name)
		}
		if (strings.Contains(fn, "Y0") || strings.Contains(fn, "Z0")) && !strings.Contains(fn, "VZEROUPPER") {
			t.Errorf("%s uses ymm/zmm without VZEROUPPER", name)
		}
	}
}
