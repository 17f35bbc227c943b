//go:build !purego

package xts

import (
	"crypto/fips140"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/fastxts/xts/internal/cpuid"
)

// mkCPU builds a cpuid.X86 from a vendor, family, model and a
// space-separated list of the fields that are true, so the table below
// reads like a spec sheet.
func mkCPU(t *testing.T, vendor string, family, model int, flags string) cpuid.X86 {
	t.Helper()
	c := cpuid.X86{Vendor: vendor, Family: family, Model: model}
	for f := range strings.FieldsSeq(flags) {
		p := map[string]*bool{
			"AES": &c.AES, "SSSE3": &c.SSSE3, "PCLMULQDQ": &c.PCLMULQDQ, "AVX": &c.AVX, "AVX2": &c.AVX2,
			"VAES": &c.VAES, "VPCLMULQDQ": &c.VPCLMULQDQ, "AVX512F": &c.AVX512F,
			"AVX512BW": &c.AVX512BW, "AVX512VL": &c.AVX512VL, "BMI2": &c.BMI2,
			"OSXSAVE": &c.OSXSAVE, "OSYMM": &c.OSYMM, "OSZMM": &c.OSZMM,
		}[f]
		if p == nil {
			t.Fatalf("unknown feature %q", f)
		}
		*p = true
	}
	return c
}

const (
	intel = "GenuineIntel"
	amd   = "AuthenticAMD"

	// Feature sets of real processor generations (CPUID and the XCR0 a
	// current Linux kernel sets on them).
	sse      = "AES SSSE3 PCLMULQDQ"                               // Westmere: no XSAVE at all
	atom     = "AES SSSE3 PCLMULQDQ OSXSAVE"                       // Goldmont (Plus), Tremont: XSAVE, XCR0 = x87|SSE
	snb      = "AES SSSE3 PCLMULQDQ AVX OSXSAVE OSYMM"             // Sandy/Ivy Bridge
	hsw      = snb + " AVX2 BMI2"                                  // Haswell .. Coffee Lake, Zen 1/2
	skx      = hsw + " AVX512F AVX512BW AVX512VL OSZMM"            // Skylake-X, Cascade Lake
	vaesYMM  = hsw + " VAES VPCLMULQDQ"                            // Alder Lake and later client, Zen 3
	vaesZMM  = vaesYMM + " AVX512F AVX512BW AVX512VL OSZMM"        // Ice Lake .. Emerald Rapids, Zen 4/5
	vaesNoOS = vaesYMM + " AVX512F AVX512BW AVX512VL"              // the same with ZMM state not enabled
	noAESAVX = "SSSE3 PCLMULQDQ AVX AVX2 BMI2 OSXSAVE OSYMM"       // AES-NI masked by a hypervisor
	avxNoOS  = "AES SSSE3 PCLMULQDQ AVX AVX2 BMI2 VAES VPCLMULQDQ" // OS without XSAVE
)

// Every ordering the policy can produce, by what the CPU has.
var (
	all512 = []string{"vaes-avx10_512", "vaes-avx10_256", "vaes-avx2", "aesni-avx", "aesni"}
	all256 = []string{"vaes-avx10_256", "vaes-avx10_512", "vaes-avx2", "aesni-avx", "aesni"}
	upAVX2 = []string{"vaes-avx2", "aesni-avx", "aesni"}
	upAVX  = []string{"aesni-avx", "aesni"}
	onlyNI = []string{"aesni"}
)

