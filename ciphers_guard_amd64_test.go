//go:build !purego && (linux || darwin)

package xts

import (
	"bytes"
	"fmt"
	"testing"
)

// TestOtherAsmGuardPages: the assembly reads and writes exactly the
// data unit, flush against inaccessible pages on either side, in place
// and not.
func TestOtherAsmGuardPages(t *testing.T) {
	forEachOtherAsm(t, func(t *testing.T, fc otherCipherTest, name string) {
		r := newRand(t)
		asm, ref := otherPair(t, fc, name, randKey(r, fc.keyLens[len(fc.keyLens)-1]))
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
