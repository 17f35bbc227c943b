package main

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// sectorFunc encrypts or decrypts whole sectors in place: buf holds the
// image's sectors firstSector, firstSector+1, … (the cipher applies
// dm-crypt's IV numbering, wraps included).
type sectorFunc func(buf []byte, firstSector uint64)

// pipeline streams an image through the cipher in bounded memory: a reader
// fills fixed-size chunks, workers (one per core) transform them in place,
// and the writer, in this goroutine, writes them back in order. At most
// len(buffers) chunks exist at once, so memory stays at
// buffers × chunkSize whatever the image size.
type pipeline struct {
	crypt      sectorFunc
	num        numbering
	chunkSize  int   // a multiple of every sector size
	workers    int   // goroutines transforming chunks
	buffers    int   // chunks in flight; at least workers+1
	expected   int64 // bytes the input should hold, or -1 if unknown
	onProgress func(n int64)
}

type chunk struct {
	buf    []byte
	n      int    // bytes of buf in use
	sector uint64 // index of the chunk's first sector in the image
	done   chan struct{}
}

// run copies r to w through the cipher and returns the bytes written. Any
// read, length or write error stops it; the caller discards the output.
func (p *pipeline) run(ctx context.Context, r io.Reader, w io.Writer) (int64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	free := make(chan []byte, p.buffers)
	for range p.buffers {
		free <- make([]byte, p.chunkSize)
	}
	work := make(chan *chunk, p.buffers)
	order := make(chan *chunk, p.buffers)

	// Workers stop when the reader closes work. On an error the writer
	// returns without waiting for them: the reader may be stuck in a read
	// from a pipe, and nothing they still touch is shared.
	for range p.workers {
		go func() {
			for c := range work {
				p.transform(c)
				close(c.done)
			}
		}()
	}

	// The reader owns work and order and closes both when it stops;
	// readErr is written before the close, so the writer sees it after.
	var readErr error
	go func() {
		defer close(work)
		defer close(order)
		readErr = p.read(ctx, r, free, work, order)
	}()

	// Every wait also watches ctx, so that an interrupt stops the run even
	// while the reader is blocked on a terminal or a pipe.
	var written int64
	for {
		var c *chunk
		select {
		case next, ok := <-order:
			if !ok {
				return written, readErr
			}
			c = next
		case <-ctx.Done():
			return written, ctx.Err()
		}
		select {
		case <-c.done:
		case <-ctx.Done():
			return written, ctx.Err()
		}
		if _, err := w.Write(c.buf[:c.n]); err != nil {
			return written, fmt.Errorf("writing output: %w", err)
		}
		written += int64(c.n)
		if p.onProgress != nil {
			p.onProgress(int64(c.n))
		}
		free <- c.buf
	}
}

// read fills chunks until the input ends, checking that it ends on a
// sector boundary and, when the size was known up front, where expected.
func (p *pipeline) read(ctx context.Context, r io.Reader, free <-chan []byte, work, order chan<- *chunk) error {
	ss := p.num.sectorSize
	var total int64
	var sector uint64
	for {
		var buf []byte
		select {
		case buf = <-free:
		case <-ctx.Done():
			return ctx.Err()
		}
		n, err := io.ReadFull(r, buf)
		total += int64(n)
		switch {
		case err == nil, errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		default:
			return fmt.Errorf("reading input: %w", err)
		}
		if n%ss != 0 {
			return exitErrorf(exitWrongDevice, "input length %d bytes (after --offset) is not a multiple of the sector size %d", total, ss)
		}
		if n > 0 {
			c := &chunk{buf: buf, n: n, sector: sector, done: make(chan struct{})}
			sector += uint64(n / ss)
			work <- c
			order <- c
		}
		if err != nil { // the input ended
			break
		}
	}
	if p.expected >= 0 && total != p.expected {
		return exitErrorf(exitWrongDevice, "short read: input ended after %d of %d bytes", total, p.expected)
	}
	if total == 0 {
		return exitErrorf(exitWrongDevice, "input is empty (nothing after --offset)")
	}
	return nil
}

// transform encrypts or decrypts one chunk; the cipher numbers its
// sectors from the chunk's first.
func (p *pipeline) transform(c *chunk) { p.crypt(c.buf[:c.n], c.sector) }