func TestRankVariantsRealCPUs(t *testing.T) {
	for _, tc := range []struct {
		name          string
		vendor        string
		family, model int
		flags         string
		available     []string          // in priority order; the first is the default
		notes         map[string]string // substrings expected in some notes
	}{
		{"Westmere Xeon X5670", intel, 6, 0x2C, sse, onlyNI,
			map[string]string{"aesni-avx": "needs AVX", "vaes-avx2": "needs AVX, AVX2, VAES and VPCLMULQDQ"}},
		{"Goldmont Plus Celeron J4125", intel, 6, 0x7A, atom, onlyNI,
			map[string]string{"aesni": "fastest available", "aesni-avx": "needs AVX"}},
		{"Tremont Celeron N5105", intel, 6, 0x9C, atom, onlyNI, nil},
		{"Sandy Bridge Core i7-2600", intel, 6, 0x2A, snb, upAVX,
			map[string]string{"aesni": "available; aesni-avx is preferred", "vaes-avx2": "needs AVX2, VAES and VPCLMULQDQ"}},
		{"Haswell Core i7-4770", intel, 6, 0x3C, hsw, upAVX,
			map[string]string{"vaes-avx2": "needs VAES and VPCLMULQDQ", "vaes-avx10_512": "needs VAES, VPCLMULQDQ and AVX-512F/BW/VL"}},
		{"Skylake Core i7-6700", intel, 6, 0x5E, hsw, upAVX, nil},
		{"Skylake-X Core i9-7900X", intel, 6, 0x55, skx, upAVX,
			map[string]string{"vaes-avx10_512": "needs VAES and VPCLMULQDQ", "vaes-avx10_256": "needs VAES and VPCLMULQDQ"}},
		{"Ice Lake client Core i7-1065G7", intel, 6, 0x7E, vaesZMM, all256,
			map[string]string{
				"vaes-avx10_512": "zmm avoided: Ice Lake downclocks (family 6 model 0x7E)",
				"vaes-avx10_256": "fastest available without zmm",
				"vaes-avx2":      "available; vaes-avx10_256 is preferred",
			}},
		{"Ice Lake server Xeon Platinum 8380", intel, 6, 0x6A, vaesZMM, all256,
			map[string]string{"vaes-avx10_512": "zmm avoided: Ice Lake downclocks (family 6 model 0x6A)"}},
		{"Tiger Lake Core i7-1185G7", intel, 6, 0x8C, vaesZMM, all256,
			map[string]string{"vaes-avx10_512": "zmm avoided: Tiger Lake downclocks (family 6 model 0x8C)"}},
		{"Rocket Lake Core i9-11900K", intel, 6, 0xA7, vaesZMM, all512,
			map[string]string{"vaes-avx10_512": "fastest available", "vaes-avx10_256": "available; vaes-avx10_512 is preferred"}},
		{"Alder Lake Core i9-12900K", intel, 6, 0x97, vaesYMM, upAVX2,
			map[string]string{"vaes-avx10_512": "needs AVX-512F/BW/VL", "vaes-avx2": "fastest available"}},
		{"Sapphire Rapids Xeon Platinum 8480+", intel, 6, 0x8F, vaesZMM, all512, nil},
		{"Emerald Rapids Xeon Platinum 8592+", intel, 6, 0xCF, vaesZMM, all512, nil},
		{"Zen 1 Ryzen 7 1800X", amd, 0x17, 0x01, hsw, upAVX, nil},
		{"Zen 2 Ryzen 9 3900X", amd, 0x17, 0x71, hsw, upAVX, nil},
		{"Zen 3 Ryzen 9 5950X", amd, 0x19, 0x21, vaesYMM, upAVX2,
			map[string]string{"vaes-avx10_256": "needs AVX-512F/BW/VL"}},
		{"Zen 4 Ryzen 9 7950X", amd, 0x19, 0x61, vaesZMM, all512, nil},
		{"Zen 4 EPYC 9654 (Genoa)", amd, 0x19, 0x11, vaesZMM, all512, nil},
		{"Zen 5 Ryzen 9 9950X", amd, 0x1A, 0x44, vaesZMM, all512, nil},
		{"Nehalem Core i7-920, no AES-NI", intel, 6, 0x1A, "SSSE3", nil,
			map[string]string{"aesni": "needs AES-NI", "aesni-avx": "needs AES-NI and AVX"}},
		{"Haswell with AES-NI hidden", intel, 6, 0x3C, noAESAVX, nil,
			map[string]string{"aesni": "needs AES-NI", "aesni-avx": "needs AES-NI"}},
		{"Sapphire Rapids, OS without ZMM state", intel, 6, 0x8F, vaesNoOS + " OSXSAVE OSYMM", upAVX2,
			map[string]string{"vaes-avx10_512": "OS does not enable ZMM state", "vaes-avx10_256": "OS does not enable ZMM state"}},
		{"Ice Lake, OS without ZMM state", intel, 6, 0x7E, vaesNoOS + " OSXSAVE OSYMM", upAVX2,
			map[string]string{"vaes-avx10_512": "OS does not enable ZMM state", "vaes-avx2": "fastest available"}},
		{"Zen 4, OS without XSAVE", amd, 0x19, 0x61, avxNoOS + " AVX512F AVX512BW AVX512VL", onlyNI,
			map[string]string{"aesni-avx": "OS does not enable YMM state", "vaes-avx10_512": "OS does not enable YMM state"}},
		{"Zen 4, XCR0 bits without OSXSAVE", amd, 0x19, 0x61, avxNoOS + " AVX512F AVX512BW AVX512VL OSYMM OSZMM", onlyNI, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs := rankVariants(mkCPU(t, tc.vendor, tc.family, tc.model, tc.flags), x86Policies())
			checkVerdicts(t, vs)
			var got []string
			for _, v := range vs {
				if v.Available {
					got = append(got, v.Name)
				}
			}
			if !slices.Equal(got, tc.available) {
				t.Errorf("available = %q, want %q", got, tc.available)
			}
			wantDefault := ""
			if len(tc.available) > 0 {
				wantDefault = tc.available[0]
			}
			if d := defaultOf(vs); d != wantDefault {
				t.Errorf("default = %q, want %q", d, wantDefault)
			}
			for name, want := range tc.notes {
				i := slices.IndexFunc(vs, func(v verdict) bool { return v.Name == name })
				if i < 0 {
					t.Errorf("no verdict for %s", name)
				} else if vs[i].Note != want {
					t.Errorf("%s: note %q, want %q", name, vs[i].Note, want)
				}
			}
			if t.Failed() {
				for _, v := range vs {
					t.Logf("%-15s available=%-5v default=%-5v %s", v.Name, v.Available, v.Default, v.Note)
				}
			}
		})
	}
}

