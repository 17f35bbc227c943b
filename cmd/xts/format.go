package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/fastxts/xts/cmd/xts/internal/exit"
	"github.com/fastxts/xts/cmd/xts/internal/guard"
	"github.com/fastxts/xts/cmd/xts/internal/progress"
	"github.com/fastxts/xts/cmd/xts/internal/pump"
	"github.com/fastxts/xts/internal/detect"
	"github.com/fastxts/xts/internal/fusefile"
)

// The format-neutral verbs. Every disk format (VeraCrypt/TrueCrypt,
// BitLocker, FileVault 2, and LUKS through xts serve/mount --type) opens
// to a formatVolume; dump, decrypt, serve and mount are written once over
// it, here. A format brings its flags and its open (a volumeFormat), not
// a copy of the verbs.

// formatVolume is an unlocked volume of any format: its decrypted data.
type formatVolume interface {
	io.ReaderAt
	io.WriterAt
	Size() int64
	SectorSize() int
	// Close wipes the keys. It does not close the image.
	Close() error
}

// formatOptions are one format's flags for one command, parsed.
type formatOptions interface {
	// check validates the flags once parsed.
	check() error
	// open unlocks img (named name in prompts and messages), opened for
	// reading, and for writing unless readOnly. A wrong secret is an
	// error with exitPermission.
	open(g *guard.Guard, e *env, img *os.File, name string, readOnly bool) (formatVolume, error)
	// dump prints what the format's cryptsetup dump prints about img.
	dump(g *guard.Guard, e *env, img *os.File, name string) error
}

// volumeFormat is what one format contributes to the verbs.
type volumeFormat struct {
	// name is the command word (xts NAME VERB) and --type's value;
	// title names the format in usage texts.
	name, title string
	// secret describes the format's secret flags for the usage lines.
	secret string
	// options registers the format's flags on fs for the verb cmd and
	// returns where they land.
	options func(fs *cmdFlags, cmd string) formatOptions
	// more lists the format's own verbs (create, change-key...), after
	// the shared ones.
	more []formatCommand
}

type formatCommand struct {
	name, synopsis string
	run            func(e *env, f *volumeFormat, args []string) error
}

// formats lists the formats the verbs serve: the one place a format is
// added. Each entry's file holds its flags and open.
var formats = []*volumeFormat{luksFormat, tcryptFormat, bitlkFormat, fvault2Format}

func formatByName(name string) *volumeFormat {
	for _, f := range formats {
		if f.name == name {
			return f
		}
	}
	return nil
}

func formatNames() string {
	var names []string
	for _, f := range formats {
		names = append(names, f.name)
	}
	return strings.Join(names, ", ")
}

// sharedVerbs are the verbs every format has.
var sharedVerbs = []formatCommand{
	{"dump", "IMAGE", runFormatDump},
	{"decrypt", "[--force] [-v] IMAGE OUTPUT", runFormatDecrypt},
	{"serve", "(--socket PATH | --listen HOST:PORT) [--readonly] [--run CMD] IMAGE", runFormatServe},
	{"mount", "[--readonly] IMAGE DIR", runFormatMount},
}

func (f *volumeFormat) verbs() []formatCommand {
	return append(sharedVerbs[:len(sharedVerbs):len(sharedVerbs)], f.more...)
}

func (f *volumeFormat) usage() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: xts %s COMMAND [flags] ARGS\n\n%s images, opened in user space (no root, no device-mapper):\n\n", f.name, f.title)
	for _, v := range f.verbs() {
		fmt.Fprintf(&b, "  xts %s %-10s %s\n", f.name, v.name, v.synopsis)
	}
	fmt.Fprintf(&b, "\nSecrets: %s\nRun 'xts %s COMMAND --help' for a command's flags.\n\n%s", f.secret, f.name, exitHelp)
	return b.String()
}

// runFormat runs one verb of format f; it returns the command's name for
// messages ("tcrypt serve") and its error.
func runFormat(e *env, f *volumeFormat, args []string) (string, error) {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, f.usage())
		return f.name, usagef("want a subcommand: %s", f.verbList())
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(e.stdout, f.usage())
		return f.name, errHelpShown
	}
	for _, v := range f.verbs() {
		if v.name == sub {
			return f.name + " " + sub, v.run(e, f, rest)
		}
	}
	return f.name, usagef("unknown subcommand %q: want %s", sub, f.verbList())
}

