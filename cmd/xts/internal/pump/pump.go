// Package pump moves a stream through a transform in bounded memory: a
// reader fills chunks in order, workers transform them (several at once
// when there are several workers), and the caller's goroutine writes
// them back in order. It is the one engine behind every xts command that
// streams data: plain-mode encrypt and decrypt, and the luks commands.
//
// The pump knows nothing of sectors or IVs: Read and Transform are told
// each chunk's byte offset in the stream and do the rest.
package pump

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
)

// errStopped is what a Transform that Run stopped from starting returns;
// nobody sees it, since Run has returned.
var errStopped = errors.New("pump: stopped")

// Pump describes one run. Read and W are needed; the rest may be zero.
type Pump struct {
	// Size is how many bytes the input holds, or -1 for a stream that
	// ends with a short chunk. A known size must be read whole: Read is
	// asked for exactly what is left, and a short chunk before the end
	// is io.ErrUnexpectedEOF.
	Size int64
	// ChunkSize is the most one chunk holds (less when Size is smaller).
	ChunkSize int
	// Buffers is how many chunks may be in flight at once, so memory
	// stays at Buffers × ChunkSize whatever the input's size: at least 2
	// (one read while one is written), more for more workers.
	Buffers int
	// Workers is how many goroutines run Transform. With 0, the reader
	// transforms each chunk itself before passing it on (a Transform that
	// spreads one chunk over every core needs no more).
	Workers int

	// Read fills buf with the input at byte offset off, which advances by
	// what it returned: all of buf, or less where the input ends. An
	// error stops the run; the chunks before it are still written.
	Read func(buf []byte, off int64) (int, error)
	// Transform, if not nil, changes a chunk in place; off is its offset
	// in the stream. With Workers > 1 it runs on several chunks at once.
	Transform func(buf []byte, off int64) error
	// W gets the chunks in order. Its errors are returned as "writing
	// output: ...".
	W io.Writer
	// Progress, if not nil, is told of every chunk written.
	Progress func(n int64)
}

// chunk is one buffer on its way from the reader to the writer.
type chunk struct {
	buf  []byte
	off  int64
	err  error         // a read or transform error: the run stops here
	done chan struct{} // closed once a worker transformed it; nil when the reader did
}

// Run copies the input to W through Transform and returns the bytes
// written. It returns at the first read, transform or write error, or
// with ctx.Err() when ctx ends (a signal), even while a Read is blocked on
// a pipe or terminal. A Transform in progress finishes before Run returns
// and none starts after, so the caller may wipe the keys Transform uses
// at once; a Read in progress may still run (it only touches the pump's
// own buffer), so it must not use anything the caller frees without
// waiting for it. After a complete run the buffers are cleared, since
// they held data that may be secret.
func (p *Pump) Run(ctx context.Context) (int64, error) {
	if p.Read == nil || p.W == nil || p.ChunkSize <= 0 || p.Buffers < 2 || p.Workers < 0 {
		panic("pump: Run needs Read, W, ChunkSize > 0, Buffers >= 2 and Workers >= 0")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Every Transform call holds busy for reading; Run takes it for
	// writing before it returns, so that no call is in progress then and
	// (stopped) none starts after.
	var busy sync.RWMutex
	stopped := false
	transform := func(c *chunk) error {
		busy.RLock()
		defer busy.RUnlock()
		if stopped {
			return errStopped
		}
		return p.Transform(c.buf, c.off)
	}
	defer func() {
		busy.Lock()
		stopped = true
		busy.Unlock()
	}()

	n := int64(p.ChunkSize)
	if p.Size >= 0 {
		n = min(n, max(p.Size, 1))
	}
	bufs := Buffers(p.Buffers, int(n))
	free := make(chan []byte, p.Buffers)
	for _, b := range bufs {
		free <- b
	}
	// Every chunk holds a buffer, so neither channel ever has more than
	// Buffers chunks waiting and sends on them never block.
	order := make(chan *chunk, p.Buffers)
	var work chan *chunk
	if p.Transform != nil && p.Workers > 0 {
		work = make(chan *chunk, p.Buffers)
		for range p.Workers {
			go func() {
				for c := range work {
					c.err = transform(c)
					close(c.done)
				}
			}()
		}
	}
	go p.read(ctx, transform, free, work, order)

	var written int64
	for {
		var c *chunk
		var ok bool
		select {
		case c, ok = <-order:
		case <-ctx.Done():
			return written, ctx.Err()
		}
		if !ok {
			for _, b := range bufs {
				clear(b)
			}
			return written, nil
		}
		if c.done != nil {
			select {
			case <-c.done:
			case <-ctx.Done():
				return written, ctx.Err()
			}
		}
		if c.err != nil {
			return written, c.err
		}
		if len(c.buf) > 0 {
			if _, err := p.W.Write(c.buf); err != nil {
				return written, fmt.Errorf("writing output: %w", err)
			}
			written += int64(len(c.buf))
			if p.Progress != nil {
				p.Progress(int64(len(c.buf)))
			}
		}
		free <- c.buf[:cap(c.buf)]
	}
}

// read fills chunks until the input ends, an error, or ctx ends, and
// hands them on in order; it closes order (and work) when it stops.
func (p *Pump) read(ctx context.Context, transform func(*chunk) error, free <-chan []byte, work, order chan<- *chunk) {
	defer close(order)
	if work != nil {
		defer close(work)
	}
	for off := int64(0); p.Size < 0 || off < p.Size; {
		var buf []byte
		select {
		case buf = <-free:
		case <-ctx.Done():
			return
		}
		want := len(buf)
		if p.Size >= 0 {
			want = int(min(int64(want), p.Size-off))
		}
		n, err := p.Read(buf[:want], off)
		if err == nil && (n < 0 || n > want) {
			panic(fmt.Sprintf("pump: Read returned %d for a %d-byte chunk", n, want))
		}
		if err == nil && n < want && p.Size >= 0 {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			n = 0
		}
		c := &chunk{buf: buf[:n], off: off}
		if err == nil && n > 0 && p.Transform != nil && work == nil {
			err = transform(c)
		}
		c.err = err
		if err == nil && n > 0 && work != nil {
			// From here on c belongs to the workers and then the writer.
			c.done = make(chan struct{})
			work <- c
		}
		order <- c
		if err != nil || n < want {
			return
		}
		off += int64(n)
	}
}
