package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/fastxts/xts/internal/sector"
)

const cryptUsageFmt = `Usage: xts %[1]s -d KEYFILE [flags] INPUT OUTPUT

%[2]s a disk image exactly as dm-crypt's plain mode does, so that
  cryptsetup open --type plain --cipher aes-xts-plain64 --key-size 512 \
      --key-file KEYFILE IMAGE NAME
maps the encrypted image to the same plaintext. The flags are
cryptsetup's: give both programs the same --cipher, --key-size,
--keyfile-offset, --keyfile-size, --sector-size, --iv-large-sectors,
--skip, --offset and --size.

The key file holds the raw XTS key. With --key-size BITS (256, 384 or
512: AES-128, -192 or -256) exactly BITS/8 bytes are read, after
--keyfile-offset, and the rest of the file is ignored, as cryptsetup does
(so a 4096-byte key file works); without it the file (or its first
--keyfile-size bytes) must hold exactly 32, 48 or 64 bytes.

INPUT and OUTPUT are paths, or - for standard input and output. A file
OUTPUT has no name until it is complete and flushed to disk (on Linux it
is written as an unnamed file), so an error, a signal or a crash leaves
nothing; an existing OUTPUT is never replaced without --force. Standard
output that is a file or a block device is flushed before success.
Input and output are whole sectors: the length after --offset must be a
multiple of the sector size. With sectors over 512 bytes, --skip, --offset
and --size must be whole numbers of sectors (dm-crypt requires it).
`

// chunkSize is the unit of work of the pipeline: large enough that a call
// into the cipher costs nothing against its work, small enough that every
// core gets chunks and memory stays small. A multiple of every sector
// size; tests lower it to put chunk edges where they want them.
var chunkSize = 1 << 20

type cryptOptions struct {
	encrypt   bool
	key       keySpec
	cipher    string
	num       numbering
	offset    uint64 // 512-byte units of the input to leave out
	size      uint64 // 512-byte units to process after offset; 0: all
	force     bool
	verbose   bool
	in, out   string
	chunkSize int
}

func runCrypt(e *env, args []string, encrypt bool) error {
	name, verb := "decrypt", "Decrypts"
	if encrypt {
		name, verb = "encrypt", "Encrypts"
	}
	o := cryptOptions{encrypt: encrypt, chunkSize: chunkSize}
	fs := newFlagSet(name, fmt.Sprintf(cryptUsageFmt, name, verb), e.stdout)
	o.key.flags(fs)
	fs.StringVar(&o.cipher, "cipher", "aes-xts-plain64", "`CIPHER`: aes-xts-plain64 (64-bit sector IV) or aes-xts-plain (32-bit, wraps to 0)")
	fs.alias("c", "cipher")
	fs.IntVar(&o.num.sectorSize, "sector-size", 512, "encryption sector size in `BYTES`: 512, 1024, 2048 or 4096")
	fs.BoolVar(&o.num.large, "iv-large-sectors", false, "count IVs in sectors of --sector-size rather than 512-byte units")
	fs.Uint64Var(&o.num.skip, "skip", 0, "IV of the first sector, in 512-byte `SECTORS` (cryptsetup --skip)")
	fs.alias("p", "skip")
	fs.Uint64Var(&o.offset, "offset", 0, "512-byte `SECTORS` at the start of the input to leave out (cryptsetup --offset)")
	fs.alias("o", "offset")
	fs.Uint64Var(&o.size, "size", 0, "process only this many 512-byte `SECTORS` after --offset; 0: all (cryptsetup --size)")
	fs.alias("b", "size")
	fs.BoolVar(&o.force, "force", false, "replace OUTPUT if it exists")
	fs.BoolVar(&o.verbose, "v", false, "print the throughput at the end")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := o.validate(pos); err != nil {
		return err
	}

	// Signals are caught from here on: whatever comes, no output is left.
	g := watchSignals(e.stderr, name)
	defer g.stop()
	key, err := o.key.read(e.stdin)
	if err != nil {
		return err
	}
	crypt, impl, err := o.newCipher(key)
	clear(key)
	if err != nil {
		return err
	}

	start := time.Now()
	n, err := o.stream(g, e, crypt)
	if err != nil {
		return err
	}
	if o.verbose {
		d := time.Since(start)
		fmt.Fprintf(e.stderr, "xts %s: %d bytes (%d sectors of %d) in %.3f s, %.0f MB/s (%s, %s, %d threads)\n",
			name, n, n/int64(o.num.sectorSize), o.num.sectorSize, d.Seconds(), float64(n)/d.Seconds()/1e6,
			impl, o.num, runtime.GOMAXPROCS(0))
	}
	return nil
}

// validate checks the command line before anything is opened.
func (o *cryptOptions) validate(pos []string) error {
	if len(pos) != 2 {
		return usagef("want INPUT and OUTPUT, got %d argument(s)", len(pos))
	}
	o.in, o.out = pos[0], pos[1]
	if err := o.key.validate(); err != nil {
		return err
	}
	if o.key.path == "-" && o.in == "-" {
		return usagef("--key-file - and INPUT - cannot both read standard input")
	}
	switch o.cipher {
	case "aes-xts-plain64":
	case "aes-xts-plain":
		o.num.plain32 = true
	default:
		return usagef("--cipher %q: want aes-xts-plain64 or aes-xts-plain", o.cipher)
	}
	if err := o.num.validate(); err != nil {
		return err
	}
	if u := o.num.unitsPerSector(); o.offset%u != 0 {
		return usagef("--offset %d: with --sector-size %d it must be a multiple of %d", o.offset, o.num.sectorSize, u)
	}
	if o.offset > 1<<54 { // 2^63 bytes: beyond any file offset
		return usagef("--offset %d is too large", o.offset)
	}
	if u := o.num.unitsPerSector(); o.size%u != 0 {
		return usagef("--size %d: with --sector-size %d it must be a multiple of %d", o.size, o.num.sectorSize, u)
	}
	if o.size > 1<<54 {
		return usagef("--size %d is too large", o.size)
	}
	return nil
}

