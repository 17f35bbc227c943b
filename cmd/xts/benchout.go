package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/fastxts/xts/internal/cpuid"
	"github.com/fastxts/xts/internal/peak"
)

// writeTSV prints the fixed script format: one line per cell, the bound
// first.
func (b *bench) writeTSV(w io.Writer) {
	fmt.Fprintln(w, "impl\tkeybits\top\tsize\tmbps\tbound_pct")
	for _, r := range b.boundRows() {
		fmt.Fprintf(w, "%s\t%d\t%s\t%d\t%s\t%s\n", r.Impl, r.KeyBits, r.Op, r.Size, num(r.mbps), num(100*r.mbps/r.mbps))
	}
	for _, r := range b.rows {
		for _, c := range r.cells {
			if c.has() {
				fmt.Fprintf(w, "%s\t%d\t%s\t%d\t%s\t%s\n", r.impl, r.keyBits, r.op, c.size, num(c.mbps), num(b.share(c.mbps, r.keyBits, r.parallel)))
			}
		}
	}
}

// num prints a figure with one decimal, or NaN when it is unknown.
func num(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "NaN"
	}
	return fmt.Sprintf("%.1f", f)
}

// jsonCell is one result in the JSON output. A figure that could not be
// measured (the bound on a CPU without AES-NI) is null.
type jsonCell struct {
	Impl     string   `json:"impl"`
	KeyBits  int      `json:"keybits"`
	Op       string   `json:"op"`
	Size     int      `json:"size"`
	MBps     *float64 `json:"mbps"`
	BoundPct *float64 `json:"bound_pct"`
	// NsPerCall is a message cell's time per call (absent elsewhere):
	// at 16 bytes, nearly all of it is the fixed cost of a call.
	NsPerCall *float64 `json:"ns_per_call,omitempty"`
}

// boundCell is a bound row with its figure kept as a plain number.
type boundCell struct {
	jsonCell
	mbps float64
}

// boundRows returns the bound as result cells, one per key size, for one
// core and, when there are parallel rows, for every core.
func (b *bench) boundRows() []boundCell {
	var out []boundCell
	if !b.o.isAES() {
		return nil
	}
	add := func(k int, op string, parallel bool) {
		v := b.boundMBps(k, parallel)
		c := boundCell{jsonCell{Impl: boundName, KeyBits: k, Op: op, MBps: optional(v)}, v}
		if !math.IsNaN(v) {
			c.BoundPct = optional(100)
		}
		out = append(out, c)
	}
	for _, k := range b.o.keys {
		add(k, "rounds", false)
		if b.sectorRows {
			add(k, "rounds-parallel", true)
		}
	}
	return out
}

