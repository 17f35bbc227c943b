package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/fastxts/xts/cmd/xts/internal/exit"
	"github.com/fastxts/xts/cmd/xts/internal/guard"
	"github.com/fastxts/xts/cmd/xts/internal/input"
	"github.com/fastxts/xts/cmd/xts/internal/progress"
	"github.com/fastxts/xts/cmd/xts/internal/pump"
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

// defaultChunkSize is the unit of work of plain mode's pump: large enough
// that a call into the cipher costs nothing against its work, small
// enough that every core gets chunks and memory stays small. A multiple
// of every sector size; tests lower it (env.chunkSize) to put chunk edges
// where they want them.
const defaultChunkSize = 1 << 20

// sectorFunc encrypts or decrypts whole sectors in place: buf holds the
// image's sectors firstSector, firstSector+1, …; the cipher turns sector
// numbers into dm-crypt's IVs.
type sectorFunc func(buf []byte, firstSector uint64)

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

// flags declares the key and cipher flags of plain dm-crypt mode
// (cryptsetup open --type plain's), shared by encrypt, decrypt and serve;
// offsetWhat and sizeHelp say what --offset and --size mean to the command.
func (o *cryptOptions) flags(fs *cmdFlags, offsetWhat, sizeHelp string) {
	o.key.flags(fs)
	fs.StringVar(&o.cipher, "cipher", "aes-xts-plain64", "`CIPHER`: aes-xts-plain64 (64-bit sector IV) or aes-xts-plain (32-bit, wraps to 0); serpent-, twofish- or camellia- for those ciphers")
	fs.alias("c", "cipher")
	fs.IntVar(&o.num.sectorSize, "sector-size", 512, "encryption sector size in `BYTES`: 512, 1024, 2048 or 4096")
	fs.BoolVar(&o.num.large, "iv-large-sectors", false, "count IVs in sectors of --sector-size rather than 512-byte units")
	fs.Uint64Var(&o.num.skip, "skip", 0, "IV of the first sector, in 512-byte `SECTORS` (cryptsetup --skip)")
	fs.alias("p", "skip")
	fs.Uint64Var(&o.offset, "offset", 0, "512-byte `SECTORS` "+offsetWhat+" (cryptsetup --offset)")
	fs.alias("o", "offset")
	fs.Uint64Var(&o.size, "size", 0, sizeHelp)
	fs.alias("b", "size")
}

