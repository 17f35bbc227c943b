//go:build !purego

package xts

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The generated arm64 assembly (zxts_arm64.s) must keep to the rules that
// make it safe and fast on every arm64 core, checked here on the file:
//   - no R18 (platform register), R26 (closure context), R27 (assembler
//     scratch), R28 (g), R29 (frame pointer), and R30 only implicitly as
//     the link register (RET);
//   - every immediate one the instruction encodes directly: an immediate
//     that does not fit makes the assembler build it in R27, hidden (in a
//     loop, a hidden instruction per iteration); _asm/check.sh also
//     disassembles the built routines and finds no R27;
//   - in the XTS routines every AESE is immediately followed by AESMC on
//     the same register (AESD by AESIMC), the pair these cores fuse,
//     except a last round, which is followed by the EOR of the last key
//     into the same register; AESMC/AESIMC never stand alone. expandKey
//     uses AESE only with the all-zero key in V0 (the S-box) and AESIMC
//     alone (the decryption keys);
//   - no SHA3-extension instruction (EOR3, BCAX, RAX1, XAR): armv8-ce
//     checks only for AES;
//   - $0 frames, NOSPLIT, no stack access; the only memory written
//     through FP is the results.
// _asm/check.sh runs this test (under qemu-aarch64) after checking that
// the file is current.

var (
	arm64LintReserved = regexp.MustCompile(`\bR(18|2[6-9]|30)\b|\bRSP\b|\bLR\b|\bg\b`)
	arm64LintSHA3     = regexp.MustCompile(`^(VEOR3|VBCAX|VRAX1|VXAR)$`)
	arm64LintImm      = regexp.MustCompile(`\$(-?(0x[0-9a-fA-F]+|[0-9]+))\b`)
	arm64LintOffset   = regexp.MustCompile(`(-?[0-9]+)\(R[0-9]+\)`)
)

