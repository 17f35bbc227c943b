//go:build !purego

package peak

import "testing"

// Without AES the arm64 loop is listed but not runnable, and says why.
func TestARMLoopsNeeds(t *testing.T) {
	for _, has := range []bool{true, false} {
		ls := armLoops(has)
		if len(ls) != 1 || ls[0].Name != "aese-aesmc" || ls[0].Width != 16 {
			t.Fatalf("armLoops(%v) = %+v, want one 16-byte aese-aesmc loop", has, ls)
		}
		if ls[0].Runnable() != has || (ls[0].Missing() == "") != has {
			t.Errorf("armLoops(%v): runnable %v, missing %q", has, ls[0].Runnable(), ls[0].Missing())
		}
	}
}
