package argon2

// compressImpl is one implementation of the compression function G (RFC
// 9106 section 3.5), in two parts run one after the other with the same
// arguments: out = P-columns(P-rows(R)) XOR R with R = x XOR y, XORed with
// the old out if xor is set (passes after the first, version 0x13). After
// head, word 0 of out is final (the data-dependent index of the next block),
// so the caller can prefetch the next reference block before tail. tmp is
// a work block, carrying the state from head to tail; out may be x or y
// (the address generator computes in place), never tmp.
type compressImpl struct {
	name       string
	head, tail func(out, x, y, tmp *block, xor bool)
}

// run is G whole.
func (c *compressImpl) run(out, x, y, tmp *block, xor bool) {
	c.head(out, x, y, tmp, xor)
	c.tail(out, x, y, tmp, xor)
}

// goCompress is the Go implementation: all of G in head.
var goCompress = compressImpl{"go", compressGeneric, func(out, x, y, tmp *block, xor bool) {}}

// active is G as the fill uses it: the fastest implementation this CPU
// runs (tests swap in the others).
var active = &compressImpls[0]