// optional is f, or nil (JSON null) when f is not a number.
func optional(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

func (b *bench) writeJSON(w io.Writer) error {
	cpu := cpuid.Detect()
	out := struct {
		CPU           string     `json:"cpu"`
		Cipher        string     `json:"cipher"`
		Threads       int        `json:"threads"`
		SecondsPerRun float64    `json:"seconds_per_run"`
		Passes        int        `json:"passes"`
		BoundLoop     string     `json:"bound_loop"`
		LatencyNs     *float64   `json:"aes_round_latency_ns"`
		Results       []jsonCell `json:"results"`
	}{CPU: cpu.Name, Cipher: b.o.cipher, Threads: threads(), SecondsPerRun: b.o.perRun.Seconds(), Passes: b.o.passes, BoundLoop: b.loop.Name}
	if b.latency > 0 {
		out.LatencyNs = optional(b.latency * 1e9)
	}
	for _, r := range b.boundRows() {
		out.Results = append(out.Results, r.jsonCell)
	}
	for _, r := range b.rows {
		for _, c := range r.cells {
			if c.has() {
				jc := jsonCell{r.impl, r.keyBits, r.op, c.size, optional(c.mbps), optional(b.share(c.mbps, r.keyBits, r.parallel)), nil}
				if r.op == "enc" || r.op == "dec" {
					jc.NsPerCall = optional(c.nsPerCall())
				}
				out.Results = append(out.Results, jc)
			}
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// writeTable prints one block per key size and operation: the message
// rows, then the bulk rows, each ending with its bound.
func (b *bench) writeTable(w io.Writer) {
	cpu := cpuid.Detect()
	fmt.Fprintf(w, "xts bench on %s (%d threads): MB/s = 10^6 bytes/s, best of %d runs of %s per cell\n",
		orUnknown(cpu.Name), threads(), b.o.passes, b.o.perRun)
	switch {
	case !b.o.isAES():
		if b.o.isCascade() {
			fmt.Fprintf(w, "%s: the chain on one core beside its ciphers, each on its default implementation over the same data units; %s = 1/(1/a + 1/b + ...) over the parts' MB/s\n", b.o.cipher, cascadeName)
		}
	case b.loopErr == nil:
		fmt.Fprintf(w, "AES-round bound: 16 bytes x block-rounds/s / rounds, timed with %s (%d independent rounds per iteration)\n", b.loop.Name, peak.RoundsPerIter)
		b.writeLatency(w)
	default:
		fmt.Fprintln(w, "AES-round bound: unavailable on this CPU or build")
	}
	for _, k := range b.o.keys {
		for _, op := range b.o.ops {
			verb := map[string]string{"enc": "encryption", "dec": "decryption"}[op]
			fmt.Fprintf(w, "\n%s %s, MB/s by message size in bytes:\n", b.o.title(k), verb)
			b.block(w, k, func(r *benchRow) bool { return r.op == op }, b.o.sizes, false, "implementation", b.ratioLines(k, op))
			if b.sectorRows {
				fmt.Fprintf(w, "\n%s %s, bulk MB/s by sector size (1 MiB on 1 thread; parallel: 8 MiB on %d):\n", b.o.title(k), verb, threads())
				b.block(w, k, func(r *benchRow) bool { return strings.HasPrefix(r.op, op+"-sectors") }, b.o.sectorSizes, true, "operation", nil)
			}
		}
	}
}

// tableLine is one line of a block: a label, cells, and the last column.
type tableLine struct {
	label string
	cells []string
	last  string
}

// block prints the rows of key size k that match, with a column per size,
// the share of the bound, and the bound rows under them (AES only), then
// extra lines (ratios).
func (b *bench) block(w io.Writer, k int, match func(*benchRow) bool, sizes []int, sectors bool, first string, extra []tableLine) {
	type line = tableLine
	var lines []line
	for _, r := range b.rows {
		if r.keyBits != k || !match(r) {
			continue
		}
		l := line{label: r.impl}
		if sectors {
			l.label = r.op
			if len(b.o.sectorImpls) > 1 || b.o.explicitImpl {
				l.label += " " + r.impl
			} else {
				l.label += " (" + r.impl + ")"
			}
		}
		for i, c := range r.cells {
			if !c.has() {
				l.cells = append(l.cells, "-")
			} else {
				l.cells = append(l.cells, fmt.Sprintf("%.0f", c.mbps))
			}
			if i == 0 && !sectors {
				l.cells = append(l.cells, nsString(c.nsPerCall()))
			}
		}
		l.last = pctString(b.share(r.best(), k, r.parallel))
		lines = append(lines, l)
	}
	bounds := []struct {
		label    string
		parallel bool
	}{{boundName + " (1 thread)", false}}
	if sectors {
		bounds = append(bounds, struct {
			label    string
			parallel bool
		}{fmt.Sprintf("%s (%d threads)", boundName, threads()), true})
	}
	if !b.o.isAES() {
		bounds = nil
	}
	for _, bd := range bounds {
		l := line{label: bd.label, last: "100%"}
		v := b.boundMBps(k, bd.parallel)
		for i := range sizes {
			if math.IsNaN(v) {
				l.cells = append(l.cells, "?")
			} else {
				l.cells = append(l.cells, fmt.Sprintf("%.0f", v))
			}
			if i == 0 && !sectors {
				l.cells = append(l.cells, "")
			}
		}
		if math.IsNaN(v) {
			l.last = "?"
		}
		lines = append(lines, l)
	}

	header := line{label: first, last: "of bound"}
	for i, sz := range sizes {
		header.cells = append(header.cells, fmt.Sprint(sz))
		if i == 0 && !sectors {
			header.cells = append(header.cells, "ns/call")
		}
	}
	for _, l := range extra {
		if !sectors { // no time per call for a ratio
			l.cells = slices.Insert(slices.Clone(l.cells), 1, "")
		}
		lines = append(lines, l)
	}
	lines = append([]line{header}, lines...)
	if !b.o.isAES() {
		for i := range lines {
			lines[i].last = "" // no bound to compare with
		}
	}
	// Labels left-aligned, figures right-aligned, two spaces apart.
	labelW, lastW := 0, 0
	cellW := make([]int, len(header.cells))
	for _, l := range lines {
		labelW = max(labelW, len(l.label))
		lastW = max(lastW, len(l.last))
		for i, c := range l.cells {
			cellW[i] = max(cellW[i], len(c))
		}
	}
	for _, l := range lines {
		var sb strings.Builder
		fmt.Fprintf(&sb, "%-*s", labelW, l.label)
		for i, c := range l.cells {
			fmt.Fprintf(&sb, "  %*s", cellW[i], c)
		}
		if lastW > 0 {
			fmt.Fprintf(&sb, "  %*s", lastW, l.last)
		}
		fmt.Fprintln(w, strings.TrimRight(sb.String(), " "))
	}
}

// nsString prints a time per call in ns, "-" when unknown.
func nsString(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "-"
	}
	return fmt.Sprintf("%.1f", f)
}

func pctString(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "?"
	}
	return fmt.Sprintf("%.1f%%", f)
}

// writeLatency prints what the latency of one AES round means here: how
// many rounds a routine must keep in flight to reach the bound, and the
// floor a serial AES-256 (a data unit's tweak encryption: 14 rounds after
// the first XOR) puts under one call, in bytes the bound moves meanwhile.
func (b *bench) writeLatency(w io.Writer) {
	if b.latency == 0 || b.rate == 0 {
		return
	}
	perInstr := b.rate / float64(b.loop.Width/16)
	chain := 14 * b.latency
	fmt.Fprintf(w, "AES-round latency: %.3f ns (one dependent chain on %s): %.1f rounds in flight reach the bound; a serial AES-256 (a tweak's) takes %.1f ns, in which the bound moves %.0f bytes\n",
		b.latency*1e9, b.loop.Name, b.latency*perInstr, chain*1e9, chain*peak.BoundMBps(b.rate, 256)*1e6)
}
