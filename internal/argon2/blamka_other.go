//go:build !amd64 || purego

package argon2

// compressImpls is the Go compression function only on this platform.
var compressImpls = []compressImpl{goCompress}

// prefetch does nothing here.
func prefetch(b *block) {}
