package xtsgen

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The routines share one contract: func(ks, [...], dst, src []byte,
// tweakLo, tweakHi uint64) (lo, hi uint64) runs XTS over the whole groups
// of blocks in src, the first block with tweak T = (tweakLo, tweakHi),
// and returns the tweak of the block after the last one processed.

// Begin starts the routine name with the signature given and its doc
// comment: NOSPLIT, as the routines have no frame and call nothing (no key
// material reaches a Go stack; TestGeneratedCipherAssembly in the root
// package checks for NOSPLIT and a zero frame), and //go:noescape, as
// they keep no pointer past the call.
func Begin(name, signature string, doc ...string) {
	TEXT(name, NOSPLIT, signature)
	Pragma("noescape")
	Doc(doc...)
}

// Verb is what a routine does to its blocks, for its doc comment.
func Verb(dec bool) string {
	if dec {
		return "decrypts"
	}
	return "encrypts"
}

// Buffers loads the data pointers of the arguments dst and src.
func Buffers() (dst, src reg.Register) {
	dst = Load(Param("dst").Base(), GP64())
	src = Load(Param("src").Base(), GP64())
	return dst, src
}

// Groups loads len(src) and shifts it right by shift (log2 of the group's
// bytes) to the number of groups n. With none, the routine returns at
// once with T as the next tweak (lo, hi); otherwise it goes on at the
// label "start", which Groups places. Call it after the loads that
// precede len(src) in the routine.
func Groups(shift int) (n, lo, hi reg.Register) {
	n = Load(Param("src").Len(), GP64())
	SHRQ(U8(shift), n)
	JNZ(LabelRef("start"))
	lo = Load(Param("tweakLo"), GP64())
	hi = Load(Param("tweakHi"), GP64())
	Result(lo, hi)
	RET()
	Label("start")
	return n, lo, hi
}

// SplitPairs splits the group count n for a loop over pairs of groups (at
// the label "loop", which the caller places next) and an odd group after
// it (at "tail"): it returns odd = n&1 and halves n, and jumps to "tail"
// when no pair is left. Twofish and Kuznyechik run two groups of 32 blocks
// per iteration, their rounds interleaved or in the same registers.
func SplitPairs(n reg.Register) (odd reg.Register) {
	odd = GP64()
	MOVQ(n, odd)
	ANDQ(U8(1), odd)
	SHRQ(U8(1), n)
	JZ(LabelRef("tail"))
	return odd
}

// Result stores (lo, hi) as the routine's results lo and hi.
func Result(lo, hi reg.Register) {
	Store(lo, Return("lo"))
	Store(hi, Return("hi"))
}

// ReturnTweak returns the tweak in t's low lane: its quadwords go through
// lo and hi into the results.
func ReturnTweak(t reg.VecPhysical, lo, hi reg.Register) {
	VMOVQ(t.AsX(), lo)
	VPEXTRQ(U8(1), t.AsX(), hi)
	Result(lo, hi)
}

// ZeroAndRet zeroes the mask registers given and every vector register,
// then returns. The registers held key material, tweaks and data, and
// the Go ABI does not clear them: VZEROUPPER alone would leave the low
// 128 bits of zmm0-15 and all of zmm16-31. An EVEX write of an xmm
// register zeroes the whole zmm register, so one VPXORD each suffices.
func ZeroAndRet(masks ...reg.OpmaskPhysical) {
	for _, k := range masks {
		KXORQ(k, k, k)
	}
	for _, z := range Z {
		x := z.AsX() // an EVEX write zeroes the whole zmm register
		VPXORD(x, x, x)
	}
	VZEROUPPER()
	RET()
}
