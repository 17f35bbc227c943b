package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"testing"
)

// pumpTestVolume is a decryptVolume whose byte i is byte(i*31+i>>9): it
// counts the ReadAt calls in progress and can fail or stop short at an
// offset.
type pumpTestVolume struct {
	size     int64
	failAt   int64 // a ReadAt of the chunk holding this offset fails (-1: none)
	shortAt  int64 // ... returns fewer bytes and no error (-1: none)
	inFlight atomic.Int32
	maxIn    atomic.Int32
	onRead   func(off int64)
}

var errPumpTest = errors.New("read error for the test")

func pumpTestByte(i int64) byte { return byte(i*31 + i>>9) }

func (v *pumpTestVolume) Size() int64 { return v.size }

func (v *pumpTestVolume) ReadAt(p []byte, off int64) (int, error) {
	n := v.inFlight.Add(1)
	defer v.inFlight.Add(-1)
	for m := v.maxIn.Load(); n > m && !v.maxIn.CompareAndSwap(m, n); m = v.maxIn.Load() {
	}
	if v.onRead != nil {
		v.onRead(off)
	}
	end := off + int64(len(p))
	if v.failAt >= off && v.failAt < end {
		return 0, errPumpTest
	}
	for i := range p {
		p[i] = pumpTestByte(off + int64(i))
	}
	if v.shortAt >= off && v.shortAt < end {
		return int(v.shortAt - off), nil
	}
	if end >= v.size {
		return len(p), io.EOF // as os.File may at the end
	}
	return len(p), nil
}

// pumpTestFile is an io.WriterAt into memory that can fail at an offset.
type pumpTestFile struct {
	mu     sync.Mutex
	data   []byte
	failAt int64
}

func (f *pumpTestFile) WriteAt(p []byte, off int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failAt >= off && f.failAt < off+int64(len(p)) {
		return 0, errors.New("write error for the test")
	}
	if need := off + int64(len(p)); need > int64(len(f.data)) {
		f.data = append(f.data, make([]byte, need-int64(len(f.data)))...)
	}
	copy(f.data[off:], p)
	return len(p), nil
}

func TestPumpAt(t *testing.T) {
	sizes := []int64{0, 512, decryptChunk - 512, decryptChunk, 3*decryptChunk + 4096, 9 * decryptChunk}
	for _, size := range sizes {
		for _, workers := range []int{1, 2, 3, 8} {
			t.Run(fmt.Sprintf("size=%d/workers=%d", size, workers), func(t *testing.T) {
				v := &pumpTestVolume{size: size, failAt: -1, shortAt: -1}
				f := &pumpTestFile{failAt: -1}
				var added atomic.Int64
				if err := pumpAt(context.Background(), v, f, workers, func(n int64) { added.Add(n) }); err != nil {
					t.Fatal(err)
				}
				want := make([]byte, size)
				for i := range want {
					want[i] = pumpTestByte(int64(i))
				}
				if !bytes.Equal(f.data, want) {
					t.Fatalf("output of %d bytes differs from the volume's %d", len(f.data), size)
				}
				if added.Load() != size {
					t.Errorf("progress counted %d bytes, want %d", added.Load(), size)
				}
				if chunks := int32((size + decryptChunk - 1) / decryptChunk); v.maxIn.Load() > int32(workers) || v.maxIn.Load() > max(chunks, 1) {
					t.Errorf("%d ReadAt calls at once with %d workers and %d chunks", v.maxIn.Load(), workers, chunks)
				}
			})
		}
	}
}

// TestPumpAtErrors: a read error, a short read, a write error and a
// cancelled context each stop the run with their error, and no ReadAt is
// in progress once pumpAt returns (the caller then wipes the keys).
func TestPumpAtErrors(t *testing.T) {
	const size = 16 * decryptChunk
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tests := []struct {
		name    string
		v       *pumpTestVolume
		f       *pumpTestFile
		ctx     context.Context
		want    error
		wantMsg string
	}{
		{name: "read", v: &pumpTestVolume{size: size, failAt: 5*decryptChunk + 7, shortAt: -1}, want: errPumpTest},
		{name: "short read", v: &pumpTestVolume{size: size, failAt: -1, shortAt: 2*decryptChunk + 4096}, want: io.ErrUnexpectedEOF},
		{name: "write", v: &pumpTestVolume{size: size, failAt: -1, shortAt: -1}, f: &pumpTestFile{failAt: 7 * decryptChunk}, wantMsg: "write error for the test"},
		{name: "cancelled", v: &pumpTestVolume{size: size, failAt: -1, shortAt: -1}, ctx: ctx, want: context.Canceled},
	}
	for _, tc := range tests {
		for _, workers := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%s/workers=%d", tc.name, workers), func(t *testing.T) {
				f := tc.f
				if f == nil {
					f = &pumpTestFile{failAt: -1}
				}
				c := tc.ctx
				if c == nil {
					c = context.Background()
				} else {
					// Cancel during the run, from inside a ReadAt.
					tc.v.onRead = func(off int64) {
						if off >= 3*decryptChunk {
							cancel()
						}
					}
				}
				err := pumpAt(c, tc.v, f, workers, func(int64) {})
				if n := tc.v.inFlight.Load(); n != 0 {
					t.Errorf("%d ReadAt calls still in progress after pumpAt returned", n)
				}
				switch {
				case err == nil:
					t.Fatal("no error")
				case tc.want != nil && !errors.Is(err, tc.want):
					t.Fatalf("error %v, want %v", err, tc.want)
				case tc.wantMsg != "" && err.Error() != tc.wantMsg:
					t.Fatalf("error %q, want %q", err, tc.wantMsg)
				}
			})
		}
	}
}
