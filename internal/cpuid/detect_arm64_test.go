//go:build !purego

package cpuid

import (
	"encoding/binary"
	"os"
	"strings"
	"testing"
)

// Detect's name from /proc/cpuinfo, and its arm64 features against the kernel's HWCAP word, read here
// from /proc/self/auxv (an independent path: x/sys/cpu gets it from the
// runtime), except where GODEBUG switched one off.
func TestDetectARM64(t *testing.T) {
	info := Detect()
	vendor, name := hostCPUName()
	if name == "" {
		name = "arm64" // no MIDR fields (qemu-user shows the host's cpuinfo)
	}
	if info.Vendor != vendor || info.Name != name {
		t.Errorf("Vendor, Name = %q, %q, want %q, %q", info.Vendor, info.Name, vendor, name)
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

func TestCPUInfoName(t *testing.T) {
	cases := []struct{ text, vendor, name string }{
		{"processor\t: 0\nBogoMIPS\t: 243.75\nFeatures\t: fp asimd aes pmull sha1 sha2 crc32\n" +
			"CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\n" +
			"CPU revision\t: 1\n\nprocessor\t: 1\nCPU implementer\t: 0x41\nCPU part\t: 0xd08\n",
			"ARM", "Neoverse N1 (MIDR part 0xd0c)"},
		{"CPU implementer\t: 0x41\nCPU part\t: 0xd40\n", "ARM", "Neoverse V1 (MIDR part 0xd40)"},
		{"CPU implementer\t: 0x41\nCPU part\t: 0xfff\n", "ARM", "ARM part 0xfff"},
		{"CPU implementer\t: 0xc0\nCPU part\t: 0xac3\n", "Ampere", "Ampere part 0xac3"},
		{"CPU implementer\t: 0x99\nCPU part\t: 0x001\n", "implementer 0x99", "implementer 0x99 part 0x001"},
		{"processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R)\n", "", ""},
		{"CPU implementer\t: 0x41\n", "", ""},
		{"", "", ""},
	}
	for _, c := range cases {
		if v, n := cpuinfoName(c.text); v != c.vendor || n != c.name {
			t.Errorf("cpuinfoName(%q) = %q, %q, want %q, %q", c.text, v, n, c.vendor, c.name)
		}
	}
}
