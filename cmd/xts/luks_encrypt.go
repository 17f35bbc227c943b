package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/fastxts/xts/cmd/xts/internal/exit"
	"github.com/fastxts/xts/cmd/xts/internal/guard"
	"github.com/fastxts/xts/cmd/xts/internal/input"
	"github.com/fastxts/xts/cmd/xts/internal/progress"
	"github.com/fastxts/xts/cmd/xts/internal/pump"
	"github.com/fastxts/xts/internal/sector"
	"github.com/fastxts/xts/luks"
)

const luksEncryptUsage = `Usage: xts luks encrypt [-d FILE] [--type luks2|luks1] [-c CIPHER] [-s BITS] [--sector-size N]
                        [PBKDF flags] [--header HDR] [--label L] [--uuid U] [--volume-key-file VK] RAW OUTPUT

Makes a new LUKS image OUTPUT whose data segment is the file RAW, with one
keyslot (0) for the passphrase and cryptsetup 2.6's defaults for an image
file: LUKS2, aes-xts-plain64, a 512-bit key, 4096-byte sectors, a 16 MiB
header, argon2id benchmarked to 2 s (LUKS1: pbkdf2-sha256, 512-byte
sectors, a 2 MiB header). With --header the header goes to HDR and OUTPUT
holds only the encrypted data (offset 0). RAW's length must be a multiple
of the sector size; RAW - reads standard input to its end (then the
passphrase must come from --key-file FILE), as a named pipe is read. The outputs appear only once
complete and flushed to disk; on any error or signal nothing is left.
Without --key-file the passphrase is asked for twice.
`

// pbkdfFlags are cryptsetup's keyslot KDF flags.
type pbkdfFlags struct {
	kdf      string
	hash     string
	iterTime int
	memory   int
	parallel int
	forced   int
}

func (p *pbkdfFlags) flags(fs *cmdFlags) {
	fs.StringVar(&p.kdf, "pbkdf", "", "keyslot KDF: argon2id, argon2i or pbkdf2 (default argon2id for LUKS2, pbkdf2 for LUKS1)")
	fs.StringVar(&p.hash, "hash", "sha256", "hash for pbkdf2, the anti-forensic splitter and the digest: sha1, sha256, sha384, sha512, ripemd160, whirlpool")
	fs.IntVar(&p.iterTime, "iter-time", 2000, "benchmark the KDF cost to take `MS` milliseconds to unlock here (wall clock on an idle machine, as cryptsetup measures it; the benchmark counts CPU time, so a busy machine does not lower the cost)")
	fs.IntVar(&p.memory, "pbkdf-memory", 0, "argon2 memory cost in `KiB` (default 1048576, the most the benchmark uses)")
	fs.IntVar(&p.parallel, "pbkdf-parallel", 0, "argon2 parallel cost (default min(4, CPUs))")
	fs.IntVar(&p.forced, "pbkdf-force-iterations", 0, "force the cost instead of benchmarking: pbkdf2 iterations or argon2 time cost")
	fs.alias("i", "iter-time")
}

func (p *pbkdfFlags) options() (luks.KDFOptions, error) {
	switch p.kdf {
	case "", "argon2id", "argon2i", "pbkdf2":
	default:
		return luks.KDFOptions{}, usagef("--pbkdf %q: want argon2id, argon2i or pbkdf2", p.kdf)
	}
	if p.iterTime <= 0 || p.memory < 0 || p.parallel < 0 || p.forced < 0 {
		return luks.KDFOptions{}, usagef("--iter-time, --pbkdf-memory, --pbkdf-parallel and --pbkdf-force-iterations must be positive")
	}
	return luks.KDFOptions{Type: p.kdf, Hash: p.hash, IterTime: time.Duration(p.iterTime) * time.Millisecond,
		Iterations: p.forced, Memory: p.memory, Parallel: p.parallel}, nil
}

type luksEncryptOptions struct {
	pass       passSpec
	kdf        pbkdfFlags
	typ        string
	cipher     string
	keyBits    int
	sectorSize int
	header     string
	label      string
	uuid       string
	volumeKey  string
	force      bool
	verbose    bool
}

