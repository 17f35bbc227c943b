//go:build !purego

package xts

import (
	"testing"

	"github.com/fastxts/xts/internal/cpuid"
)

// ksRequireAES skips a key-expansion test on a CPU without AES-NI.
func ksRequireAES(t testing.TB) {
	t.Helper()
	if c, _ := cpuid.Host(); !c.AES {
		t.Skip("CPU lacks AES-NI")
	}
}
