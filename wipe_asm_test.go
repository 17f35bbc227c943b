//go:build (amd64 || arm64) && !purego

package xts

// scheduleZeroed returns a func reporting whether the key schedule of c's
// assembly engine is all zero, or nil when c runs no assembly.
func scheduleZeroed(c *Cipher) func() bool {
	e, ok := c.eng.(*asmEngine)
	if !ok {
		return nil
	}
	ks := e.ks
	return func() bool { return *ks == keySchedule{} }
}