func runLUKSEncrypt(e *env, args []string) error {
	var o luksEncryptOptions
	fs := newFlagSet("luks encrypt", luksEncryptUsage, e.stdout)
	o.pass.flags(fs)
	o.kdf.flags(fs)
	fs.StringVar(&o.typ, "type", "luks2", "luks2 or luks1")
	fs.StringVar(&o.cipher, "cipher", "aes-xts-plain64", "`CIPHER`-xts-plain64, -xts-plain, -cbc-essiv:sha256, -cbc-plain64 or -cbc-plain, CIPHER aes, serpent, twofish or camellia")
	fs.alias("c", "cipher")
	fs.IntVar(&o.keyBits, "key-size", 0, "volume key `BITS`: 256, 384 or 512 for XTS (default 512), 128, 192 or 256 for CBC (default 256)")
	fs.alias("s", "key-size")
	fs.IntVar(&o.sectorSize, "sector-size", 0, "encryption sector size, 512 to 4096 (default 4096 for LUKS2, 512 for LUKS1)")
	fs.StringVar(&o.header, "header", "", "write the header to `FILE` (detached); OUTPUT then holds only the data")
	fs.StringVar(&o.label, "label", "", "LUKS2 label")
	fs.StringVar(&o.uuid, "uuid", "", "UUID instead of a random one")
	fs.StringVar(&o.volumeKey, "volume-key-file", "", "use the raw volume key in `FILE` instead of a random one")
	fs.BoolVar(&o.force, "force", false, "replace OUTPUT (and HDR) if they exist")
	fs.BoolVar(&o.verbose, "v", false, "print the KDF cost, the time taken and the throughput")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("want RAW and OUTPUT, got %d argument(s)", len(pos))
	}
	co, err := o.createOptions()
	if err != nil {
		return err
	}
	if pos[0] == "-" && (o.pass.path == "" || o.pass.path == "-") {
		return usagef("RAW - reads standard input: give the passphrase with --key-file FILE")
	}
	ss := co.DataSectorSize()
	raw, err := input.Open(pos[0], e.stdin)
	if err != nil {
		return err
	}
	defer raw.Close()
	if raw.Size >= 0 && (raw.Size == 0 || raw.Size%int64(ss) != 0) {
		return rawSizeError(raw, raw.Size, ss)
	}
	if co.VolumeKey != nil {
		defer clear(co.VolumeKey)
	}

	g := e.guard("luks encrypt")
	defer g.Stop()
	// The outputs first: an existing file or a bad path is reported
	// before the passphrase prompt and the KDF benchmark, not after.
	out, err := g.Create(guard.Spec{Path: pos[1], Force: o.force, Input: raw.Info, Stdout: e.stdout})
	if err != nil {
		return err
	}
	var hout *guard.Output
	if o.header != "" {
		if hout, err = g.Create(guard.Spec{Path: o.header, Force: o.force, Input: raw.Info, Stdout: e.stdout}); err != nil {
			return g.Abort(err)
		}
	}

	pass, err := o.pass.passphrase(e, fmt.Sprintf("Enter passphrase for %s: ", pos[1]), true)
	if err != nil {
		return g.Abort(err)
	}
	start := time.Now()
	var (
		hdr memDevice
		h   *luks.Header
		key []byte
	)
	err = g.Interruptible(func() error {
		defer clear(pass)
		var err error
		h, key, err = luks.Create(&hdr, pass, co)
		return luksError(err)
	})
	if err != nil {
		return g.Abort(err)
	}
	defer clear(key)
	created := time.Since(start)
	seg := h.Segments[0]
	sc, err := sector.NewLUKS(seg.Encryption, key, seg.SectorSize, seg.IVTweak)
	if err != nil {
		return g.Abort(fmt.Errorf("luks: %s: %w", seg.Encryption, err))
	}
	defer sc.Wipe()

	if hout == nil && int64(len(hdr.b)) != int64(h.Segments[0].Offset) {
		return g.Abort(fmt.Errorf("internal error: a %d-byte header area before data at %d", len(hdr.b), h.Segments[0].Offset))
	}
	hw := io.Writer(out)
	if hout != nil {
		hw = hout
	}
	if _, err := hw.Write(hdr.b); err != nil {
		return g.Abort(fmt.Errorf("writing the header: %w", err))
	}
	start = time.Now()
	bar := progress.New(e.stderr, "encrypting", raw.Size)
	p := &pump.Pump{
		Size:      raw.Size,
		ChunkSize: luksChunk,
		Buffers:   2, // one read and encrypted while the other is written
		Read: func(buf []byte, off int64) (int, error) {
			n, err := io.ReadFull(raw.R, buf)
			if (err == io.EOF || err == io.ErrUnexpectedEOF) && raw.Size < 0 {
				err = nil // the end of a stream
			}
			if err != nil {
				return 0, fmt.Errorf("reading %s: %w", raw.Name, err)
			}
			if n%sc.SectorSize() != 0 {
				return 0, rawSizeError(raw, off+int64(n), ss)
			}
			return n, nil
		},
		Transform: func(buf []byte, off int64) error {
			sc.Encrypt(buf, buf, uint64(off)/uint64(sc.SectorSize())) // on every core
			return nil
		},
		W:        out,
		Progress: bar.Add,
	}
	size, err := p.Run(g.Context())
	bar.Finish()
	if err == nil && size == 0 {
		err = rawSizeError(raw, 0, ss)
	}
	if err != nil {
		return g.Abort(err)
	}
	// Both outputs appear, or (after a signal or an error) neither.
	if err := g.Commit(); err != nil {
		return err
	}
	if o.verbose {
		d := time.Since(start)
		k := h.Keyslots[0].KDF
		cost := fmt.Sprintf("%s, %d iterations", k.Type, k.Iterations)
		if k.Type != "pbkdf2" {
			cost = fmt.Sprintf("%s, time %d, memory %d KiB, %d threads", k.Type, k.Time, k.Memory, k.CPUs)
		}
		fmt.Fprintf(e.stderr, "xts luks encrypt: LUKS%d %s, keyslot 0 (%s) made in %.3f s; %d bytes in %.3f s, %.0f MB/s\n",
			h.Version, h.Segments[0].Encryption, cost, created.Seconds(), size, d.Seconds(), float64(size)/d.Seconds()/1e6)
	}
	return nil
}

