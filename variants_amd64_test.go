//go:build !purego

package xts

import (
	"strings"
	"testing"
)

// Each row of the x86 table runs the routines named after it: "vaes-avx2"
// runs variantVAESAVX2, whose routines TestVariantSwitches ties to the
// generated names, and no two rows share a variant.
func TestX86RowsNameTheirVariant(t *testing.T) {
	consts := map[asmVariant]string{
		variantVAESAVX10_512: "VAESAVX10_512",
		variantVAESAVX10_256: "VAESAVX10_256",
		variantVAESAVX2:      "VAESAVX2",
		variantAESNIAVX:      "AESNIAVX",
		variantAESNI:         "AESNI",
	}
	if len(consts) != len(x86Variants) {
		t.Fatalf("%d variant constants, %d rows", len(consts), len(x86Variants))
	}
	seen := map[asmVariant]bool{}
	for _, row := range x86Variants {
		want := strings.ToUpper(strings.ReplaceAll(row.name, "-", ""))
		if got := consts[row.variant]; got != want {
			t.Errorf("row %s runs variant%s, want variant%s", row.name, got, want)
		}
		if seen[row.variant] {
			t.Errorf("row %s: variant %v used twice", row.name, row.variant)
		}
		seen[row.variant] = true
	}
}
