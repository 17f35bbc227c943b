//go:build purego

package xts

import (
	"strings"
	"testing"
)

// Under -tags purego crypto/aes is table-based and not constant time, and
// the generic implementation's note says so.
func TestGenericNotePurego(t *testing.T) {
	for _, im := range Implementations() {
		if im.Name == genericName && !strings.Contains(im.Note, "not constant time") {
			t.Errorf("generic note %q does not say that crypto/aes is not constant time under purego", im.Note)
		}
	}
}
