package pump

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

// source is an input of n pseudo-random bytes read through Read, which
// also records every buffer the pump handed it.
type source struct {
	data  []byte
	mu    sync.Mutex
	bufs  map[*byte][]byte // the distinct buffers, whole, by their first byte
	errAt int64            // offset at which Read fails; -1: never
}

func newSource(n int) *source {
	r := rand.New(rand.NewPCG(uint64(n), 1))
	d := make([]byte, n)
	for i := range d {
		d[i] = byte(r.Uint32())
	}
	return &source{data: d, bufs: map[*byte][]byte{}, errAt: -1}
}

func (s *source) read(buf []byte, off int64) (int, error) {
	if len(buf) > 0 {
		s.mu.Lock()
		s.bufs[&buf[:1][0]] = buf[:cap(buf)]
		s.mu.Unlock()
	}
	if s.errAt >= 0 && off >= s.errAt {
		return 0, errors.New("device error")
	}
	return copy(buf, s.data[min(off, int64(len(s.data))):]), nil
}

// mix is the test's transform: each byte is changed by a function of its
// offset in the stream, so a chunk transformed at the wrong offset, or
// written out of order, gives different bytes. It sleeps a little, at
// random, so that workers finish out of order.
func mix(buf []byte, off int64) error {
	time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond)
	for i := range buf {
		buf[i] ^= byte((off + int64(i)) * 7)
	}
	return nil
}

func mixed(data []byte) []byte {
	out := bytes.Clone(data)
	mix(out, 0)
	return out
}

// TestPumpOrder: whatever the input's length (empty, under a chunk, whole
// chunks, a short tail), known or a stream, with the transform in the
// reader or on several workers, the output is the input transformed at
// its own offsets, in order; progress counts every byte; the pump never
// uses more than Buffers buffers and clears them after a complete run.
func TestPumpOrder(t *testing.T) {
	const chunk = 4096
	for _, n := range []int{0, 100, chunk, 3 * chunk, 7*chunk + 512} {
		for _, known := range []bool{true, false} {
			for _, workers := range []int{0, 1, 4} {
				t.Run(fmt.Sprintf("%d/known=%v/workers=%d", n, known, workers), func(t *testing.T) {
					src := newSource(n)
					var out bytes.Buffer
					var progress int64
					size := int64(-1)
					if known {
						size = int64(n)
					}
					buffers := 2*workers + 2
					p := &Pump{Size: size, ChunkSize: chunk, Buffers: buffers, Workers: workers,
						Read: src.read, Transform: mix, W: &out, Progress: func(k int64) { progress += k }}
					written, err := p.Run(context.Background())
					if err != nil || written != int64(n) || progress != int64(n) {
						t.Fatalf("Run: %d bytes, progress %d, %v; want %d, nil", written, progress, err, n)
					}
					if !bytes.Equal(out.Bytes(), mixed(src.data)) {
						t.Fatal("output is not the input transformed in order")
					}
					if len(src.bufs) > buffers {
						t.Errorf("Read saw %d buffers, more than Buffers %d", len(src.bufs), buffers)
					}
					for _, b := range src.bufs {
						if !bytes.Equal(b, make([]byte, len(b))) {
							t.Errorf("a buffer still holds data after the run")
						}
					}
				})
			}
		}
	}
}

// TestPumpErrors: a read, transform or write error stops the run with
// that error, after writing exactly the chunks before it; a known size
// that the input falls short of is io.ErrUnexpectedEOF.
func TestPumpErrors(t *testing.T) {
	const chunk = 1024
	errTransform := errors.New("transform failed")
	cases := []struct {
		name      string
		size      int64 // the Pump's Size; the input holds 10 chunks
		errAt     int64 // Read fails from here; -1: never
		failAt    int64 // Transform fails on the chunk at this offset; -1: never
		writeLeft int   // bytes W accepts; -1: all
		written   int64
		err       string
	}{
		{"read error", -1, 4 * chunk, -1, -1, 4 * chunk, "device error"},
		{"read error at once", 10 * chunk, 0, -1, -1, 0, "device error"},
		{"transform error", -1, -1, 6 * chunk, -1, 6 * chunk, "transform failed"},
		{"write error", -1, -1, -1, 3*chunk + 10, 3 * chunk, "writing output: disk full"},
		{"short input", 12 * chunk, -1, -1, -1, 10 * chunk, io.ErrUnexpectedEOF.Error()},
	}
	for _, c := range cases {
		for _, workers := range []int{0, 3} {
			t.Run(fmt.Sprintf("%s/workers=%d", c.name, workers), func(t *testing.T) {
				src := newSource(10 * chunk)
				src.errAt = c.errAt
				w := &limitWriter{left: c.writeLeft}
				p := &Pump{Size: c.size, ChunkSize: chunk, Buffers: 2*workers + 2, Workers: workers, Read: src.read, W: w,
					Transform: func(buf []byte, off int64) error {
						if off == c.failAt {
							return errTransform
						}
						return mix(buf, off)
					}}
				written, err := p.Run(context.Background())
				if err == nil || err.Error() != c.err || written != c.written {
					t.Fatalf("Run: %d bytes, %v; want %d, %q", written, err, c.written, c.err)
				}
				if !bytes.Equal(w.buf.Bytes(), mixed(src.data)[:c.written]) {
					t.Fatal("the chunks before the error were not written as they should be")
				}
			})
		}
	}
}

