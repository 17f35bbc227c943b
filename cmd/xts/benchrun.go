package main

import (
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sync"
	"time"
	"unsafe"

	"github.com/fastxts/xts"
	"github.com/fastxts/xts/internal/peak"
)

// A benchRow is one line of the table: an implementation (or the bound),
// a key size and an operation, with one cell per size.
type benchRow struct {
	impl     string
	keyBits  int
	op       string // enc, dec, enc-sectors[-parallel], dec-sectors[-parallel], rounds[-parallel]
	parallel bool   // compared with the all-core bound
	cells    []*benchCell
	gcrypt   bool           // a libgcrypt harness's row
	harness  *gcryptHarness // the harness of a gcrypt row
}

// A benchCell times one function over one size.
type benchCell struct {
	size  int                     // message or sector size; 0 for the bound
	bytes int                     // bytes per call
	run   func(buf []byte, n int) // n calls in a loop on buf; nil when the cell does not apply
	iters int                     // calls per timed run, set in the first pass
	mbps  float64
	ext   bool // measured elsewhere (libgcrypt) or computed (a cascade's combined row)
}

// has reports whether the cell has a figure (or, before the run, will be
// timed).
func (c *benchCell) has() bool { return c.run != nil || c.ext && c.mbps > 0 }

// nsPerCall is the cell's best time per call in ns (NaN if not timed).
func (c *benchCell) nsPerCall() float64 {
	if !c.has() || !(c.mbps > 0) {
		return math.NaN()
	}
	return float64(c.bytes) * 1e3 / c.mbps
}

// best is the row's fastest cell, the one compared with the bound.
func (r *benchRow) best() float64 {
	m := math.NaN()
	for _, c := range r.cells {
		if c.has() && (math.IsNaN(m) || c.mbps > m) {
			m = c.mbps
		}
	}
	return m
}

type bench struct {
	o          *benchOptions
	loop       peak.Loop
	loopErr    error
	rate       float64 // best block-rounds/s on one core
	rateAll    float64 // best block-rounds/s on every core at once
	latency    float64 // best seconds a dependent AES round takes; 0 unknown
	rows       []*benchRow
	sectorRows bool
	buf        []byte // every cell's data, page-aligned, passShift longer than the largest cell
}

// passShift is how far each pass moves the data on from the previous
// one, modulo a page. On some cores (AMD Zen 5, for one) a load whose
// address matches a pending store's in the low 12 bits waits for it ("4K
// aliasing"): a call's loads of round keys or of its own arguments that
// happen to alias the previous call's output cost a 512-byte message up to
// a quarter of its speed there, and which ones do depends on where the
// data lies. Three passes at three placements, the best counting, keep
// such luck out of the figures.
const passShift = 1024

// passBuf is the data of pass p: the buffer at page offset
// (p mod 4)·passShift.
func (b *bench) passBuf(p int) []byte {
	off := (p % 4) * passShift
	return b.buf[off : len(b.buf)-3*passShift+off]
}

// newBench builds every row and cell; nothing is timed yet.
func newBench(o *benchOptions) (*bench, error) {
	b := &bench{o: o}
	if o.isAES() {
		b.loop, b.loopErr = peak.Widest()
	} else {
		b.loopErr = errNoBound
	}

	// All cells share one buffer, which every call encrypts or decrypts in
	// place (see benchUsage): they run one at a time, and sharing keeps the
	// memory at 8 MiB.
	bufLen := 0
	for _, s := range o.sizes {
		bufLen = max(bufLen, s)
	}
	if len(o.sectorSizes) > 0 && len(o.sectorImpls) > 0 {
		bufLen = max(bufLen, sectorsParallelBuf)
		b.sectorRows = true
	}
	b.buf = pageAligned(bufLen + 3*passShift)
	rand.Read(b.buf)

	for _, keyBits := range o.keys {
		key := newKey(keyBits)
		for _, op := range o.ops {
			for _, impl := range o.impls {
				if impl == cascadeName {
					r := &benchRow{impl: impl, keyBits: keyBits, op: op}
					for _, size := range o.sizes {
						r.cells = append(r.cells, &benchCell{size: size, bytes: size, ext: true})
					}
					b.rows = append(b.rows, r)
					continue
				}
				enc, dec, err := opFuncs(o, impl, key)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", impl, err)
				}
				f := enc
				if op == "dec" {
					f = dec
				}
				r := &benchRow{impl: impl, keyBits: keyBits, op: op}
				for _, size := range o.sizes {
					c := &benchCell{size: size, bytes: size}
					// x/crypto/xts panics on lengths that are not a
					// multiple of 16: it has no ciphertext stealing.
					if impl != baselineName || size%16 == 0 {
						c.run = messageLoop(f, size)
					}
					r.cells = append(r.cells, c)
				}
				b.rows = append(b.rows, r)
			}
			for _, h := range o.gcrypt {
				r := &benchRow{impl: filepath.Base(h.path), keyBits: keyBits, op: op, gcrypt: true, harness: h}
				for _, size := range o.sizes {
					r.cells = append(r.cells, &benchCell{size: size, bytes: size, ext: size%16 == 0})
				}
				b.rows = append(b.rows, r)
			}
		}
		if !b.sectorRows {
			continue
		}
		for _, op := range o.ops {
			for _, parallel := range []bool{false, true} {
				for _, impl := range o.sectorImpls {
					r, err := sectorRow(o.bc.newBlock, impl, key, keyBits, op, parallel, o.sectorSizes)
					if err != nil {
						return nil, err
					}
					b.rows = append(b.rows, r)
				}
			}
		}
	}
	return b, nil
}

