package xts

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// BenchmarkDispatch states what the public API costs per call on top of
// the work: for each available implementation it times the bare routine
// (the generated assembly routine called directly, or the portable
// engine's method on its concrete type) and the public call, on the same
// key schedule and the same page-aligned buffer, one after the other so
// that -count interleaves them. Names, fixed for scripts:
//
//	impl=NAME/op=enc|dec/size=N/call=bare|api       Encrypt, Decrypt
//	impl=NAME/op=dec/sectors=1/call=bare|api        DecryptSectors, one 512-byte sector
//
// The ratio api/bare at 16 and 512 bytes is the per-call overhead that
// every small-message user pays; at 4 KiB and 64 KiB it should vanish.
// For sectors=1 the bare routine is the variant's sector-batch routine,
// which runs four sectors side by side and charges a whole batch for one;
// DecryptSectors gives a lone sector to the unit routine instead
// (sectorsAsm), so its floor is op=dec/size=512/call=bare.
//
// On a busy machine the medians of separate runs drift more than the
// difference they measure; BenchmarkDispatchRatio measures the same pairs
// interleaved finely.
func BenchmarkDispatch(b *testing.B) {
	for _, dc := range dispatchCases() {
		for _, call := range []string{"bare", "api"} {
			b.Run(dc.name+"/call="+call, func(b *testing.B) {
				c, buf := dc.setup(b)
				b.SetBytes(int64(len(buf)))
				b.ReportAllocs()
				b.ResetTimer()
				if call == "bare" {
					bareRun(c, dc.kind, buf, 0, b.N)
				} else {
					apiRun(c, dc.kind, buf, 0, b.N)
				}
			})
		}
	}
}

// BenchmarkDispatchRatio times the pairs of BenchmarkDispatch (names
// without /call=) in alternating blocks of calls (about 40 KB of data, or
// at least four calls, each), and keeps each side's fastest block: other
// programs only ever slow a block down, and the two sides see the same
// moments. It reports the public call's ns per call as ns/op, the bare
// routine's as bare-ns/op, and their ratio as api/bare.
func BenchmarkDispatchRatio(b *testing.B) {
	for _, dc := range dispatchCases() {
		b.Run(dc.name, func(b *testing.B) {
			c, buf := dc.setup(b)
			n := max(4, 40000/len(buf))
			var times [2][]time.Duration
			var k uint64
			for b.Loop() {
				for side := range 2 {
					start := time.Now()
					if side == 0 {
						bareRun(c, dc.kind, buf, k, n)
					} else {
						apiRun(c, dc.kind, buf, k, n)
					}
					times[side] = append(times[side], time.Since(start))
				}
				k += uint64(n)
			}
			bare := float64(slices.Min(times[0])) / float64(n)
			api := float64(slices.Min(times[1])) / float64(n)
			b.ReportMetric(api, "ns/op")
			b.ReportMetric(bare, "bare-ns/op")
			b.ReportMetric(api/bare, "api/bare")
		})
	}
}

// A dispatchCase is one pair of BenchmarkDispatch: an implementation, an
// operation and a size.
type dispatchCase struct {
	name string // impl=NAME/op=OP/size=N or impl=NAME/op=dec/sectors=1
	impl string
	size int
	kind dispatchKind
}

// dispatchKind is what a pair calls: a unit routine, or a sector-batch
// routine with 512-byte sectors.
type dispatchKind struct {
	decrypt, sectors bool
}

func dispatchCases() []dispatchCase {
	var cs []dispatchCase
	for _, im := range Implementations() {
		if !im.Available || im.Cipher != "" {
			continue
		}
		for _, op := range []string{"enc", "dec"} {
			for _, size := range []int{16, 512, 4096, 65536} {
				cs = append(cs, dispatchCase{fmt.Sprintf("impl=%s/op=%s/size=%d", im.Name, op, size), im.Name, size, dispatchKind{decrypt: op == "dec"}})
			}
		}
		cs = append(cs, dispatchCase{fmt.Sprintf("impl=%s/op=dec/sectors=1", im.Name), im.Name, 512, dispatchKind{decrypt: true, sectors: true}})
	}
	return cs
}

// setup makes the case's Cipher (AES-256, on the calling goroutine) and a
// page-aligned buffer.
func (dc dispatchCase) setup(b *testing.B) (*Cipher, []byte) {
	return newImpl(b, dc.impl, benchKey(256), WithoutParallelism()), pageAligned(dc.size)
}

// apiRun makes n public calls on buf in place, sector numbers from i.
func apiRun(c *Cipher, k dispatchKind, buf []byte, i uint64, n int) {
	end := i + uint64(n)
	switch {
	case k.sectors:
		for ; i < end; i++ {
			c.DecryptSectors(buf, buf, 512, i)
		}
	case k.decrypt:
		for ; i < end; i++ {
			c.Decrypt(buf, buf, i)
		}
	default:
		for ; i < end; i++ {
			c.Encrypt(buf, buf, i)
		}
	}
}

// bareRunGeneric makes n calls of the portable engine's methods on its
// concrete type: the generic implementation's work without the API.
func bareRunGeneric(g *genericEngine, k dispatchKind, buf []byte, i uint64, n int) {
	end := i + uint64(n)
	if k.decrypt {
		for ; i < end; i++ {
			g.decrypt(buf, buf, tweak128{lo: i}, flagEncryptTweak)
		}
		return
	}
	for ; i < end; i++ {
		g.encrypt(buf, buf, tweak128{lo: i}, flagEncryptTweak)
	}
}
