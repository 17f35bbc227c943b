package nbd

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkServer measures the server over a Unix socket with an
// in-process client keeping 16 requests in flight (nbdcopy keeps 64
// over up to 4 connections): reads and writes of 4 KiB and 256 KiB on a
// memory backend and on a file backend (in the page cache).
func BenchmarkServer(b *testing.B) {
	const size = 64 << 20
	backends := []struct {
		name string
		new  func(b *testing.B) Backend
	}{
		{"mem", func(b *testing.B) Backend { return NewMem(make([]byte, size), 512, false) }},
		{"file", func(b *testing.B) Backend {
			path := filepath.Join(b.TempDir(), "disk.img")
			if err := os.WriteFile(path, pattern(size, 1), 0o600); err != nil {
				b.Fatal(err)
			}
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { f.Close() })
			return NewFile(f, size, 512, false)
		}},
	}
	for _, be := range backends {
		for _, typ := range []uint16{cmdRead, cmdWrite} {
			for _, n := range []int{4 << 10, 256 << 10} {
				b.Run(fmt.Sprintf("%s/%s/%dK", be.name, cmdName(typ), n>>10), func(b *testing.B) {
					ts := startServer(b, be.new(b))
					cl := dial(b, ts.sock, "")
					cl.r = bufio.NewReaderSize(cl.c, 1<<20)
					benchRequests(b, cl, typ, n, size)
				})
			}
		}
	}
}

// benchRequests sends b.N requests of n bytes (sequential offsets, wrapping
// at size) with 16 in flight and reads their replies.
func benchRequests(b *testing.B, cl *client, typ uint16, n, size int) {
	const depth = 16
	payload := make([]byte, n)
	if typ != cmdWrite {
		payload = nil
	}
	b.SetBytes(int64(n))
	b.ResetTimer()
	credits := make(chan struct{}, depth)
	for range depth {
		credits <- struct{}{}
	}
	sendErr := make(chan error, 1)
	go func() {
		off := 0
		hdrOnly := typ != cmdWrite
		for i := range b.N {
			<-credits
			msg := reqBytes(typ, 0, uint64(i), uint64(off), uint32(n))
			if _, err := cl.c.Write(msg); err != nil {
				sendErr <- err
				return
			}
			if !hdrOnly {
				if _, err := cl.c.Write(payload); err != nil {
					sendErr <- err
					return
				}
			}
			off = (off + n) % size
		}
		sendErr <- nil
	}()
	for range b.N {
		_, errno, err := cl.reply()
		if err != nil || errno != 0 {
			b.Fatalf("reply: errno %d, %v", errno, err)
		}
		if typ == cmdRead {
			if _, err := io.CopyN(io.Discard, cl.r, int64(n)); err != nil {
				b.Fatal(err)
			}
		}
		credits <- struct{}{}
	}
	if err := <-sendErr; err != nil {
		b.Fatal(err)
	}
}