// sectorRow builds a bulk row: EncryptSectors or DecryptSectors over
// 1 MiB on one core, or over 8 MiB split across every core.
func sectorRow(newBlock func([]byte) (cipher.Block, error), impl string, key []byte, keyBits int, op string, parallel bool, sizes []int) (*benchRow, error) {
	opts := []xts.Option{xts.WithImplementation(impl)}
	n := sectorsParallelBuf
	name := op + "-sectors-parallel"
	if !parallel {
		opts = append(opts, xts.WithoutParallelism())
		n = sectorsBuf
		name = op + "-sectors"
	}
	c, err := xts.NewCipher(newBlock, key, opts...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", impl, err)
	}
	f := c.EncryptSectors
	if op == "dec" {
		f = c.DecryptSectors
	}
	r := &benchRow{impl: impl, keyBits: keyBits, op: name, parallel: parallel}
	for _, size := range sizes {
		perCall := uint64(n / size)
		r.cells = append(r.cells, &benchCell{size: size, bytes: n, run: func(buf []byte, calls int) {
			b := buf[:n]
			for i := range calls {
				f(b, b, size, uint64(i)*perCall)
			}
		}})
	}
	return r, nil
}

// pageAligned returns n zero bytes that start a page (4096 bytes), as
// BenchmarkXTS's buffers do (see passShift).
func pageAligned(n int) []byte {
	b := make([]byte, n+4095)
	off := int(-uintptr(unsafe.Pointer(&b[0])) & 4095)
	return b[off : off+n : off+n]
}

// messageLoop returns the timed loop of a message cell: f over the first
// size bytes in place, the sector number counting up, as BenchmarkXTS
// runs it.
func messageLoop(f func(dst, src []byte, sectorNum uint64), size int) func(buf []byte, n int) {
	return func(buf []byte, n int) {
		b := buf[:size]
		for i := range n {
			f(b, b, uint64(i))
		}
	}
}

// run times every cell in every pass, keeping the best of each. The bound
// is sampled before every row of every pass (a quarter of --time each):
// other programs on the machine only ever slow a sample down, and a bound
// taken from a single disturbed moment would make every share too high,
// so many samples spread over the whole run keep its best moment.
func (b *bench) run(e *env) error {
	d, sample := b.o.perRun, b.o.perRun/4
	var perPass time.Duration
	for _, r := range b.rows {
		if r.gcrypt {
			perPass += time.Duration(len(gcryptSizes(b.o.sizes))) * d
		}
	}
	for _, r := range b.rows {
		if b.loopErr == nil {
			perPass += sample
			if r.parallel {
				perPass += sample
			}
		}
		for _, c := range r.cells {
			if c.run != nil {
				perPass += d
			}
		}
	}
	prog := newBenchProgress(e.stderr, time.Duration(b.o.passes)*perPass)
	defer prog.finish()

	for pass := range b.o.passes {
		// The round latency, best of one sample a pass: it only explains
		// the figures, the bound is what each row is compared with.
		if b.loopErr == nil {
			if l := b.loop.Latency(sample / 4); l > 0 && (b.latency == 0 || l < b.latency) {
				b.latency = l
			}
		}
		for _, r := range b.rows {
			if b.loopErr == nil {
				b.rate = max(b.rate, b.loop.Rate(sample))
				prog.step(pass, sample)
				if r.parallel {
					b.rateAll = max(b.rateAll, allCoreRate(b.loop, sample))
					prog.step(pass, sample)
				}
			}
			for _, c := range r.cells {
				if c.run != nil {
					c.measure(d, b.passBuf(pass))
					prog.step(pass, d)
				}
			}
		}
		// libgcrypt's cells, once each a pass, interleaved with ours.
		for i := 0; i < len(b.o.gcrypt); i++ {
			h := b.o.gcrypt[i]
			if err := b.runGcrypt(h, d); err != nil {
				if !h.auto {
					return err
				}
				// A harness found, not named: say why it is left out.
				prog.finish()
				fmt.Fprintf(e.stderr, "xts bench: leaving libgcrypt out: %v\n", err)
				b.dropGcrypt(h)
				i--
			}
		}
	}
	b.combine()
	return nil
}

