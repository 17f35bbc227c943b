//go:build !(amd64 || arm64) || purego

package xts

// bareRun makes n calls of the portable engine's methods: this build has
// no assembly.
func bareRun(c *Cipher, k dispatchKind, buf []byte, i uint64, n int) {
	bareRunGeneric(c.eng.(*genericEngine), k, buf, i, n)
}
