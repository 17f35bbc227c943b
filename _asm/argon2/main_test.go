package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/fastxts/xts/_asm/internal/gencheck"
)

// TestGeneratedFileIsCurrent regenerates the compression functions and
// compares them with the committed internal/argon2/zblamka_amd64.s
// (all but the first line, which names the output path), then checks the
// rules the Go side relies on. Run it with `cd _asm && go test ./argon2`.
func TestGeneratedFileIsCurrent(t *testing.T) {
	fresh := gencheck.Fresh(t, "../../internal/argon2/zblamka_amd64.s", "cd _asm/argon2 && go generate .")

	// Rules: no stack frame and no stack access (no key material on the
	// stack); in the compression functions, VZEROALL before the one RET
	// (no vector register keeps state); the AVX2 parts run without
	// AVX-512: no register numbered 16 or more, no zmm or mask register,
	// no EVEX-only instruction.
	var names []string
	for _, fn := range strings.Split(string(fresh), "TEXT ")[1:] {
		name := fn[:strings.Index(fn, "(")]
		names = append(names, name)
		if !strings.Contains(fn, "NOSPLIT, $0-") {
			t.Errorf("%s has a stack frame", name)
		}
		if strings.Contains(fn, "(SP)") {
			t.Errorf("%s touches the stack", name)
		}
		if strings.Count(fn, "RET") != 1 {
			t.Errorf("%s has more than one RET", name)
		}
		if strings.HasPrefix(name, "·blamka") && !regexp.MustCompile(`VZEROALL\s+RET`).MatchString(fn) {
			t.Errorf("%s does not end with VZEROALL; RET", name)
		}
		if strings.HasPrefix(name, "·blamkaAVX2") {
			if regexp.MustCompile(`\b(X|Y)(1[6-9]|2[0-9]|3[01])\b|\bZ[0-9]|\bK[0-7]\b`).MatchString(fn) {
				t.Errorf("%s uses a register that needs AVX-512", name)
			}
			if regexp.MustCompile(`\bVPRO[LR]Q\b|\bVPXOR[DQ]\b|\bVMOVDQU(32|64)\b|\bVSHUFI`).MatchString(fn) {
				t.Errorf("%s uses an AVX-512 instruction", name)
			}
		}
	}
	want := "·blamkaAVX2Head ·blamkaAVX2Tail ·blamkaAVX512VLHead ·blamkaAVX512VLTail ·prefetchBlock"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("functions %s, want %s", got, want)
	}
}
