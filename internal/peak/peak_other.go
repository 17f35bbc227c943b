//go:build !(amd64 || arm64) || purego

package peak

// Only amd64 has the generated loops; elsewhere every caller gets
// ErrUnavailable and reports the bound as unknown.
func loops() []Loop { return nil }
