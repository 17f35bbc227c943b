//go:build !purego

package cpuid

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// arm64 processors identify themselves by the implementer and part
// fields of their MIDR register, which Linux shows in /proc/cpuinfo
// ("CPU implementer", "CPU part"). These tables name the ones Go servers
// and laptops run on; others are shown by number.

var midrImplementers = map[uint64]string{
	0x41: "ARM", 0x42: "Broadcom", 0x43: "Cavium", 0x46: "Fujitsu", 0x48: "HiSilicon",
	0x4e: "NVIDIA", 0x51: "Qualcomm", 0x61: "Apple", 0xc0: "Ampere",
}

var midrARMParts = map[uint64]string{
	0xd03: "Cortex-A53", 0xd04: "Cortex-A35", 0xd05: "Cortex-A55", 0xd07: "Cortex-A57",
	0xd08: "Cortex-A72", 0xd09: "Cortex-A73", 0xd0a: "Cortex-A75", 0xd0b: "Cortex-A76",
	0xd0c: "Neoverse N1", 0xd0d: "Cortex-A77", 0xd40: "Neoverse V1", 0xd41: "Cortex-A78",
	0xd44: "Cortex-X1", 0xd46: "Cortex-A510", 0xd47: "Cortex-A710", 0xd48: "Cortex-X2",
	0xd49: "Neoverse N2", 0xd4f: "Neoverse V2",
}

// cpuinfoName reads the first core's implementer and part from a
// /proc/cpuinfo text and returns the vendor and a name ("Neoverse N1
// (MIDR part 0xd0c)"), or "" and "" when the text has neither field (other
// architectures' cpuinfo, as under qemu-user, which shows the host's).
func cpuinfoName(text string) (vendor, name string) {
	var impl, part uint64
	var haveImpl, havePart bool
	for _, line := range strings.Split(text, "\n") {
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSpace(val), 0, 64)
		switch strings.TrimSpace(key) {
		case "CPU implementer":
			if !haveImpl && err == nil {
				impl, haveImpl = n, true
			}
		case "CPU part":
			if !havePart && err == nil {
				part, havePart = n, true
			}
		}
	}
	if !haveImpl || !havePart {
		return "", ""
	}
	vendor = midrImplementers[impl]
	if vendor == "" {
		vendor = fmt.Sprintf("implementer 0x%02x", impl)
	}
	model := ""
	if impl == 0x41 {
		model = midrARMParts[part]
	}
	if model == "" {
		return vendor, fmt.Sprintf("%s part 0x%03x", vendor, part)
	}
	return vendor, fmt.Sprintf("%s (MIDR part 0x%03x)", model, part)
}

// hostCPUName is cpuinfoName of this machine's /proc/cpuinfo, read once
// (Detect promises one detection).
var hostCPUName = sync.OnceValues(func() (vendor, name string) {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "", ""
	}
	return cpuinfoName(string(b))
})
