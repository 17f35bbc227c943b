//go:build !purego

package xts

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// ksRequireAES skips a key-expansion test on a CPU without the ARMv8 AES
// instructions (or with GODEBUG=cpu.aes=off).
func ksRequireAES(t testing.TB) {
	t.Helper()
	if !cpu.ARM64.HasAES {
		t.Skip("CPU lacks the AES instructions (or GODEBUG=cpu.aes=off)")
	}
}