// createOptions turns the flags into luks.CreateOptions.
func (o *luksEncryptOptions) createOptions() (*luks.CreateOptions, error) {
	kdf, err := o.kdf.options()
	if err != nil {
		return nil, err
	}
	co := &luks.CreateOptions{Cipher: o.cipher, KeyBits: o.keyBits, SectorSize: o.sectorSize, KDF: kdf,
		Label: o.label, UUID: o.uuid, Detached: o.header != ""}
	switch o.typ {
	case "luks2":
		co.Version = 2
	case "luks1":
		co.Version = 1
		if o.label != "" {
			return nil, usagef("--label: LUKS1 headers have no label")
		}
	default:
		return nil, usagef("--type %q: want luks2 or luks1", o.typ)
	}
	if _, err := sector.ParseSpec(o.cipher); err != nil {
		return nil, usagef("--cipher: %v", err)
	}
	if o.volumeKey != "" {
		if co.VolumeKey, err = readKeyFile(o.volumeKey, 0, 0, nil); err != nil {
			return nil, err
		}
	}
	return co, nil
}

// rawSizeError reports a RAW of size bytes that is empty or not a
// multiple of the sector size ss.
func rawSizeError(raw *input.Input, size int64, ss int) error {
	if size == 0 {
		return exit.Errorf(exitWrongDevice, "input %s is empty", raw.Name)
	}
	return exit.Errorf(exitWrongDevice, "input %s holds %d bytes, not a multiple of the sector size %d (--sector-size)", raw.Name, size, ss)
}

// memDevice collects what luks.Create writes (the header area) in memory.
type memDevice struct{ b []byte }

func (m *memDevice) WriteAt(p []byte, off int64) (int, error) {
	if off < 0 || off+int64(len(p)) > 64<<20 {
		return 0, errors.New("header write outside the first 64 MiB")
	}
	if end := int(off) + len(p); end > len(m.b) {
		m.b = append(m.b, make([]byte, end-len(m.b))...)
	}
	return copy(m.b[off:], p), nil
}