// checkVerdicts asserts the invariants every answer must keep: the five
// variants once each, at most one default and it is the first available
// one, a note everywhere, and availability that only grows towards the
// narrower variants.
func checkVerdicts(t *testing.T, vs []verdict) {
	t.Helper()
	var names []string
	for _, v := range vs {
		names = append(names, v.Name)
		if v.Note == "" {
			t.Errorf("%s: empty note", v.Name)
		}
		unavailableNote := strings.HasPrefix(v.Note, "needs ") || strings.HasPrefix(v.Note, "OS does not enable ")
		if v.Available == unavailableNote {
			t.Errorf("%s: available=%v but note %q", v.Name, v.Available, v.Note)
		}
	}
	sorted := slices.Sorted(slices.Values(names))
	if want := []string{"aesni", "aesni-avx", "vaes-avx10_256", "vaes-avx10_512", "vaes-avx2"}; !slices.Equal(sorted, want) {
		t.Fatalf("variants %q, want each of %q once", names, want)
	}
	first := slices.IndexFunc(vs, func(v verdict) bool { return v.Available })
	for i, v := range vs {
		if v.Default != (i == first) {
			t.Errorf("%s: default=%v, first available is index %d", v.Name, v.Default, first)
		}
	}
	avail := map[string]bool{}
	for _, v := range vs {
		avail[v.Name] = v.Available
	}
	chain := []string{"vaes-avx10_512", "vaes-avx2", "aesni-avx", "aesni"}
	for i := 1; i < len(chain); i++ {
		if avail[chain[i-1]] && !avail[chain[i]] {
			t.Errorf("%s available but %s not", chain[i-1], chain[i])
		}
	}
	if avail["vaes-avx10_512"] != avail["vaes-avx10_256"] {
		t.Errorf("the two AVX-512 variants disagree on availability")
	}
}

func defaultOf(vs []verdict) string {
	for _, v := range vs {
		if v.Default {
			return v.Name
		}
	}
	return ""
}

// The zmm penalty is an Intel family 6 matter: the same model numbers on
// other vendors or families must not trigger it, and every listed model
// must.
func TestZMMPenaltyScope(t *testing.T) {
	penalised := []int{0x55, 0x6A, 0x6C, 0x7D, 0x7E, 0x9D, 0x8C, 0x8D}
	for model := range 256 {
		c := mkCPU(t, intel, 6, model, vaesZMM)
		want := all512
		if slices.Contains(penalised, model) {
			want = all256
		}
		vs := rankVariants(c, x86Policies())
		if got := []string{vs[0].Name, vs[1].Name}; !slices.Equal(got, want[:2]) {
			t.Errorf("Intel family 6 model %#x: order starts %q, want %q", model, got, want[:2])
		}
	}
	for _, c := range []cpuid.X86{
		mkCPU(t, amd, 6, 0x7E, vaesZMM),
		mkCPU(t, "HygonGenuine", 6, 0x6A, vaesZMM),
		mkCPU(t, intel, 0xF, 0x7E, vaesZMM),
		mkCPU(t, intel, 0x13, 0x8C, vaesZMM),
	} {
		if vs := rankVariants(c, x86Policies()); vs[0].Name != "vaes-avx10_512" || !vs[0].Default {
			t.Errorf("%s family %#x model %#x: %s first (default %v), want vaes-avx10_512 default",
				c.Vendor, c.Family, c.Model, vs[0].Name, vs[0].Default)
		}
	}
}

