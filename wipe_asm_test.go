//go:build (amd64 || arm64) && !purego

package xts

// scheduleZeroed returns a func reporting whether the key schedule of c's
// assembly engine is all zero, or nil when c runs no assembly.
func scheduleZeroed(c *Cipher) func() bool {
	if c.asm == nil {
		return nil
	}
	ks := c.asm.ks
	return func() bool { return *ks == keySchedule{} }
}
