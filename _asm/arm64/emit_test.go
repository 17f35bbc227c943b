package main

import (
	"strings"
	"testing"
)

// The helpers refuse what the Go assembler would accept silently and make
// unsafe or slow: reserved registers, and immediates it would build in R27.
func TestHelpersRefuse(t *testing.T) {
	f := &file{}
	cases := []struct {
		name string
		emit func()
	}{
		{"R18", func() { newGPR(18) }},
		{"R26", func() { newGPR(26) }},
		{"R27", func() { newGPR(27) }},
		{"R30", func() { newGPR(30) }},
		{"ADD $4096", func() { f.addImm(0, 1, 4096) }},
		{"SUBS $-1", func() { f.subsImm(0, -1) }},
		{"CMP $5000", func() { f.cmpImm(0, 5000) }},
		{"AND $0x87", func() { f.andImm(0, 1, 0x87) }},
		{"AND $0", func() { f.andImm(0, 1, 0) }},
	}
	for _, c := range cases {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: accepted", c.name)
				}
			}()
			c.emit()
		}()
	}
}

// The spellings the notes warn about: EXTR's and VEOR's operand
// order, and the doubling's three instructions.
func TestSpellings(t *testing.T) {
	f := &file{}
	f.double(4, 5, 8, 9)
	f.veor(0, 1, 2)
	got := strings.Fields(strings.ReplaceAll(f.buf.String(), ",", ""))
	want := strings.Fields("AND R5->63 R8 R9 EXTR $63 R4 R5 R5 EOR R4<<1 R9 R4 VEOR V2.B16 V1.B16 V0.B16")
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %q, want %q", got, want)
	}
}
