package nbd

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkServer measures the server over a Unix socket with an
// in-process client keeping 16 requests in flight (nbdcopy keeps 64
// over up to 4 connections): reads and writes of 4 KiB and 256 KiB on a
// memory backend and on a file backend (in the page cache), and, for
// comparison through the same client, nbdkit's file plugin on the same
// kind of file (when nbdkit is installed).
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
		{"nbdkit-file", nil},
	}
	for _, be := range backends {
		for _, typ := range []uint16{cmdRead, cmdWrite} {
			for _, n := range []int{4 << 10, 256 << 10} {
				b.Run(fmt.Sprintf("%s/%s/%dK", be.name, cmdName(typ), n>>10), func(b *testing.B) {
					sock := ""
					if be.name == "nbdkit-file" {
						sock = startNbdkit(b, size)
					} else {
						sock = startServer(b, be.new(b)).sock
					}
					cl := dial(b, sock, "")
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

// startNbdkit serves a file of size bytes with nbdkit's file plugin on a
// Unix socket, or skips the benchmark when nbdkit is not installed.
func startNbdkit(b *testing.B, size int) string {
	if _, err := exec.LookPath("nbdkit"); err != nil {
		b.Skipf("nbdkit is not installed (%v)", err)
	}
	dir := b.TempDir()
	path := filepath.Join(dir, "disk.img")
	if err := os.WriteFile(path, pattern(size, 1), 0o600); err != nil {
		b.Fatal(err)
	}
	sock := filepath.Join(dir, "nbdkit.sock")
	pidfile := filepath.Join(dir, "pid")
	cmd := exec.Command("nbdkit", "-U", sock, "-P", pidfile, "-f", "file", path)
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for range 500 { // nbdkit writes the pid file once it listens
		if _, err := os.Stat(pidfile); err == nil {
			return sock
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.Fatal("nbdkit did not start within 5 s")
	return ""
}
