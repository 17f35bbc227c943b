//go:build !purego

package xts

import (
	"strings"
	"testing"

	"golang.org/x/sys/cpu"
)

// armv8-ce is registered, available exactly when the CPU has AES as
// x/sys/cpu reports it (GODEBUG=cpu.aes=off included), and then the
// default; otherwise generic is the default and the note says why.
func TestARMv8CERegistered(t *testing.T) {
	r := buildRegistry(arm64Implementations, "", false)
	var ce, def *Implementation
	for i := range r.list {
		im := &r.list[i]
		if im.Name == "armv8-ce" {
			ce = im
		}
		if im.Default {
			def = im
		}
	}
	if ce == nil || def == nil {
		t.Fatalf("registry %+v: want armv8-ce and a default", r.list)
	}
	if ce.Available != cpu.ARM64.HasAES {
		t.Errorf("armv8-ce available = %v, x/sys/cpu says AES = %v", ce.Available, cpu.ARM64.HasAES)
	}
	want := genericName
	if cpu.ARM64.HasAES {
		want = "armv8-ce"
	}
	if def.Name != want {
		t.Errorf("default %s, want %s (AES = %v)", def.Name, want, cpu.ARM64.HasAES)
	}
	if !ce.Available && !strings.Contains(ce.Note, "needs AES") {
		t.Errorf("armv8-ce note %q: want it to say it needs AES", ce.Note)
	}
	t.Logf("armv8-ce: available %v, note %q; default %s", ce.Available, ce.Note, def.Name)
}