func runCrypt(e *env, args []string, encrypt bool) error {
	name, verb := "decrypt", "Decrypts"
	if encrypt {
		name, verb = "encrypt", "Encrypts"
	}
	o := cryptOptions{encrypt: encrypt, chunkSize: e.chunkSize}
	if o.chunkSize == 0 {
		o.chunkSize = defaultChunkSize
	}
	fs := newFlagSet(name, fmt.Sprintf(cryptUsageFmt, name, verb), e.stdout)
	o.flags(fs, "at the start of the input to leave out", "process only this many 512-byte `SECTORS` after --offset; 0: all (cryptsetup --size)")
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
	g := e.guard(name)
	defer g.Stop()
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
	spec, err := sector.ParseSpec(o.cipher)
	if err == nil && spec.Mode != "xts" {
		err = fmt.Errorf("mode %s: plain mode here is XTS only", spec.Mode)
	}
	if err != nil {
		return usagef("--cipher %q: want aes-xts-plain64 or aes-xts-plain (or serpent-, twofish-, camellia-): %v", o.cipher, err)
	}
	o.num.cipher, o.num.plain32 = spec.Cipher, spec.IV == "plain"
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

// stream opens the input and output, pumps the one through the cipher to
// the other, and commits the output only if everything succeeded and no
// signal came.
func (o *cryptOptions) stream(g *guard.Guard, e *env, crypt sectorFunc) (int64, error) {
	in, expected, err := o.openInput(e)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	r := in.R
	if o.size > 0 {
		// Only the first --size sectors; a shorter input is a short read.
		r = io.LimitReader(r, int64(o.size)*512)
		expected = int64(o.size) * 512
	}
	out, err := g.Create(guard.Spec{Path: o.out, Force: o.force, Input: in.Info, Stdout: e.stdout})
	if err != nil {
		return 0, err
	}

	label := "encrypting"
	if !o.encrypt {
		label = "decrypting"
	}
	bar := progress.New(e.stderr, label, expected)
	ss := o.num.sectorSize
	var read int64
	// Every core transforms chunks of its own (the cipher does not split
	// them again); two chunks per core keep them all busy.
	workers := runtime.GOMAXPROCS(0)
	p := &pump.Pump{
		Size:      -1, // read to the end, then check the length against expected
		ChunkSize: o.chunkSize,
		Buffers:   min(2*workers+2, 64),
		Workers:   workers,
		Read: func(buf []byte, _ int64) (int, error) {
			n, err := io.ReadFull(r, buf)
			read += int64(n)
			switch {
			case err == nil, errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			default:
				return 0, fmt.Errorf("reading input: %w", err)
			}
			if n%ss != 0 {
				return 0, exit.Errorf(exitWrongDevice, "input length %d bytes (after --offset) is not a multiple of the sector size %d", read, ss)
			}
			return n, nil
		},
		Transform: func(buf []byte, off int64) error {
			o.transform(crypt, buf, off)
			return nil
		},
		W:        out,
		Progress: bar.Add,
	}
	n, err := p.Run(g.Context())
	bar.Finish()
	switch {
	case err != nil:
	case expected >= 0 && n != expected:
		err = exit.Errorf(exitWrongDevice, "short read: input ended after %d of %d bytes", n, expected)
	case n == 0:
		err = exit.Errorf(exitWrongDevice, "input is empty (nothing after --offset)")
	}
	if err != nil {
		return n, g.Abort(err)
	}
	return n, g.Commit()
}

// transform encrypts or decrypts the chunk buf, which starts off bytes
// into the image: crypt takes the chunk's first sector number, and the
// sector layer applies dm-crypt's IV numbering (wraps included).
func (o *cryptOptions) transform(crypt sectorFunc, buf []byte, off int64) {
	crypt(buf, uint64(off)/uint64(o.num.sectorSize))
}

// openInput opens the input, leaves out --offset, and returns it with
// the number of bytes that must follow (-1 when it cannot be known: a
// pipe). A file whose size is known is checked here, before any work.
func (o *cryptOptions) openInput(e *env) (in *input.Input, expected int64, err error) {
	in, err = input.Open(o.in, e.stdin)
	if err != nil {
		return nil, 0, err
	}
	if err := o.checkInput(in); err != nil {
		in.Close()
		return nil, 0, err
	}
	return in, in.Size, nil
}

// checkInput leaves out --offset and checks what is left when its length
// is known: at least --size, whole sectors, not empty.
func (o *cryptOptions) checkInput(in *input.Input) error {
	skip := int64(o.offset) * 512
	if in.Size < 0 {
		if n, err := in.Skip(skip); err != nil {
			return exit.Errorf(exitWrongDevice, "short read: input ended within --offset (%d of %d bytes)", n, skip)
		}
		return nil
	}
	if in.Size < skip {
		return exit.Errorf(exitWrongDevice, "short read: input %s holds %d bytes, less than --offset (%d bytes)", o.in, in.Size, skip)
	}
	if _, err := in.Skip(skip); err != nil {
		return fmt.Errorf("input: %w", err)
	}
	left := in.Size
	if o.size > 0 {
		want := int64(o.size) * 512
		if left < want {
			return exit.Errorf(exitWrongDevice, "short read: input %s holds %d bytes after --offset, less than --size %d (%d bytes)", o.in, left, o.size, want)
		}
		left = want
	}
	if left%int64(o.num.sectorSize) != 0 {
		return exit.Errorf(exitWrongDevice, "input length %d bytes (after --offset) is not a multiple of the sector size %d", left, o.num.sectorSize)
	}
	if left == 0 {
		return exit.Errorf(exitWrongDevice, "input is empty (nothing after --offset)")
	}
	return nil
}
