package main

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/fastxts/xts/cmd/xts/internal/exit"
	"github.com/fastxts/xts/internal/nbd"
	"github.com/fastxts/xts/internal/sector"
)

const serveUsage = `Usage: xts serve -d KEYFILE [cipher flags] (--socket PATH | --listen HOST:PORT)
                 [--readonly] [--run CMD] [--max-connections N] [--max-memory SIZE] IMAGE

Serves the plaintext of a dm-crypt plain-mode IMAGE over NBD, without
root: nbdcopy, qemu-img, qemu-io, nbdfuse or nbd-client read and write
the data while it stays encrypted on disk. The key and cipher flags are
xts decrypt's (cryptsetup open --type plain's): --key-file, --key-size,
--keyfile-offset, --keyfile-size, --cipher, --sector-size,
--iv-large-sectors, --skip, --offset and --size. Writes at any offset
are encrypted before they reach IMAGE (partial sectors are read,
decrypted, modified and written back); a FLUSH fsyncs it.

` + serveFlagsHelp

func runServe(e *env, args []string) error {
	o := cryptOptions{}
	var so serveOptions
	fs := newFlagSet("serve", serveUsage, e.stdout)
	o.flags(fs, "at the start of IMAGE before the data", "serve only this many 512-byte `SECTORS` after --offset; 0: to the end (cryptsetup --size)")
	so.flags(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want IMAGE, got %d argument(s)", len(pos))
	}
	if pos[0] == "-" {
		return usagef("IMAGE must be a file or a block device, not standard input")
	}
	// xts decrypt's checks of the key and cipher flags; the output
	// they expect is not used.
	if err := o.validate([]string{pos[0], ""}); err != nil {
		return err
	}
	if err := so.validate(); err != nil {
		return err
	}

	b, err := openPlain(pos[0], &o, so.readOnly)
	if err != nil {
		return err
	}
	defer b.close()
	if err := lockImage(b.f, !so.readOnly); err != nil {
		return err
	}
	key, err := o.key.read(e.stdin)
	if err != nil {
		return err
	}
	c, err := sector.New(o.cipher, key, o.num.sector())
	clear(key)
	if err != nil {
		return fmt.Errorf("bad key: %w", err)
	}
	b.c = c
	defer c.Wipe()
	return serveExport(e, "serve", b, pos[0], &so)
}

// plainBackend is the plaintext of a dm-crypt plain-mode image: the
// sectors of [base, base+size) of f under c (which numbers them as dm-crypt does). Reads run
// concurrently; writes are serialised against each other and against
// reads, so that a partial sector's read-modify-write sees no other
// write. Every write goes to the one f and Flush fsyncs it.
type plainBackend struct {
	mu       sync.RWMutex
	f        *os.File
	base     int64
	size     int64
	ss       int
	c        *sector.Cipher
	readOnly bool
}

// openPlain opens the image and works out the served range.
func openPlain(path string, o *cryptOptions, readOnly bool) (*plainBackend, error) {
	flag := os.O_RDWR
	if readOnly {
		flag = os.O_RDONLY
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return nil, fmt.Errorf("image: %w", err)
	}
	end, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("image: %w", err)
	}
	base := int64(o.offset) * 512
	if end < base {
		f.Close()
		return nil, exit.Errorf(exitWrongDevice, "image %s holds %d bytes, less than --offset (%d bytes)", path, end, base)
	}
	size := end - base
	if o.size > 0 {
		want := int64(o.size) * 512
		if want > size {
			f.Close()
			return nil, exit.Errorf(exitWrongDevice, "image %s holds %d bytes after --offset, less than --size %d (%d bytes)", path, size, o.size, want)
		}
		size = want
	}
	ss := o.num.sectorSize
	if size%int64(ss) != 0 || size == 0 {
		f.Close()
		return nil, exit.Errorf(exitWrongDevice, "image length %d bytes (after --offset) is not a positive multiple of the sector size %d", size, ss)
	}
	return &plainBackend{f: f, base: base, size: size, ss: ss, readOnly: readOnly}, nil
}

func (b *plainBackend) close() { b.f.Close() }

func (b *plainBackend) Size() int64    { return b.size }
func (b *plainBackend) BlockSize() int { return b.ss }
func (b *plainBackend) ReadOnly() bool { return b.readOnly }

// crypt encrypts or decrypts buf, the whole sectors from byte off of the
// plaintext, in place (the sector layer applies dm-crypt's numbering).
func (b *plainBackend) crypt(buf []byte, off int64, encrypt bool) {
	k := uint64(off) / uint64(b.ss)
	if encrypt {
		b.c.Encrypt(buf, buf, k)
	} else {
		b.c.Decrypt(buf, buf, k)
	}
}

// span is the whole sectors covering [off, off+n).
func (b *plainBackend) span(off int64, n int) (start, end int64) {
	ss := int64(b.ss)
	return off / ss * ss, (off + int64(n) + ss - 1) / ss * ss
}

func (b *plainBackend) checkRange(off int64, n int) error {
	if off < 0 || off > b.size || int64(n) > b.size-off {
		return fmt.Errorf("%d bytes at %d outside the %d-byte image", n, off, b.size)
	}
	return nil
}

// ReadAt implements nbd.Backend.
func (b *plainBackend) ReadAt(p []byte, off int64) (int, error) {
	if err := b.checkRange(off, len(p)); err != nil || len(p) == 0 {
		return 0, err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	start, end := b.span(off, len(p))
	buf, direct := p, start == off && end == off+int64(len(p))
	if !direct {
		buf = make([]byte, end-start)
	}
	if _, err := b.f.ReadAt(buf, b.base+start); err != nil {
		return 0, err
	}
	b.crypt(buf, start, false)
	if !direct {
		copy(p, buf[off-start:])
	}
	return len(p), nil
}

// WriteAt implements nbd.Backend; p is not modified.
func (b *plainBackend) WriteAt(p []byte, off int64) (int, error) {
	if b.readOnly {
		return 0, fmt.Errorf("image is read-only")
	}
	if err := b.checkRange(off, len(p)); err != nil {
		return 0, err
	}
	if len(p) == 0 {
		return 0, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	start, end := b.span(off, len(p))
	buf := make([]byte, end-start)
	ss := int64(b.ss)
	// The partial sectors at either end: their other bytes stay.
	if off != start {
		if err := b.readSector(buf[:ss], start); err != nil {
			return 0, err
		}
	}
	if last := end - ss; off+int64(len(p)) != end && (last != start || off == start) {
		if err := b.readSector(buf[last-start:], last); err != nil {
			return 0, err
		}
	}
	copy(buf[off-start:], p)
	b.crypt(buf, start, true)
	if _, err := b.f.WriteAt(buf, b.base+start); err != nil {
		return 0, err
	}
	return len(p), nil
}

// readSector reads and decrypts the sector at plaintext offset off into sec.
func (b *plainBackend) readSector(sec []byte, off int64) error {
	if _, err := b.f.ReadAt(sec, b.base+off); err != nil {
		return err
	}
	b.crypt(sec, off, false)
	return nil
}

// Flush implements nbd.Backend: fsync.
func (b *plainBackend) Flush() error {
	if b.readOnly {
		return nil
	}
	return b.f.Sync()
}

var _ nbd.Backend = (*plainBackend)(nil)
