//go:build !(amd64 || arm64) || purego

package xts

import "testing"

// benchBare times the portable engine's methods: this build has no
// assembly.
func benchBare(b *testing.B, c *Cipher, k dispatchKind, buf []byte) {
	benchBareGeneric(b, c.eng.(*genericEngine), k, buf)
}
