package luks

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fastxts/xts/internal/parallel"
	"github.com/fastxts/xts/internal/volume"
)

// setChunkSize sets the bulk chunk size for one test.
func setChunkSize(t *testing.T, n int) {
	old, oldVolume := chunkSize, volume.ChunkSize
	chunkSize, volume.ChunkSize = n, n
	t.Cleanup(func() { chunkSize, volume.ChunkSize = old, oldVolume })
}

// mappedVolume makes a LUKS2 image file (4096-byte sectors) with size
// bytes of data, known plaintext written through the Volume, and opens it
// mapped.
func mappedVolume(t *testing.T, size int) (*Volume, []byte, func(dataBytes int64)) {
	t.Helper()
	dev, h, key := memImage(t, CreateOptions{KDF: fastKDF["pbkdf2"]}, size)
	f := imageFile(t, dev.b.Bytes())
	v, err := newVolume(h, key, f, dev.Size(), false, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	if !v.Mapped() {
		t.Fatal("an image file on Linux is not read through a mapping")
	}
	plain := make([]byte, size)
	for i := range plain {
		plain[i] = byte(i * 7 / 4096)
	}
	if _, err := v.WriteAt(plain, 0); err != nil {
		t.Fatal(err)
	}
	shrink := func(dataBytes int64) {
		if err := f.Truncate(int64(h.Segments[0].Offset) + dataBytes); err != nil {
			t.Fatal(err)
		}
	}
	return v, plain, shrink
}

// TestMappedFaultEveryChunkSize: with bulk chunks at, and above, the
// cipher's parallel threshold (1 MiB), so that a chunk's decryption runs
// on helper goroutines too, reading past the end of a file cut short
// under the mapping is an error (a *parallel.FaultError inside), not a
// crash; what is still in the file reads back right.
func TestMappedFaultEveryChunkSize(t *testing.T) {
	const size = 16 << 20
	for _, chunk := range []int{512 << 10, 1 << 20, 2 << 20, 8 << 20} {
		t.Run(fmt.Sprint("chunk=", chunk), func(t *testing.T) {
			setChunkSize(t, chunk)
			v, plain, shrink := mappedVolume(t, size)
			got := make([]byte, size)
			if _, err := v.ReadAt(got, 0); err != nil || !bytes.Equal(got, plain) {
				t.Fatalf("ReadAt of the whole file: %v, equal %v", err, bytes.Equal(got, plain))
			}
			shrink(size / 4)
			// Repeated, since which goroutine meets the fault first is down
			// to timing: the caller's or a helper's. Six times under -short
			// (CI's -race step, where each fault took about a second).
			reps := 30
			if testing.Short() {
				reps = 6
			}
			for i := range reps {
				r := []struct{ off, n int }{{0, size}, {size / 8, size / 4}, {size - 8<<20, 8 << 20}}[i%3]
				_, err := v.ReadAt(got[:r.n], int64(r.off))
				if err == nil || !strings.Contains(err.Error(), "did the file shrink") {
					t.Fatalf("ReadAt(%d bytes at %d) past the new end: %v", r.n, r.off, err)
				}
				if _, ok := errors.AsType[*parallel.FaultError](err); !ok {
					t.Fatalf("ReadAt past the new end: %v is no *parallel.FaultError", err)
				}
			}
			if _, err := v.ReadAt(got[:size/4], 0); err != nil || !bytes.Equal(got[:size/4], plain[:size/4]) {
				t.Fatalf("ReadAt inside the file after it shrank: %v", err)
			}
		})
	}
}

// TestMappedShrinksMidRead: the file is cut short while ReadAt calls run
// without a pause (each 16 MiB, on every core): the read under way when
// it happens, and every one after, fails with an error; none crashes, and
// every read that succeeds returns the plaintext.
func TestMappedShrinksMidRead(t *testing.T) {
	const size = 32 << 20
	chunks := []int{512 << 10, 4 << 20}
	if testing.Short() {
		t.Log("-short: 512 KiB chunks only (CI's -race step)")
		chunks = chunks[:1]
	}
	for _, chunk := range chunks {
		t.Run(fmt.Sprint("chunk=", chunk), func(t *testing.T) {
			setChunkSize(t, chunk)
			v, plain, shrink := mappedVolume(t, size)
			var reads, fails atomic.Int64
			done := make(chan error, 1)
			go func() {
				got := make([]byte, size/2)
				for i := 0; ; i++ {
					off := (i % 2) * size / 2
					_, err := v.ReadAt(got, int64(off))
					reads.Add(1)
					if err != nil {
						if !strings.Contains(err.Error(), "did the file shrink") {
							done <- err
							return
						}
						if fails.Add(1) == 3 {
							done <- nil
							return
						}
						continue
					}
					if !bytes.Equal(got, plain[off:off+size/2]) {
						done <- errors.New("a read that succeeded returned wrong data")
						return
					}
				}
			}()
			for reads.Load() < 2 {
				time.Sleep(100 * time.Microsecond)
			}
			shrink(size / 8)
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(60 * time.Second):
				t.Fatal("reads after the file shrank did not fail")
			}
			t.Logf("%d reads, the last %d failed", reads.Load(), fails.Load())
		})
	}
}