type limitWriter struct {
	buf  bytes.Buffer
	left int
}

func (w *limitWriter) Write(p []byte) (int, error) {
	if w.left >= 0 && len(p) > w.left {
		return 0, errors.New("disk full")
	}
	w.left -= len(p)
	return w.buf.Write(p)
}

// TestPumpCancel: an ended context stops the run at once, even while
// Read is blocked (a pipe nobody writes).
func TestPumpCancel(t *testing.T) {
	for _, workers := range []int{0, 2} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			block := make(chan struct{})
			defer close(block)
			var out bytes.Buffer
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var got int64
			p := &Pump{Size: -1, ChunkSize: 512, Buffers: 4, Workers: workers, W: &out,
				Read: func(buf []byte, off int64) (int, error) {
					if off == 2*512 {
						<-block
					}
					return len(buf), nil
				},
				Transform: mix,
				Progress: func(n int64) { // called by Run's goroutine
					if got += n; got == 2*512 {
						cancel()
					}
				}}
			done := make(chan error, 1)
			go func() {
				_, err := p.Run(ctx)
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("Run: %v, want context.Canceled", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Run did not return within 5 s of the cancel")
			}
			if out.Len() != 2*512 {
				t.Errorf("wrote %d bytes, want the 1024 before the stuck chunk", out.Len())
			}
		})
	}
}

// TestPumpWaitsForTransform: when a run stops early (the context ends,
// or a write fails) while chunks are being transformed, Run returns only
// once those calls are over, and no Transform starts after it, so that
// the caller can wipe the key at once.
func TestPumpWaitsForTransform(t *testing.T) {
	for _, stop := range []string{"cancel", "write error"} {
		for _, workers := range []int{0, 3} {
			t.Run(fmt.Sprintf("%s/workers=%d", stop, workers), func(t *testing.T) {
				var mu sync.Mutex
				running, calls := 0, 0
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				w := &limitWriter{left: -1}
				if stop == "write error" {
					w.left = 512
				}
				p := &Pump{Size: -1, ChunkSize: 512, Buffers: 2*workers + 2, Workers: workers, W: w,
					Read: func(buf []byte, off int64) (int, error) { return len(buf), nil },
					Transform: func(buf []byte, off int64) error {
						mu.Lock()
						running++
						calls++
						mu.Unlock()
						time.Sleep(20 * time.Millisecond)
						mu.Lock()
						running--
						mu.Unlock()
						return nil
					},
					Progress: func(int64) {
						if stop == "cancel" {
							cancel()
						}
					}}
				_, err := p.Run(ctx)
				mu.Lock()
				left, before := running, calls
				mu.Unlock()
				if err == nil || left != 0 {
					t.Fatalf("Run: %v with %d Transform calls still running; want an error and none", err, left)
				}
				time.Sleep(100 * time.Millisecond)
				mu.Lock()
				after := calls
				mu.Unlock()
				if after != before {
					t.Errorf("%d Transform calls started after Run returned", after-before)
				}
			})
		}
	}
}

// BenchmarkPump is the pump's own cost: 64 MiB through a transform that
// touches every byte once, in 1 MiB chunks, with the transform in the
// reader or on several workers.
func BenchmarkPump(b *testing.B) {
	const total, chunk = 64 << 20, 1 << 20
	for _, workers := range []int{0, 1, 4} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.SetBytes(total)
			for b.Loop() {
				p := &Pump{Size: total, ChunkSize: chunk, Buffers: 2*workers + 2, Workers: workers,
					Read: func(buf []byte, off int64) (int, error) { return len(buf), nil },
					Transform: func(buf []byte, off int64) error {
						for i := range buf {
							buf[i]++
						}
						return nil
					},
					W: io.Discard}
				if _, err := p.Run(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
