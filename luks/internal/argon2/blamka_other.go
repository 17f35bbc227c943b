//go:build !amd64 || purego

package argon2

// compressImpls is the Go compression function only on this platform.
var compressImpls = []compressImpl{{"go", compressGeneric}}
