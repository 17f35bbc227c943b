package main

import (
	"bytes"
	"encoding/json"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/fastxts/xts"
	"github.com/fastxts/xts/internal/cpuid"
	"github.com/fastxts/xts/internal/peak"
)

// tsvRow is one parsed line of bench --format tsv.
type tsvRow struct {
	impl, op       string
	keyBits, size  int
	mbps, boundPct float64
}

func parseTSV(t *testing.T, out string) []tsvRow {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if lines[0] != "impl\tkeybits\top\tsize\tmbps\tbound_pct" {
		t.Fatalf("header %q", lines[0])
	}
	var rows []tsvRow
	for _, l := range lines[1:] {
		f := strings.Split(l, "\t")
		if len(f) != 6 {
			t.Fatalf("line %q has %d fields, want 6", l, len(f))
		}
		var r tsvRow
		var err error
		r.impl, r.op = f[0], f[2]
		if r.keyBits, err = strconv.Atoi(f[1]); err != nil {
			t.Fatalf("line %q: keybits: %v", l, err)
		}
		if r.size, err = strconv.Atoi(f[3]); err != nil {
			t.Fatalf("line %q: size: %v", l, err)
		}
		if r.mbps, err = strconv.ParseFloat(f[4], 64); err != nil {
			t.Fatalf("line %q: mbps: %v", l, err)
		}
		if r.boundPct, err = strconv.ParseFloat(f[5], 64); err != nil {
			t.Fatalf("line %q: bound_pct: %v", l, err)
		}
		rows = append(rows, r)
	}
	return rows
}

func TestBenchTSV(t *testing.T) {
	r := runCmd(t, nil, "bench", "--format", "tsv", "--time", "1ms", "--passes", "1", "--sizes", "16,100,4096", "--key", "128,256")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if r.stderr != "" {
		t.Errorf("stderr %q, want nothing when it is not a terminal", r.stderr)
	}
	rows := parseTSV(t, r.stdout)
	has := func(impl string, keyBits int, op string, size int) *tsvRow {
		for i := range rows {
			if rows[i].impl == impl && rows[i].keyBits == keyBits && rows[i].op == op && rows[i].size == size {
				return &rows[i]
			}
		}
		return nil
	}

	_, peakErr := peak.Widest()
	for _, k := range []int{128, 256} {
		for _, op := range []string{"rounds", "rounds-parallel"} {
			b := has(boundName, k, op, 0)
			if b == nil {
				t.Fatalf("no %s row for %d-bit keys, op %s", boundName, k, op)
			}
			// Any AES hardware runs over 1 GB/s; qemu's emulated AES
			// instructions, which CI's arm64 run uses, 25-70 MB/s.
			if peakErr == nil && (!(b.mbps > 1) || b.boundPct != 100) {
				t.Errorf("bound row %+v: want > 1 MB/s at 100%%", *b)
			}
		}
		def := ""
		for _, im := range xts.Implementations() {
			if im.Cipher != "" {
				continue // not AES: not in the table
			}
			if im.Default {
				def = im.Name
			}
			for _, size := range []int{16, 100, 4096} {
				row := has(im.Name, k, "dec", size)
				if im.Available != (row != nil) {
					t.Errorf("%s (available %v): row for %d-bit dec %d present: %v", im.Name, im.Available, k, size, row != nil)
				}
				if row != nil && !(row.mbps > 0) {
					t.Errorf("row %+v: no throughput", *row)
				}
				if row != nil && peakErr == nil && !(row.boundPct >= 0 && row.boundPct < 1000) {
					t.Errorf("row %+v: implausible share of the bound", *row)
				}
			}
			if has(im.Name, k, "enc", 4096) != nil {
				t.Errorf("%s has an enc row without --op enc", im.Name)
			}
		}
		// The baseline cannot do lengths that are not a multiple of 16.
		if has(baselineName, k, "dec", 16) == nil || has(baselineName, k, "dec", 4096) == nil {
			t.Errorf("no %s rows for %d-bit keys", baselineName, k)
		}
		if has(baselineName, k, "dec", 100) != nil {
			t.Errorf("%s row for 100 bytes, which it cannot encrypt", baselineName)
		}
		for _, op := range []string{"dec-sectors", "dec-sectors-parallel"} {
			for _, ss := range []int{512, 4096} {
				if has(def, k, op, ss) == nil {
					t.Errorf("no %s row for %s, %d-bit keys, %d-byte sectors", op, def, k, ss)
				}
			}
		}
	}
}

