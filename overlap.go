package xts

import "unsafe"

// inexactOverlap reports whether x and y share memory at different
// offsets. In-place use (the same start) is allowed; any other overlap
// would let a write clobber input that has not been read yet.
func inexactOverlap(x, y []byte) bool {
	if len(x) == 0 || len(y) == 0 || &x[0] == &y[0] {
		return false
	}
	xs := uintptr(unsafe.Pointer(&x[0]))
	ys := uintptr(unsafe.Pointer(&y[0]))
	return xs < ys+uintptr(len(y)) && ys < xs+uintptr(len(x))
}
