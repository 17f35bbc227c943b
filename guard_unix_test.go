//go:build linux || darwin

package xts

import (
	"syscall"
	"testing"
)

// guardedRegion maps whole pages, at least n bytes, between two PROT_NONE
// pages and returns the accessible part. Slices of it flush against either
// end (region[:k] or region[len(region)-k:]) can be reused for many
// lengths without a new mapping each time. Released with t.Cleanup.
func guardedRegion(t testing.TB, n int) []byte {
	t.Helper()
	page := syscall.Getpagesize()
	pages := (n + page - 1) / page
	if pages == 0 {
		pages = 1
	}
	mem, err := syscall.Mmap(-1, 0, (pages+2)*page,
		syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatalf("mmap: %v", err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	if err := syscall.Mprotect(mem[:page], syscall.PROT_NONE); err != nil {
		t.Fatalf("mprotect: %v", err)
	}
	if err := syscall.Mprotect(mem[(pages+1)*page:], syscall.PROT_NONE); err != nil {
		t.Fatalf("mprotect: %v", err)
	}
	return mem[page : (pages+1)*page : (pages+1)*page]
}

// guardLayout places n bytes of source and destination in the guarded
// regions srcR and dstR in one of four layouts, each flush against a
// PROT_NONE page: 0 src at the end of its region and dst at the start,
// 1 the other way round, 2 in place at the end, 3 in place at the start.
func guardLayout(srcR, dstR []byte, n, layout int) (src, dst []byte) {
	switch layout {
	case 0:
		return srcR[len(srcR)-n:], dstR[:n]
	case 1:
		return srcR[:n], dstR[len(dstR)-n:]
	case 2:
		s := srcR[len(srcR)-n:]
		return s, s
	default:
		s := srcR[:n]
		return s, s
	}
}