func (f *volumeFormat) verbList() string {
	var names []string
	for _, v := range f.verbs() {
		names = append(names, v.name)
	}
	return strings.Join(names, ", ")
}

// verbFlags makes the flag set of xts NAME VERB with the format's flags.
func (f *volumeFormat) verbFlags(e *env, verb, synopsis, text string) (*cmdFlags, formatOptions) {
	cmd := f.name + " " + verb
	usage := fmt.Sprintf("Usage: xts %s [secret flags] %s\n\n%s\nSecrets: %s\n", cmd, synopsis, text, f.secret)
	fs := newFlagSet(cmd, usage, e.stdout)
	return fs, f.options(fs, cmd)
}

// openImage opens IMAGE for reading, or reading and writing, and takes
// the image lock the servers take (shared when read-only).
func openImage(image string, write bool) (*os.File, error) {
	if image == "-" {
		return nil, usagef("IMAGE must be a file or a block device, not standard input")
	}
	flag := os.O_RDONLY
	if write {
		flag = os.O_RDWR
	}
	img, err := os.OpenFile(image, flag, 0)
	if err != nil {
		return nil, exit.With(exitWrongDevice, fmt.Errorf("image: %w", err))
	}
	if err := lockImage(img, write); err != nil {
		img.Close()
		return nil, err
	}
	return img, nil
}

func runFormatDump(e *env, f *volumeFormat, args []string) error {
	fs, o := f.verbFlags(e, "dump", "IMAGE", "Prints what cryptsetup's dump of the image prints.\n")
	image, err := parseImage(fs, args)
	if err != nil {
		return err
	}
	if err := o.check(); err != nil {
		return err
	}
	g := e.guard(f.name + " dump")
	defer g.Stop()
	img, err := openImage(image, false)
	if err != nil {
		return err
	}
	defer img.Close()
	return o.dump(g, e, img, image)
}

func runFormatDecrypt(e *env, f *volumeFormat, args []string) error {
	fs, o := f.verbFlags(e, "decrypt", "[--force] [-v] IMAGE OUTPUT", `Unlocks IMAGE and writes its whole decrypted volume to OUTPUT (a file, or -
for standard output). A file OUTPUT appears only once complete and flushed
to disk; on any error or signal nothing is left. A wrong secret exits 2.
`)
	var force, verbose bool
	fs.BoolVar(&force, "force", false, "replace OUTPUT if it exists")
	fs.BoolVar(&verbose, "v", false, "print the unlock time and the throughput at the end")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("want IMAGE and OUTPUT, got %d argument(s)", len(pos))
	}
	if err := o.check(); err != nil {
		return err
	}
	cmd := f.name + " decrypt"
	g := e.guard(cmd)
	defer g.Stop()
	img, err := openImage(pos[0], false)
	if err != nil {
		return err
	}
	defer img.Close()
	// The output first: an existing file or a bad path is reported before
	// the passphrase prompt and the key derivation.
	inInfo, _ := img.Stat()
	out, err := g.Create(guard.Spec{Path: pos[1], Force: force, Input: inInfo, Stdout: e.stdout})
	if err != nil {
		return err
	}
	start := time.Now()
	v, err := o.open(g, e, img, pos[0], true)
	if err != nil {
		return g.Abort(err)
	}
	defer v.Close()
	unlock := time.Since(start)

	d, err := pumpVolume(g, e, v, out)
	if err != nil {
		return err
	}
	if verbose {
		fmt.Fprintf(e.stderr, "xts %s: unlocked in %.3f s; %d bytes in %.3f s, %.0f MB/s (%d threads)\n",
			cmd, unlock.Seconds(), v.Size(), d.Seconds(), float64(v.Size())/d.Seconds()/1e6, runtime.GOMAXPROCS(0))
	}
	return nil
}

func runFormatServe(e *env, f *volumeFormat, args []string) error {
	fs, o := f.verbFlags(e, "serve", "(--socket PATH | --listen HOST:PORT) [--readonly] [--run CMD] IMAGE", `Unlocks IMAGE and serves its decrypted volume over NBD, without root:
nbdcopy, qemu-img, qemu-io, nbdfuse or nbd-client read and write the
plaintext while it stays encrypted on disk. Writes are encrypted before
they reach IMAGE; a FLUSH fsyncs it.

`+serveFlagsHelp)
	var so serveOptions
	so.flags(fs)
	image, err := parseImage(fs, args)
	if err != nil {
		return err
	}
	if err := o.check(); err != nil {
		return err
	}
	if err := so.validate(); err != nil {
		return err
	}
	cmd := f.name + " serve"
	img, err := openImage(image, !so.readOnly)
	if err != nil {
		return err
	}
	defer img.Close()
	v, err := func() (formatVolume, error) {
		// The guard lasts only for the unlock: serveExport handles the
		// signals once serving.
		g := e.guard(cmd)
		defer g.Stop()
		return o.open(g, e, img, image, so.readOnly)
	}()
	if err != nil {
		return err
	}
	defer v.Close()
	return serveExport(e, cmd, &formatBackend{v: v, img: img, readOnly: so.readOnly || volumeReadOnly(v)}, image, &so)
}