// arm64Operands splits an operand field at top-level commas (not inside
// brackets or parentheses).
func arm64Operands(s string) []string {
	var ops []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		case ',':
			if depth == 0 {
				ops = append(ops, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	if t := strings.TrimSpace(s[start:]); t != "" {
		ops = append(ops, t)
	}
	return ops
}

// arm64ImmOK reports whether the instruction's immediate (value n) is one
// it encodes without a scratch register.
func arm64ImmOK(mn string, ops []string, n int64) error {
	switch mn {
	case "ADD", "SUB", "SUBS", "CMP":
		if n < 0 || n > 4095 {
			return fmt.Errorf("12-bit arithmetic immediate out of range")
		}
	case "AND":
		if n <= 0 || n&(n+1) != 0 {
			return fmt.Errorf("only low-bit masks are allowed as logical immediates")
		}
	case "MOVD", "MOVW":
		if n < 0 || n > 0xffff {
			return fmt.Errorf("not a single MOVZ")
		}
	case "TBZ", "TBNZ":
		if n < 0 || n > 63 {
			return fmt.Errorf("bit number out of range")
		}
	case "EXTR":
		if n < 0 || n > 63 {
			return fmt.Errorf("shift out of range")
		}
	case "RORW":
		if n < 0 || n > 31 {
			return fmt.Errorf("rotation out of range")
		}
	default:
		return fmt.Errorf("no immediate allowed")
	}
	return nil
}

// arm64OffsetOK checks a base+offset memory operand's offset.
func arm64OffsetOK(mn string, ops []string, off int64) error {
	scale, limit := int64(0), int64(0)
	switch mn {
	case "VLD1.P", "VST1.P": // post-increment by the list's size
		regs := 0
		for _, op := range ops {
			if strings.HasPrefix(op, "[") {
				regs = strings.Count(op, ",") + 1
			}
		}
		if off != int64(16*regs) {
			return fmt.Errorf("post-increment %d for %d registers", off, regs)
		}
		return nil
	case "MOVD":
		scale, limit = 8, 32760
	case "MOVW", "MOVWU":
		scale, limit = 4, 16380
	case "FMOVQ":
		scale, limit = 16, 65520
	case "LDP":
		if off < -512 || off > 504 || off%8 != 0 {
			return fmt.Errorf("LDP offset out of range")
		}
		return nil
	default:
		return fmt.Errorf("no offset allowed")
	}
	if off < 0 || off > limit || off%scale != 0 {
		return fmt.Errorf("offset is not a scaled unsigned immediate")
	}
	return nil
}

func TestGeneratedARM64Rules(t *testing.T) {
	header, rs := asmLintParse(t, "zxts_arm64.s")
	if len(header) < 2 || !strings.Contains(header[0], "Code generated") ||
		!strings.Contains(header[0], "DO NOT EDIT") || header[1] != "//go:build !purego" {
		t.Errorf("header %q: want a Code generated ... DO NOT EDIT. line and //go:build !purego", header)
	}
	want := map[string]bool{"expandKey": true, "encryptARMv8": true, "decryptARMv8": true,
		"encryptSectorsARMv8": true, "decryptSectorsARMv8": true}
	for _, r := range rs {
		if !want[r.name] {
			t.Errorf("unexpected routine %s", r.name)
		}
		delete(want, r.name)
		if !strings.Contains(r.lines[0], "NOSPLIT") || !strings.Contains(r.lines[0], "$0-") {
			t.Errorf("%s: %q: want NOSPLIT and a $0 frame", r.name, r.lines[0])
		}
		aes := 0
		for i, l := range r.lines[1:] {
			mn, rest, _ := strings.Cut(l, " ")
			ops := arm64Operands(rest)
			next := ""
			if i+2 < len(r.lines) {
				next = r.lines[i+2]
			}
			prev := r.lines[i]
			if arm64LintReserved.MatchString(rest) {
				t.Errorf("%s: %q: reserved register", r.name, l)
			}
			if arm64LintSHA3.MatchString(mn) {
				t.Errorf("%s: %q: SHA3-extension instruction", r.name, l)
			}
			for _, m := range arm64LintImm.FindAllStringSubmatch(rest, -1) {
				n, err := strconv.ParseInt(m[1], 0, 64)
				if err == nil {
					err = arm64ImmOK(mn, ops, n)
				}
				if err != nil {
					t.Errorf("%s: %q: immediate %s: %v", r.name, l, m[1], err)
				}
			}
			for _, m := range arm64LintOffset.FindAllStringSubmatch(rest, -1) {
				n, _ := strconv.ParseInt(m[1], 10, 64)
				if err := arm64OffsetOK(mn, ops, n); err != nil {
					t.Errorf("%s: %q: %v", r.name, l, err)
				}
			}
			if strings.Contains(rest, "(FP)") && len(ops) == 2 && strings.Contains(ops[1], "(FP)") &&
				!strings.HasPrefix(ops[1], "lo+") && !strings.HasPrefix(ops[1], "hi+") {
				t.Errorf("%s: %q: writes an argument slot", r.name, l)
			}
			if strings.Contains(rest, "SP)") {
				t.Errorf("%s: %q: uses the stack", r.name, l)
			}

			// AES pairing.
			var pair string
			switch mn {
			case "AESE":
				pair = "AESMC"
			case "AESD":
				pair = "AESIMC"
			}
			if r.name == "expandKey" {
				if mn == "AESE" && ops[0] != "V0.B16" {
					t.Errorf("%s: %q: AESE with a key other than the zero V0", r.name, l)
				}
				if mn == "AESD" || mn == "AESMC" {
					t.Errorf("%s: %q: not used by the key schedule", r.name, l)
				}
				continue
			}
			switch mn {
			case "AESE", "AESD":
				aes++
				x := ops[1]
				nmn, nrest, _ := strings.Cut(next, " ")
				nops := arm64Operands(nrest)
				fused := nmn == pair && len(nops) == 2 && nops[0] == x && nops[1] == x
				lastRound := nmn == "VEOR" && len(nops) == 3 && nops[1] == x && nops[2] == x
				if !fused && !lastRound {
					t.Errorf("%s: %q followed by %q: want %s %s, %s (or the last key's VEOR into %s)", r.name, l, next, pair, x, x, x)
				}
			case "AESMC", "AESIMC":
				want := "AESE"
				if mn == "AESIMC" {
					want = "AESD"
				}
				pmn, prest, _ := strings.Cut(prev, " ")
				pops := arm64Operands(prest)
				if pmn != want || len(pops) != 2 || len(ops) != 2 || pops[1] != ops[0] || ops[0] != ops[1] {
					t.Errorf("%s: %q after %q: MixColumns must directly follow its round on the same register", r.name, l, prev)
				}
			}
		}
		if r.name != "expandKey" && aes == 0 {
			t.Errorf("%s: no AES instruction found: parser out of step with the file", r.name)
		}
	}
	for name := range want {
		t.Errorf("routine %s missing", name)
	}
}

// arm64LintVec matches a vector register operand (Vn with an arrangement
// or lane, or its scalar name Fn) and captures its number.
var arm64LintVec = regexp.MustCompile(`\b[VF]([0-9]+)\b`)

// arm64Written returns the vector registers an instruction writes: those
// in its last operand (a register, a lane, or a VLD1 register list).
func arm64Written(ops []string) []int {
	if len(ops) == 0 {
		return nil
	}
	last := ops[len(ops)-1]
	if strings.Contains(last, "(") { // a store: the last operand is memory
		return nil
	}
	var ns []int
	for _, m := range arm64LintVec.FindAllStringSubmatch(last, -1) {
		n, _ := strconv.Atoi(m[1])
		ns = append(ns, n)
	}
	return ns
}

// arm64ZeroIdiom reports the register that VEOR Vn, Vn, Vn zeroes.
func arm64ZeroIdiom(mn string, ops []string) (int, bool) {
	if mn != "VEOR" || len(ops) != 3 || ops[0] != ops[1] || ops[1] != ops[2] {
		return 0, false
	}
	return arm64Written(ops[2:])[0], true
}

// TestGeneratedARM64ClearsVectors: as on amd64, expandKey and the sector
// routines zero, just before each RET, every vector register they wrote
// other than by zeroing it (round keys, tweaks, data); the unit routines
// are exempt (speed, as measured on amd64).
func TestGeneratedARM64ClearsVectors(t *testing.T) {
	_, rs := asmLintParse(t, "zxts_arm64.s")
	checked := 0
	for _, r := range rs {
		if r.name != "expandKey" && !strings.Contains(r.name, "Sectors") {
			continue
		}
		checked++
		written := map[int]bool{}
		rets := 0
		for i, l := range r.lines[1:] {
			mn, rest, _ := strings.Cut(l, " ")
			ops := arm64Operands(rest)
			if mn == "RET" {
				rets++
				cleared := map[int]bool{}
				for j := i; j >= 1; j-- { // the run of zero idioms before RET
					pmn, prest, _ := strings.Cut(r.lines[j], " ")
					n, ok := arm64ZeroIdiom(pmn, arm64Operands(prest))
					if !ok {
						break
					}
					cleared[n] = true
				}
				for n := range 32 {
					if written[n] && !cleared[n] {
						t.Errorf("%s: RET %d leaves V%d as written", r.name, rets, n)
					}
				}
				continue
			}
			if _, ok := arm64ZeroIdiom(mn, ops); ok {
				continue
			}
			for _, n := range arm64Written(ops) {
				written[n] = true
			}
		}
		if rets == 0 || len(written) == 0 {
			t.Errorf("%s: %d RETs, %d vector registers written: parser out of step", r.name, rets, len(written))
		}
	}
	if checked != 3 {
		t.Errorf("checked %d routines, want 3 (expandKey and two sector routines)", checked)
	}
}