// errNoBound is why ciphers other than AES have no bound: the AES-round
// loop bounds AES only.
var errNoBound = errors.New("no bound: the AES-round bound applies to AES only")

// dropGcrypt removes a failed harness and its rows.
func (b *bench) dropGcrypt(h *gcryptHarness) {
	b.o.gcrypt = slices.DeleteFunc(b.o.gcrypt, func(x *gcryptHarness) bool { return x == h })
	b.rows = slices.DeleteFunc(b.rows, func(r *benchRow) bool { return r.harness == h })
}

// allCoreRate runs the bound loop on every thread at once and adds up the
// rates: with SMT two threads share one core's AES units, and all-core
// clocks are lower than one core's, so multiplying by the thread count
// would overstate it.
func allCoreRate(l peak.Loop, d time.Duration) float64 {
	n := threads()
	rates := make([]float64, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { rates[i] = l.Rate(d) })
	}
	wg.Wait()
	sum := 0.0
	for _, r := range rates {
		sum += r
	}
	return sum
}

// measure times one run of about d (calibrating the number of calls in
// the first pass) and keeps the best MB/s.
func (c *benchCell) measure(d time.Duration, buf []byte) {
	if c.iters == 0 {
		n := 1
		for {
			t := timeCalls(c.run, buf, n)
			if t >= d/16 || n >= 1<<30 {
				c.iters = max(1, int(float64(n)*d.Seconds()/max(t.Seconds(), 1e-9)))
				break
			}
			n *= 4
		}
	}
	t := timeCalls(c.run, buf, c.iters)
	c.mbps = max(c.mbps, float64(c.iters)*float64(c.bytes)/t.Seconds()/1e6)
}

func timeCalls(run func(buf []byte, n int), buf []byte, n int) time.Duration {
	start := time.Now()
	run(buf, n)
	return time.Since(start)
}

// boundMBps is the AES-XTS limit for keyBits on one core or every core,
// NaN where it could not be measured.
func (b *bench) boundMBps(keyBits int, parallel bool) float64 {
	r := b.rate
	if parallel {
		// Every thread together can always do what one thread does: a
		// noisy all-thread run must not lower the bound below that.
		r = max(b.rateAll, b.rate)
	}
	if b.loopErr != nil || r == 0 || !b.o.isAES() {
		return math.NaN()
	}
	return peak.BoundMBps(r, keyBits)
}

// share is mbps as a percentage of the bound, NaN when unknown.
func (b *bench) share(mbps float64, keyBits int, parallel bool) float64 {
	return 100 * mbps / b.boundMBps(keyBits, parallel)
}

// benchProgress is a one-line status on a terminal: where bench is and
// about how long is left. Nil when stderr is not a terminal.
type benchProgress struct {
	w           io.Writer
	done, total time.Duration // planned measuring time
}

func newBenchProgress(w io.Writer, total time.Duration) *benchProgress {
	if terminalWidth(w) == 0 {
		return nil
	}
	return &benchProgress{w: w, total: total}
}

func (p *benchProgress) step(pass int, d time.Duration) {
	if p == nil {
		return
	}
	p.done += d
	fmt.Fprintf(p.w, "\rxts bench: pass %d, %3.0f%%, about %s left\x1b[K", pass+1,
		100*p.done.Seconds()/p.total.Seconds(), (p.total - p.done).Round(time.Second))
}

func (p *benchProgress) finish() {
	if p != nil {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
