//go:build !purego

package cpuid

import (
	"encoding/binary"
	"os"
	"strings"
	"testing"
)

// Detect's arm64 features against the kernel's HWCAP word, read here
// from /proc/self/auxv (an independent path: x/sys/cpu gets it from the
// runtime), except where GODEBUG switched one off.
func TestDetectARM64(t *testing.T) {
	info := Detect()
	if info.Name != "arm64" {
		t.Errorf("Name = %q, want arm64", info.Name)
	}
	var names []string
	got := map[string]bool{}
	for _, f := range info.Features {
		names = append(names, f.Name)
		got[f.Name] = f.CPU
		if !f.OS {
			t.Errorf("%s: OS = false, want true (vector state is always saved)", f.Name)
		}
	}
	if strings.Join(names, ",") != "AES,PMULL,SHA3" {
		t.Errorf("features %v, want AES, PMULL, SHA3", names)
	}

	auxv, err := os.ReadFile("/proc/self/auxv")
	if err != nil {
		t.Skipf("no auxv to cross-check against: %v", err)
	}
	var hwcap uint64
	found := false
	for i := 0; i+16 <= len(auxv); i += 16 {
		if binary.LittleEndian.Uint64(auxv[i:]) == 16 { // AT_HWCAP
			hwcap, found = binary.LittleEndian.Uint64(auxv[i+8:]), true
		}
	}
	if !found {
		t.Fatal("no AT_HWCAP in /proc/self/auxv")
	}
	godebug := os.Getenv("GODEBUG")
	for _, c := range []struct {
		name, option string
		bit          uint
	}{{"AES", "aes", 3}, {"PMULL", "pmull", 4}, {"SHA3", "sha3", 17}} {
		want := hwcap&(1<<c.bit) != 0
		if strings.Contains(godebug, "cpu."+c.option+"=off") {
			want = false
		}
		if got[c.name] != want {
			t.Errorf("%s = %v, HWCAP %#x and GODEBUG %q say %v", c.name, got[c.name], hwcap, godebug, want)
		}
	}
}
