package main

import (
	"fmt"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/fastxts/xts"
	"github.com/fastxts/xts/internal/cpuid"
	"github.com/fastxts/xts/internal/peak"
)

const infoUsage = `Usage: xts info

Prints the CPU (vendor, family, model, name), the instruction-set features
the implementations use with whether the CPU has each and whether the OS
enabled its register state, every implementation of this build with
whether it can run here and which one is the default, and the loop that
'xts bench' times for the AES-round bound.
`

func runInfo(e *env, args []string) error {
	fs := newFlagSet("info", infoUsage, e.stdout)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}

	cpu := cpuid.Detect()
	w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "CPU\t%s\n", orUnknown(cpu.Name))
	fmt.Fprintf(w, "vendor\t%s\n", orUnknown(cpu.Vendor))
	fmt.Fprintf(w, "family\t%d (0x%X)\n", cpu.Family, cpu.Family)
	fmt.Fprintf(w, "model\t%d (0x%X)\n", cpu.Model, cpu.Model)
	fmt.Fprintf(w, "platform\t%s/%s, Go %s, %d threads (GOMAXPROCS)\n", runtime.GOOS, runtime.GOARCH, runtime.Version(), runtime.GOMAXPROCS(0))
	w.Flush()

	fmt.Fprintln(e.stdout)
	if len(cpu.Features) == 0 {
		fmt.Fprintln(e.stdout, "features: not detectable on this architecture or build")
	} else {
		w = tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "feature\tCPU\tOS\tusable")
		for _, f := range cpu.Features {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", f.Name, yesNo(f.CPU), yesNo(f.OS), yesNo(f.CPU && f.OS))
		}
		w.Flush()
	}

	fmt.Fprintln(e.stdout)
	w = tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "implementation\tavailable\tdefault\tnote")
	for _, im := range xts.Implementations() {
		def := ""
		if im.Default {
			def = "default"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", im.Name, yesNo(im.Available), def, im.Note)
	}
	w.Flush()

	fmt.Fprintln(e.stdout)
	if l, err := peak.Widest(); err == nil {
		fmt.Fprintf(e.stdout, "AES-round bound: 'xts bench' times %s (%d-byte registers, %d independent rounds per iteration)\n", l.Name, l.Width, peak.RoundsPerIter)
	} else {
		fmt.Fprintf(e.stdout, "AES-round bound: unavailable here (%s)\n", peakMissing())
	}
	return nil
}

// peakMissing says why no AES-round loop runs here: what each loop of
// this build needs, or that the build has none.
func peakMissing() string {
	var why []string
	for _, l := range peak.Loops() {
		why = append(why, l.Name+" "+l.Missing())
	}
	if len(why) == 0 {
		return "this build has no AES-round loop: amd64 or arm64 without the purego tag has"
	}
	return strings.Join(why, "; ")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
