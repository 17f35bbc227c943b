//go:build !purego

package xts

import (
	"strings"
	"testing"

	"github.com/fastxts/xts/internal/cpuid"
)

// TestSerpentNeeds: on a CPU without AVX-512 the variant is unavailable
// and says what it lacks; with every feature it is available.
func TestSerpentNeeds(t *testing.T) {
	var none cpuid.X86
	if why := missing(needsSerpentAVX512(none)); !strings.Contains(why, "AVX-512") || !strings.Contains(why, "VPCLMULQDQ") {
		t.Errorf("no features: %q, want AVX-512 and VPCLMULQDQ named", why)
	}
	for _, r := range needsSerpentAVX512(none) {
		if r.ok {
			t.Errorf("%s reported present on an empty CPU", r.name)
		}
	}
}
