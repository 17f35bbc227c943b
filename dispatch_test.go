package xts

import (
	"fmt"
	"testing"
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
func BenchmarkDispatch(b *testing.B) {
	key := benchKey(256)
	for _, im := range Implementations() {
		if !im.Available {
			continue
		}
		for _, op := range []string{"enc", "dec"} {
			for _, size := range []int{16, 512, 4096, 65536} {
				for _, call := range []string{"bare", "api"} {
					b.Run(fmt.Sprintf("impl=%s/op=%s/size=%d/call=%s", im.Name, op, size, call), func(b *testing.B) {
						c := newImpl(b, im.Name, key)
						buf := pageAligned(size)
						b.SetBytes(int64(size))
						b.ReportAllocs()
						k := dispatchKind{decrypt: op == "dec"}
						if call == "bare" {
							benchBare(b, c, k, buf)
							return
						}
						f := c.Encrypt
						if k.decrypt {
							f = c.Decrypt
						}
						for i := 0; b.Loop(); i++ {
							f(buf, buf, uint64(i))
						}
					})
				}
			}
		}
		for _, call := range []string{"bare", "api"} {
			b.Run(fmt.Sprintf("impl=%s/op=dec/sectors=1/call=%s", im.Name, call), func(b *testing.B) {
				c := newImpl(b, im.Name, key, WithoutParallelism())
				buf := pageAligned(512)
				b.SetBytes(512)
				b.ReportAllocs()
				if call == "bare" {
					benchBare(b, c, dispatchKind{decrypt: true, sectors: true}, buf)
					return
				}
				for i := uint64(0); b.Loop(); i++ {
					c.DecryptSectors(buf, buf, 512, i)
				}
			})
		}
	}
}

// dispatchKind is what BenchmarkDispatch's bare loop calls: a unit
// routine, or a sector-batch routine with 512-byte sectors.
type dispatchKind struct {
	decrypt, sectors bool
}

// benchBareGeneric times the portable engine's methods called on its
// concrete type: the work of the generic implementation without the API.
func benchBareGeneric(b *testing.B, g *genericEngine, k dispatchKind, buf []byte) {
	switch {
	case k.sectors:
		for i := uint64(0); b.Loop(); i++ {
			g.decrypt(buf, buf, tweak128{lo: i}, flagEncryptTweak)
		}
	case k.decrypt:
		for i := uint64(0); b.Loop(); i++ {
			g.decrypt(buf, buf, tweak128{lo: i}, flagEncryptTweak)
		}
	default:
		for i := uint64(0); b.Loop(); i++ {
			g.encrypt(buf, buf, tweak128{lo: i}, flagEncryptTweak)
		}
	}
}
