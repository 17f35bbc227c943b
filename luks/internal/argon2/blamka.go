package argon2

// compressImpl is one implementation of the compression function G, with
// compressGeneric's contract.
type compressImpl struct {
	name string
	fn   func(out, x, y, tmp *block, xor bool)
}

// compress is G, the fastest implementation this CPU runs.
var compress = compressImpls[0].fn
