//go:build !purego && (linux || darwin)

package xts

import (
	"bytes"
	"fmt"
	"testing"
)

// TestSerpentAsmGuardPages: the assembly reads and writes exactly the
// data unit, flush against inaccessible pages on either side, in place
// and not.
func TestSerpentAsmGuardPages(t *testing.T) {
	forEachSerpentAsm(t, func(t *testing.T, name string) {
		r := newRand(t)
		asm, ref := serpentPair(t, name, randKey(r, 64))
		const maxN = 4096 + 31
		srcR, dstR := guardedRegion(t, maxN), guardedRegion(t, maxN)
		for _, n := range []int{512, 513, 1024, 1040, 4096, maxN} {
			for layout := range 4 {
				t.Run(fmt.Sprintf("n=%d/layout=%d", n, layout), func(t *testing.T) {
					src, dst := guardLayout(srcR, dstR, n, layout)
					plain := randBytes(r, n)
					copy(src, plain)
					want := make([]byte, n)
					ref.Encrypt(want, plain, 7)
					asm.Encrypt(dst, src, 7)
					if !bytes.Equal(dst, want) {
						t.Fatalf("encrypt: %s", firstDiff(dst, want, 16))
					}
					copy(src, want)
					asm.Decrypt(dst, src, 7)
					if !bytes.Equal(dst, plain) {
						t.Fatalf("decrypt: %s", firstDiff(dst, plain, 16))
					}
				})
			}
		}
	})
}