// volumeReadOnly reports a volume that its format opens read-only
// whatever was asked (TrueCrypt's LRW and CBC volumes): served and
// mounted read-only.
func volumeReadOnly(v formatVolume) bool {
	ro, ok := v.(interface{ ReadOnly() bool })
	return ok && ro.ReadOnly()
}

// formatBackend serves a formatVolume over NBD; Flush fsyncs the image,
// which every write reaches through the one *os.File.
type formatBackend struct {
	v        formatVolume
	img      *os.File
	readOnly bool
}

func (b *formatBackend) Size() int64                              { return b.v.Size() }
func (b *formatBackend) BlockSize() int                           { return b.v.SectorSize() }
func (b *formatBackend) ReadOnly() bool                           { return b.readOnly }
func (b *formatBackend) ReadAt(p []byte, off int64) (int, error)  { return b.v.ReadAt(p, off) }
func (b *formatBackend) WriteAt(p []byte, off int64) (int, error) { return b.v.WriteAt(p, off) }

func (b *formatBackend) Flush() error {
	if b.readOnly {
		return nil
	}
	return b.img.Sync()
}

func runFormatMount(e *env, f *volumeFormat, args []string) error {
	fs, o := f.verbFlags(e, "mount", "[--readonly] IMAGE DIR", `Unlocks IMAGE and shows its decrypted volume as the file DIR/volume, over
FUSE: no root and no device-mapper where fusermount3 works. What is written
to DIR/volume is encrypted into IMAGE as it comes; fsync on it flushes IMAGE
to disk. The command stays in the foreground until 'fusermount3 -u DIR' or
a signal (SIGINT, SIGTERM, SIGHUP); it then unmounts DIR, flushes IMAGE and
wipes the keys. A filesystem inside opens with e.g. 'fuse2fs DIR/volume MNT'.
`)
	var readOnly bool
	fs.BoolVar(&readOnly, "readonly", false, "show DIR/volume read-only (IMAGE is opened read-only)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("want IMAGE and DIR, got %d argument(s)", len(pos))
	}
	if err := o.check(); err != nil {
		return err
	}
	image, dir := pos[0], pos[1]
	if err := checkMountPoint(dir); err != nil {
		return err
	}
	cmd := f.name + " mount"
	g := e.guard(cmd)
	defer g.Stop()
	img, err := openImage(image, !readOnly)
	if err != nil {
		return err
	}
	defer img.Close()
	v, err := o.open(g, e, img, image, readOnly)
	if err != nil {
		return err
	}
	defer v.Close()
	return mountVolume(g, e, cmd, image, dir, syncedVolume{v, img}, v.Size(), img, readOnly || volumeReadOnly(v))
}

// checkMountPoint checks, before any secret is asked for, that DIR is a
// directory and that FUSE can be used: there is no point unlocking what
// cannot be shown.
func checkMountPoint(dir string) error {
	if st, err := os.Stat(dir); err != nil {
		return exit.With(exitWrongDevice, fmt.Errorf("mount point: %w", err))
	} else if !st.IsDir() {
		return exit.Errorf(exitWrongDevice, "mount point %s is not a directory", dir)
	}
	if err := fusefile.Available(); err != nil {
		return exit.With(exitFailure, err)
	}
	return nil
}

// decryptVolume is what pumpVolume reads: a decrypted volume of any format.
// Its ReadAt may be called from several goroutines at once.
type decryptVolume interface {
	io.ReaderAt
	Size() int64
}