// Each requirement, removed on its own from a CPU that has everything,
// must make exactly the variants that need it unavailable.
func TestRankVariantsEachRequirement(t *testing.T) {
	full := mkCPU(t, amd, 0x19, 0x61, vaesZMM)
	for _, tc := range []struct {
		drop  func(*cpuid.X86)
		what  string
		avail []string
	}{
		{func(c *cpuid.X86) { c.AES = false }, "AES", nil},
		{func(c *cpuid.X86) { c.SSSE3 = false }, "SSSE3", nil},
		{func(c *cpuid.X86) { c.AVX = false }, "AVX", onlyNI},
		{func(c *cpuid.X86) { c.OSXSAVE = false }, "OSXSAVE", onlyNI},
		{func(c *cpuid.X86) { c.OSYMM = false }, "OSYMM", onlyNI},
		{func(c *cpuid.X86) { c.AVX2 = false }, "AVX2", upAVX},
		{func(c *cpuid.X86) { c.VAES = false }, "VAES", upAVX},
		{func(c *cpuid.X86) { c.VPCLMULQDQ = false }, "VPCLMULQDQ", upAVX},
		{func(c *cpuid.X86) { c.AVX512F = false }, "AVX512F", upAVX2},
		{func(c *cpuid.X86) { c.AVX512BW = false }, "AVX512BW", upAVX2},
		{func(c *cpuid.X86) { c.AVX512VL = false }, "AVX512VL", upAVX2},
		{func(c *cpuid.X86) { c.BMI2 = false }, "BMI2", upAVX2},
		{func(c *cpuid.X86) { c.OSZMM = false }, "OSZMM", upAVX2},
		// The VAES variants run VEX-encoded VPCLMULQDQ on xmm registers,
		// which only the PCLMULQDQ bit promises (a hypervisor may mask it
		// and keep VPCLMULQDQ's).
		{func(c *cpuid.X86) { c.PCLMULQDQ = false }, "PCLMULQDQ", upAVX},
	} {
		c := full
		tc.drop(&c)
		vs := rankVariants(c, x86Policies())
		checkVerdicts(t, vs)
		var got []string
		for _, v := range vs {
			if v.Available {
				got = append(got, v.Name)
			}
		}
		if !slices.Equal(got, tc.avail) {
			t.Errorf("without %s: available %q, want %q", tc.what, got, tc.avail)
		}
	}
}

// The registry sees exactly the policy's verdicts for this machine, in
// its order, then generic; every available variant's engine constructor
// is set.
func TestRegisteredFollowPolicy(t *testing.T) {
	c, _ := cpuid.Host()
	want := rankVariants(c, x86Policies())
	got := x86Implementations()
	if len(got) != len(want) || len(want) != len(x86Variants) {
		t.Fatalf("%d implementations registered, policy ranks %d, table has %d", len(got), len(want), len(x86Variants))
	}
	for i, v := range want {
		g := got[i]
		if g.name != v.Name || g.available != v.Available || g.note != v.Note || g.newAES == nil {
			t.Errorf("registered #%d = {%s %v %q newAES=%v}, policy says %+v", i, g.name, g.available, g.note, g.newAES != nil, v)
		}
	}
	var list []Implementation
	for _, im := range Implementations() {
		if im.Cipher == "" {
			list = append(list, im)
		}
	}
	if len(list) != len(want)+1 || list[len(list)-1].Name != genericName {
		t.Fatalf("Implementations() = %+v, want the table's variants then generic", list)
	}
	if os.Getenv(envImplementation) != "" {
		return // the default is the user's choice
	}
	wantDefault := genericName // FIPS 140 mode runs crypto/aes only
	for _, v := range want {
		if v.Default && !fips140.Enabled() {
			wantDefault = v.Name
		}
	}
	for _, im := range list {
		if im.Default != (im.Name == wantDefault) {
			t.Errorf("%s: Default = %v, policy's default is %s", im.Name, im.Default, wantDefault)
		}
		t.Logf("%-15s available=%-5v default=%-5v %s", im.Name, im.Available, im.Default, im.Note)
	}
}

// What the policy finds available here rests on features that
// cpuid.Detect reports, so `xts info` never contradicts dispatch: every
// CPU feature the table requires is one Detect lists, with the same CPU
// bit, and an available variant needs only features Detect calls usable.
func TestAvailabilityMatchesDetect(t *testing.T) {
	c, _ := cpuid.Host()
	features := map[string]cpuid.Feature{}
	for _, f := range cpuid.Detect().Features {
		features[f.Name] = f
	}
	for _, v := range rankVariants(c, x86Policies()) {
		var needs []requirement
		for _, row := range x86Variants {
			if row.name == v.Name {
				needs = row.needs(c)
			}
		}
		for _, r := range needs {
			if r.os {
				continue
			}
			f, ok := features[r.name]
			switch {
			case !ok:
				t.Errorf("%s needs %s, which cpuid.Detect does not report", v.Name, r.name)
			case r.ok != f.CPU:
				t.Errorf("%s: policy has %s = %v, cpuid.Detect %v", v.Name, r.name, r.ok, f.CPU)
			case v.Available && !(f.CPU && f.OS):
				t.Errorf("%s available, but cpuid.Detect says %s is not usable", v.Name, r.name)
			}
		}
	}
}