func TestBenchJSONAndTable(t *testing.T) {
	r := runCmd(t, nil, "bench", "--format", "json", "--time", "1ms", "--passes", "2", "--op", "enc", "--sizes", "512", "--sector-sizes", "none", "--impl", "generic,"+baselineName)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var out struct {
		Passes    int      `json:"passes"`
		LatencyNs *float64 `json:"aes_round_latency_ns"`
		Results   []struct {
			Impl      string   `json:"impl"`
			Op        string   `json:"op"`
			Size      int      `json:"size"`
			MBps      *float64 `json:"mbps"`
			BoundPct  *float64 `json:"bound_pct"`
			NsPerCall *float64 `json:"ns_per_call"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, r.stdout)
	}
	var impls []string
	for _, c := range out.Results {
		impls = append(impls, c.Impl+"/"+c.Op)
		if c.Op == "enc" && (c.MBps == nil || !(*c.MBps > 0)) {
			t.Errorf("%+v: no throughput", c)
		}
		// A message cell's time per call is its size at its throughput;
		// the bound has none.
		switch {
		case c.Op == "enc" && (c.NsPerCall == nil || c.MBps == nil):
			t.Errorf("%+v: no ns_per_call", c)
		case c.Op == "enc":
			if want := float64(c.Size) * 1e3 / *c.MBps; *c.NsPerCall < want*0.999 || *c.NsPerCall > want*1.001 {
				t.Errorf("%+v: ns_per_call %v, want %v", c, *c.NsPerCall, want)
			}
		case c.NsPerCall != nil:
			t.Errorf("%+v: ns_per_call on a cell that is not a message", c)
		}
	}
	// The round latency: plausible where the bound loop runs (amd64 with
	// AES-NI: 0.1-1000 ns), absent elsewhere.
	if _, err := peak.Widest(); err == nil && runtime.GOARCH == "amd64" {
		if l := out.LatencyNs; l == nil || *l < 0.1 || *l > 1000 {
			t.Errorf("aes_round_latency_ns = %v, want a plausible latency", l)
		}
	} else if out.LatencyNs != nil {
		t.Errorf("aes_round_latency_ns = %v where no chain loop runs", *out.LatencyNs)
	}
	want := []string{boundName + "/rounds", "generic/enc", baselineName + "/enc"}
	if !slices.Equal(impls, want) || out.Passes != 2 {
		t.Errorf("results %v passes %d, want %v and 2", impls, out.Passes, want)
	}

	r = runCmd(t, nil, "bench", "--time", "1ms", "--passes", "1", "--sizes", "16,512")
	if r.code != 0 {
		t.Fatalf("table: exit %d: %s", r.code, r.stderr)
	}
	for _, im := range xts.Implementations() {
		if im.Cipher == "" && im.Available && !strings.Contains(r.stdout, "\n"+im.Name+" ") {
			t.Errorf("table has no row for %s:\n%s", im.Name, r.stdout)
		}
	}
	for _, s := range []string{baselineName, boundName, "dec-sectors", "dec-sectors-parallel", "of bound"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("table lacks %q:\n%s", s, r.stdout)
		}
	}
	// The message block's header has ns/call right after the 16-byte
	// column, and each implementation's row a time there: a positive
	// number, 16 bytes at the row's MB/s.
	lines := strings.Split(r.stdout, "\n")
	hdr := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "implementation ") })
	if hdr < 0 || !slices.Equal(strings.Fields(lines[hdr]), []string{"implementation", "16", "ns/call", "512", "of", "bound"}) {
		t.Fatalf("message header: want implementation 16 ns/call 512 of bound:\n%s", r.stdout)
	}
	for _, l := range lines[hdr+1:] {
		f := strings.Fields(l)
		if len(f) != 5 || f[0] == boundName {
			break
		}
		mbps, err1 := strconv.ParseFloat(f[1], 64)
		ns, err2 := strconv.ParseFloat(f[2], 64)
		if err1 != nil || err2 != nil || !(ns > 0) || mbps > 0 && (ns < 0.9*16e3/(mbps+0.5) || ns > 1.1*16e3/max(mbps-0.5, 0.1)) {
			t.Errorf("row %q: ns/call %q does not fit 16 bytes at %q MB/s", l, f[2], f[1])
		}
	}
}

func TestBenchUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--key", "100"}, "--key"},
		{[]string{"--op", "mac"}, "--op"},
		{[]string{"--sizes", "8"}, "--sizes"},
		{[]string{"--sizes", "x"}, "--sizes"},
		{[]string{"--sector-sizes", "500"}, "--sector-sizes"},
		{[]string{"--time", "forever"}, "--time"},
		{[]string{"--time", "0"}, "--time"},
		{[]string{"--format", "xml"}, "--format"},
		{[]string{"--impl", "nosuch"}, "--impl"},
		{[]string{"--passes", "0"}, "--passes"},
		{[]string{"extra"}, "unexpected argument"},
	} {
		r := runCmd(t, nil, append([]string{"bench"}, c.args...)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.msg) || r.stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want 1 (wrong parameters) and %q", c.args, r.code, r.stderr, r.stdout, c.msg)
		}
	}
}

// TestBenchUnavailableImpl: naming an implementation this CPU cannot run
// is a failure that says why.
func TestBenchUnavailableImpl(t *testing.T) {
	for _, im := range xts.Implementations() {
		if im.Available || im.Cipher != "" {
			continue
		}
		r := runCmd(t, nil, "bench", "--impl", im.Name, "--time", "1ms")
		if r.code != 1 || !strings.Contains(r.stderr, "not available") {
			t.Errorf("%s: exit %d, stderr %q", im.Name, r.code, r.stderr)
		}
		return
	}
	t.Skip("every implementation is available on this CPU")
}

func TestInfo(t *testing.T) {
	r := runCmd(t, nil, "info")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, im := range xts.Implementations() {
		avail := "no"
		if im.Available {
			avail = "yes"
		}
		found := false
		for _, l := range strings.Split(r.stdout, "\n") {
			f := strings.Fields(l)
			if len(f) >= 2 && f[0] == im.Name && f[1] == avail {
				found = true
				if im.Default != (len(f) >= 3 && f[2] == "default") {
					t.Errorf("line %q: default should be %v", l, im.Default)
				}
			}
		}
		if !found {
			t.Errorf("info does not list %s (available %s):\n%s", im.Name, avail, r.stdout)
		}
	}
	cpu := cpuid.Detect()
	for _, f := range cpu.Features {
		if !strings.Contains(r.stdout, "\n"+f.Name+" ") {
			t.Errorf("info does not list feature %s", f.Name)
		}
	}
	if r := runCmd(t, nil, "info", "extra"); r.code != exitUsage {
		t.Errorf("info extra: exit %d, want 1 (wrong parameters)", r.code)
	}
}

// TestBenchCellsInPlace: every cell works in place on the pass's buffer
// (what BenchmarkXTS and BenchmarkSectors time), one call per count with
// the sector number counting up, and the passes put the data at the four
// page offsets 0, 1024, 2048 and 3072 of one page-aligned allocation.
func TestBenchCellsInPlace(t *testing.T) {
	var o benchOptions
	o.passes, o.format = 1, "tsv"
	if err := o.parse("generic", "128", "enc", "16,100", "512", "1ms"); err != nil {
		t.Fatal(err)
	}
	b, err := newBench(&o)
	if err != nil {
		t.Fatal(err)
	}
	want := len(b.passBuf(0))
	if want < sectorsParallelBuf {
		t.Fatalf("pass buffer %d bytes, want at least %d", want, sectorsParallelBuf)
	}
	for p := range 5 {
		buf := b.passBuf(p)
		off := uintptr(unsafe.Pointer(&buf[0])) & 4095
		if len(buf) != want || off != uintptr(p%4)*passShift {
			t.Errorf("pass %d: %d bytes at page offset %d, want %d at %d", p, len(buf), off, want, (p%4)*passShift)
		}
	}

	for _, r := range b.rows {
		if r.impl != "generic" {
			continue
		}
		for _, c := range r.cells {
			buf := b.passBuf(1)
			for i := range buf[:c.bytes] {
				buf[i] = byte(i)
			}
			orig := bytes.Clone(buf[:c.bytes+16])
			c.run(buf, 3)
			// Three calls in place change the first bytes and nothing
			// past the cell's data.
			if bytes.Equal(buf[:16], orig[:16]) {
				t.Errorf("%s %d: the buffer did not change: not in place", r.op, c.size)
			}
			if !bytes.Equal(buf[c.bytes:c.bytes+16], orig[c.bytes:]) {
				t.Errorf("%s %d: bytes past the cell's %d changed", r.op, c.size, c.bytes)
			}
		}
	}
}