// pumpVolume writes the whole decrypted volume to out (the guard's
// output) and commits the output; it returns the time that took. On
// error or signal the output is removed (the guard's Abort), and no
// ReadAt of v is in progress when it returns.
//
// A file output is written at offsets (pumpAt); standard output, which
// has none, in order (pumpOrdered).
func pumpVolume(g *guard.Guard, e *env, v decryptVolume, out *guard.Output) (time.Duration, error) {
	start := time.Now()
	bar := progress.New(e.stderr, "decrypting", v.Size())
	var err error
	if out.Positional() {
		err = pumpAt(g.Context(), v, out, decryptWorkers(), bar.Add)
	} else {
		err = pumpOrdered(g.Context(), v, out, bar.Add)
	}
	bar.Finish()
	if err != nil {
		return 0, g.Abort(err)
	}
	if err := g.Commit(); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// decryptChunk is what one worker of pumpAt reads, decrypts and writes in
// one step: small enough that the chunk is still in the core's cache (1
// MiB of L2 on Zen 5) when it is written, large enough that the system
// calls do not count.
const decryptChunk = 512 << 10

// decryptWorkers is how many workers pumpAt runs: one per core, up to 4.
// The kernel serialises the writes to one file (its inode lock), so a
// worker mostly reads and decrypts its next chunk while another writes;
// beyond a few they would only wait for the lock.
func decryptWorkers() int { return min(runtime.GOMAXPROCS(0), 4) }

// pumpAt writes the whole of v to out at the same offsets. Each of workers
// goroutines takes the next chunk in turn, reads it (the volume decrypts it
// in place) and writes it, with no hand-over between goroutines, its
// buffer from one mapping on huge pages (few page faults). On the
// 100 MiB BitLocker image (Zen 5 VM, output in /dev/shm) this and the
// in-place decryption of internal/volume took a decrypt from 0.36 to
// 0.15 s (medians, loaded machine; scripts/bitlk-bench.sh), where the
// ordered pump swapped 8 MiB chunks between a reader and a writer and
// faulted in 16 MiB of fresh buffers at 18 µs a page. It returns the first
// error, or ctx's once it ends, after every worker has stopped (each
// finishes the chunk it has); add counts the bytes written. Mapping a
// tmpfs output and reading straight into it (no writes) was tried and is
// 4-6 times slower on that VM, whose every fresh user page costs a trap
// to the host on first touch (bitlocker/README.md, Speed).
func pumpAt(ctx context.Context, v decryptVolume, out io.WriterAt, workers int, add func(int64)) error {
	size := v.Size()
	workers = max(1, min(workers, int((size+decryptChunk-1)/decryptChunk)))
	// Outside the heap: no garbage collection for them; released once
	// every worker has stopped.
	bufs, release := pump.MappedBuffers(workers, decryptChunk)
	defer release()
	var next atomic.Int64 // the offset of the next chunk to take
	var failed atomic.Bool
	// The writes take no lock of ours: the kernel's inode lock orders
	// them, and a worker waiting for it spins on the core the writer
	// leaves it rather than sleeping and being woken through the
	// scheduler. With a mutex here, the 100 MiB BitLocker decrypt took
	// 0.061-0.063 s and 0.094-0.099 s of CPU; without, 0.053-0.058 s and
	// 0.081-0.090 s (medians of 15 and 21 interleaved runs,
	// scripts/bitlk-bench.sh with BASE, Zen 5 VM).
	errs := make(chan error, workers)
	for _, buf := range bufs {
		go func() {
			errs <- func() error {
				for !failed.Load() {
					if err := ctx.Err(); err != nil {
						return err
					}
					off := next.Add(decryptChunk) - decryptChunk
					if off >= size {
						return nil
					}
					b := buf[:min(decryptChunk, size-off)]
					n, err := v.ReadAt(b, off)
					if err == io.EOF && n == len(b) {
						err = nil
					} else if err == nil && n < len(b) {
						err = io.ErrUnexpectedEOF
					}
					if err == nil {
						_, err = out.WriteAt(b, off)
					}
					if err != nil {
						return err
					}
					add(int64(len(b)))
				}
				return nil // another worker failed and says why
			}()
		}()
	}
	var first error
	for range workers {
		if err := <-errs; err != nil {
			failed.Store(true)
			if first == nil {
				first = err
			}
		}
	}
	for _, b := range bufs {
		clear(b) // they held decrypted data
	}
	return first
}

// pumpOrdered writes the whole of v to out in order, decrypting one chunk
// (on every core) while the other is written.
func pumpOrdered(ctx context.Context, v decryptVolume, out io.Writer, add func(int64)) error {
	p := &pump.Pump{
		Size:      v.Size(),
		ChunkSize: luksChunk,
		Buffers:   2, // one decrypted while the other is written
		Read: func(buf []byte, off int64) (int, error) {
			n, err := v.ReadAt(buf, off) // decrypts, on every core
			if err == io.EOF && n == len(buf) {
				err = nil
			}
			return n, err
		},
		W:        out,
		Progress: add,
	}
	_, err := p.Run(ctx)
	return err
}

// mountVolume shows v as DIR/volume until fusermount3 -u or a signal (on
// g), then unmounts and flushes img unless readOnly.
func mountVolume(g *guard.Guard, e *env, cmd, image, dir string, v fusefile.Backend, size int64, img *os.File, readOnly bool) error {
	m, err := fusefile.New(dir, v, fusefile.Options{ReadOnly: readOnly})
	if err != nil {
		return exit.With(exitFailure, err)
	}
	mode := "read-write"
	if readOnly {
		mode = "read-only"
	}
	fmt.Fprintf(e.stderr, "xts %s: %s (%d bytes, %s) is %s until 'fusermount3 -u %s' or a signal\n",
		cmd, image, size, mode, filepath.Join(dir, "volume"), dir)
	unmounted := make(chan struct{})
	go func() { m.Wait(); close(unmounted) }()
	select {
	case <-unmounted: // fusermount3 -u from outside
	case <-g.Context().Done():
		if err := unmountWhenFree(e, m, dir, unmounted); err != nil {
			return err
		}
	}
	if !readOnly {
		if err := img.Sync(); err != nil {
			return fmt.Errorf("flushing %s: %w", image, err)
		}
	}
	return nil
}

// syncedVolume is what DIR/volume shows: the volume's decrypted data,
// with fsync reaching the image file.
type syncedVolume struct {
	formatVolume
	img *os.File
}

func (s syncedVolume) Sync() error { return s.img.Sync() }

// typeFlag takes --type T (also --type=T, -M T) out of args. It returns
// the format, nil for plain or no --type, and args without the flag.
func typeFlag(args []string) (f *volumeFormat, rest []string, err error) {
	for i, a := range args {
		var t string
		switch {
		case a == "--":
			return nil, args, nil
		case a == "--type" || a == "-type" || a == "-M":
			if i+1 >= len(args) {
				return nil, nil, usagef("--type needs a value: %s or plain", formatNames())
			}
			t, rest = args[i+1], append(args[:i:i], args[i+2:]...)
		case strings.HasPrefix(a, "--type=") || strings.HasPrefix(a, "-type="):
			t, rest = a[strings.IndexByte(a, '=')+1:], append(args[:i:i], args[i+1:]...)
		default:
			continue
		}
		if t == "plain" {
			return nil, rest, nil
		}
		if f = formatByName(t); f == nil {
			return nil, nil, usagef("unknown --type %q: want %s or plain", t, formatNames())
		}
		return f, rest, nil
	}
	return nil, args, nil
}

// detectedFormat finds the format of the image among a dump's arguments
// (the first that is not a flag or a flag's value), as blkid would: LUKS,
// BitLocker and FileVault 2 have headers; VeraCrypt and plain dm-crypt do
// not, and need --type.
func detectedFormat(args []string) (*volumeFormat, error) {
	takesValue := map[string]bool{"-d": true, "--key-file": true, "-key-file": true, "--volume-key-file": true,
		"-volume-key-file": true, "--header": true, "-header": true, "-S": true, "--key-slot": true,
		"--keyfile-offset": true, "--keyfile-size": true, "-l": true}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if i+1 < len(args) {
				return detectFile(args[i+1])
			}
			break
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			if takesValue[a] {
				i++
			}
			continue
		}
		return detectFile(a)
	}
	return nil, usagef("want IMAGE")
}

func detectFile(path string) (*volumeFormat, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, exit.With(exitWrongDevice, fmt.Errorf("image: %w", err))
	}
	defer f.Close()
	t, err := detect.Detect(f)
	if err != nil {
		return nil, exit.Errorf(exitWrongDevice, "%s: %v (--type %s)", path, err, formatNames())
	}
	name := map[detect.Format]string{detect.LUKS1: "luks", detect.LUKS2: "luks", detect.BitLocker: "bitlk",
		detect.BitLockerToGo: "bitlk", detect.FVault2: "fvault2"}[t]
	if fm := formatByName(name); fm != nil {
		return fm, nil
	}
	return nil, exit.Errorf(exitWrongDevice, "%s: a %s image, which this build does not open", path, t)
}
