//go:build (amd64 || arm64) && !purego

package xts

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"testing"
)

// TestExpandKeyGuardPages places the key flush against an inaccessible page,
// after it and before it: expandKey must read exactly the key's 16, 24 or
// 32 bytes (AES-192 reads 16 + 8), so a one-byte over-read faults.
func TestExpandKeyGuardPages(t *testing.T) {
	ksRequireAES(t)
	data := guardedRegion(t, 4096)
	for _, size := range []int{16, 24, 32} {
		for _, at := range []string{"end", "start"} {
			t.Run(fmt.Sprintf("AES-%d/%s", 8*size, at), func(t *testing.T) {
				key := data[:size]
				if at == "end" {
					key = data[len(data)-size:]
				}
				rand.Read(key)
				var enc, dec [15][16]byte
				expandKey(&key[0], 6+size/4, &enc, &dec)
				want := ksRefExpandKey(bytes.Clone(key))
				if got := enc[14]; got != want[len(want)-1] {
					t.Errorf("last round key %x, want %x", got, want[len(want)-1])
				}
			})
		}
	}
}
