//go:build !purego

package xts

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"syscall"
	"testing"
)

// TestExpandKeyGuardPages places the key flush against an inaccessible page,
// after it and before it: expandKey must read exactly the key's 16, 24 or
// 32 bytes (AES-192 reads 16 + 8), so a one-byte over-read faults.
func TestExpandKeyGuardPages(t *testing.T) {
	ksRequireAESNI(t)
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 3*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip("mmap:", err)
	}
	defer syscall.Munmap(mem)
	// Pages: guard | data | guard.
	if err := syscall.Mprotect(mem[:page], syscall.PROT_NONE); err != nil {
		t.Skip("mprotect:", err)
	}
	if err := syscall.Mprotect(mem[2*page:], syscall.PROT_NONE); err != nil {
		t.Skip("mprotect:", err)
	}
	data := mem[page : 2*page]
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