// newCipher builds the cipher for the image (internal/sector, which also
// applies dm-crypt's IV numbering) and returns the function that
// transforms a run of sectors in place, and the implementation's name.
// Every core is already busy with a chunk of its own, so the cipher must
// not split calls across cores again.
func (o *cryptOptions) newCipher(key []byte) (sectorFunc, string, error) {
	c, err := sector.New(o.cipher, key, o.num.sector(), sector.Serial)
	if err != nil {
		return nil, "", fmt.Errorf("bad key: %w", err)
	}
	if o.encrypt {
		return func(buf []byte, k uint64) { c.Encrypt(buf, buf, k) }, c.Implementation(), nil
	}
	return func(buf []byte, k uint64) { c.Decrypt(buf, buf, k) }, c.Implementation(), nil
}

// stream opens the input and output, runs the pipeline, and commits the
// output only if everything succeeded and no signal came.
func (o *cryptOptions) stream(g *signalGuard, e *env, crypt sectorFunc) (int64, error) {
	in, inInfo, expected, err := o.openInput(e)
	if err != nil {
		return 0, err
	}
	if f, ok := in.(*os.File); ok && o.in != "-" {
		defer f.Close()
	}
	if o.size > 0 {
		// Only the first --size sectors; a shorter input is a short read.
		in = io.LimitReader(in, int64(o.size)*512)
		expected = int64(o.size) * 512
	}
	out, err := openOutput(outputSpec{Path: o.out, Force: o.force, Input: inInfo, Stdout: e.stdout})
	if err != nil {
		return 0, err
	}

	label := "encrypting"
	if !o.encrypt {
		label = "decrypting"
	}
	bar := newProgressBar(e.stderr, label, expected)
	workers := runtime.GOMAXPROCS(0)
	p := &pipeline{
		crypt:      crypt,
		num:        o.num,
		chunkSize:  o.chunkSize,
		workers:    workers,
		buffers:    min(2*workers+2, 64),
		expected:   expected,
		onProgress: bar.add,
	}
	n, err := p.run(g.ctx, in, out)
	bar.finish()
	if err != nil {
		return n, g.abort(out, err)
	}
	return n, g.commit(out)
}

// openInput opens the input, leaves out --offset, and returns the number
// of bytes that must follow (-1 when it cannot be known: a pipe). A file
// whose size is known is checked here, before any work.
func (o *cryptOptions) openInput(e *env) (r io.Reader, info os.FileInfo, expected int64, err error) {
	skip := int64(o.offset) * 512
	if o.in == "-" {
		r = e.stdin
		if f, ok := e.stdin.(*os.File); ok {
			info, _ = f.Stat()
		}
		if skip > 0 {
			n, err := io.CopyN(io.Discard, r, skip)
			if err != nil {
				return nil, nil, 0, exitErrorf(exitWrongDevice, "short read: input ended within --offset (%d of %d bytes)", n, skip)
			}
		}
		return r, info, -1, nil
	}
	f, err := os.Open(o.in)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("input: %w", err)
	}
	info, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, 0, fmt.Errorf("input: %w", err)
	}
	if info.IsDir() {
		f.Close()
		return nil, nil, 0, exitErrorf(exitWrongDevice, "input %s is a directory", o.in)
	}
	expected = -1
	// Regular files and block devices can say how long they are.
	if size, err := f.Seek(0, io.SeekEnd); err == nil && (info.Mode().IsRegular() || info.Mode()&os.ModeDevice != 0) {
		if size < skip {
			f.Close()
			return nil, nil, 0, exitErrorf(exitWrongDevice, "short read: input %s holds %d bytes, less than --offset (%d bytes)", o.in, size, skip)
		}
		expected = size - skip
		if o.size > 0 {
			if want := int64(o.size) * 512; expected < want {
				f.Close()
				return nil, nil, 0, exitErrorf(exitWrongDevice, "short read: input %s holds %d bytes after --offset, less than --size %d (%d bytes)", o.in, expected, o.size, want)
			} else {
				expected = want
			}
		}
		if expected%int64(o.num.sectorSize) != 0 {
			f.Close()
			return nil, nil, 0, exitErrorf(exitWrongDevice, "input length %d bytes (after --offset) is not a multiple of the sector size %d", expected, o.num.sectorSize)
		}
		if expected == 0 {
			f.Close()
			return nil, nil, 0, exitErrorf(exitWrongDevice, "input is empty (nothing after --offset)")
		}
		if _, err := f.Seek(skip, io.SeekStart); err != nil {
			f.Close()
			return nil, nil, 0, fmt.Errorf("input: %w", err)
		}
		return f, info, expected, nil
	}
	// A pipe or character device given by name: read past the offset.
	f.Seek(0, io.SeekStart) // undo the probe where seeking worked at all
	if n, err := io.CopyN(io.Discard, f, skip); err != nil {
		f.Close()
		return nil, nil, 0, exitErrorf(exitWrongDevice, "short read: input ended within --offset (%d of %d bytes)", n, skip)
	}
	return f, info, -1, nil
}
