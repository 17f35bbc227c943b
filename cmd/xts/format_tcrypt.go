package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/fastxts/xts/cmd/xts/internal/exit"
	"github.com/fastxts/xts/cmd/xts/internal/guard"
	"github.com/fastxts/xts/internal/volume"
	"github.com/fastxts/xts/veracrypt"
	"golang.org/x/term"
)

// tcryptFormat: VeraCrypt and TrueCrypt volumes, with cryptsetup's TCRYPT
// flags (tcryptDump, open --type tcrypt). -d names keyfiles here, not the
// password, as in cryptsetup's TCRYPT mode.
var tcryptFormat = &volumeFormat{
	name:  "tcrypt",
	title: "VeraCrypt and TrueCrypt",
	secret: "the password from the terminal, or one line of standard input (empty with keyfiles);\n" +
		"  -d/--key-file FILE (repeatable) VeraCrypt keyfiles; --veracrypt-pim N or --veracrypt-query-pim",
	options: func(fs *cmdFlags, cmd string) formatOptions {
		o := &tcryptOptions{}
		o.flags(fs)
		if cmd == "tcrypt dump" {
			fs.BoolVar(&o.dumpKey, "dump-volume-key", false, "also print the master key")
		}
		if cmd == "tcrypt serve" || cmd == "tcrypt mount" {
			fs.BoolVar(&o.protect, "protect-hidden", false, "writing the outer volume, refuse writes into its hidden volume, whose password is asked next (VeraCrypt's hidden volume protection)")
			fs.Var(&o.protectKeyfiles, "protect-hidden-key-file", "the hidden volume's keyfile `FILE` for --protect-hidden (repeatable)")
		}
		return o
	},
	more: []formatCommand{
		{"create", "[-q] [-h PRF] [-c CIPHER] [--veracrypt-pim N] [-d KEYFILE]... [--size SIZE] [--hidden-size SIZE] IMAGE", runTcryptCreate},
		{"change-key", "[-d KEYFILE]... [--new-key-file KEYFILE]... [--new-hash PRF] [--new-veracrypt-pim N] IMAGE", runTcryptChangeKey},
	},
}

// fileList is a repeatable flag of file names.
type fileList []string

func (l *fileList) String() string     { return fmt.Sprint([]string(*l)) }
func (l *fileList) Set(s string) error { *l = append(*l, s); return nil }

type tcryptOptions struct {
	keyfiles        fileList
	pim             int
	queryPIM        bool
	hidden          bool
	system          bool
	backup          bool
	noVeraCrypt     bool
	hash, cipher    string
	dumpKey         bool
	protect         bool
	protectKeyfiles fileList
}

func (o *tcryptOptions) flags(fs *cmdFlags) {
	fs.Var(&o.keyfiles, "key-file", "a VeraCrypt keyfile `FILE` (repeatable; the order does not matter)")
	fs.alias("d", "key-file")
	fs.IntVar(&o.pim, "veracrypt-pim", 0, "VeraCrypt's Personal Iterations Multiplier `N` (0: the default iterations)")
	fs.BoolVar(&o.queryPIM, "veracrypt-query-pim", false, "ask for the PIM (a line after the password)")
	fs.BoolVar(&o.hidden, "tcrypt-hidden", false, "open the hidden volume")
	fs.BoolVar(&o.system, "tcrypt-system", false, "a system-encrypted drive or partition (the header in the last sector of the first track)")
	fs.BoolVar(&o.backup, "tcrypt-backup", false, "use the backup header (at the end of the volume) instead of the primary one, as for a damaged primary header; without it only the primary header is tried, as in cryptsetup")
	fs.BoolVar(&o.noVeraCrypt, "disable-veracrypt", false, "try TrueCrypt headers only")
	fs.StringVar(&o.hash, "hash", "", "try only the PRFs whose name contains `PRF` (sha512, sha256, whirlpool, ripemd160, blake2s, stribog512, argon2id, sha1)")
	fs.alias("h", "hash")
	fs.StringVar(&o.cipher, "cipher", "", "try only the cipher chain `CHAIN` (aes, serpent-twofish-aes, ...; with or without -xts-plain64)")
	fs.alias("c", "cipher")
}

func (o *tcryptOptions) check() error {
	if o.pim < 0 {
		return usagef("--veracrypt-pim: must be 0 or more")
	}
	if (o.pim != 0 || o.queryPIM) && o.noVeraCrypt {
		return usagef("--veracrypt-pim goes with VeraCrypt volumes, not --disable-veracrypt")
	}
	if o.system && (o.hidden || o.backup) {
		return usagef("--tcrypt-system goes with neither --tcrypt-hidden nor --tcrypt-backup")
	}
	if o.protect && o.hidden {
		return usagef("--protect-hidden protects a hidden volume while the outer one is written: not with --tcrypt-hidden")
	}
	return nil
}

// veracryptPRF maps cryptsetup's names of the PRFs to the package's.
func veracryptPRF(h string) string {
	switch h {
	case "stribog512", "stribog":
		return "streebog"
	case "blake2s-256":
		return "blake2s"
	}
	return h
}

// veracryptCipher drops cryptsetup's mode suffix from a chain's name.
func veracryptCipher(c string) string {
	for _, suffix := range []string{"-xts-plain64", "-xts"} {
		if len(c) > len(suffix) && c[len(c)-len(suffix):] == suffix {
			return c[:len(c)-len(suffix)]
		}
	}
	return c
}

// credentials reads the password (and the PIM when asked) and the
// keyfiles, and makes Open's options.
func (o *tcryptOptions) credentials(e *env, name string, readOnly bool) ([]byte, *veracrypt.Options, error) {
	kf, err := readKeyfiles(o.keyfiles)
	if err != nil {
		return nil, nil, err
	}
	pass, err := tcryptPassword(e, fmt.Sprintf("Enter passphrase for %s: ", name), len(kf) > 0, false)
	if err != nil {
		return nil, nil, err
	}
	pim := o.pim
	if o.queryPIM {
		if pim, err = readPIM(e); err != nil {
			clear(pass)
			return nil, nil, err
		}
	}
	return pass, &veracrypt.Options{PRF: veracryptPRF(o.hash), Cipher: veracryptCipher(o.cipher), PIM: pim,
		Keyfiles: kf, Hidden: o.hidden, System: o.system, Backup: o.backup, NoVeraCrypt: o.noVeraCrypt,
		ReadOnly: readOnly}, nil
}

func (o *tcryptOptions) open(g *guard.Guard, e *env, img *os.File, name string, readOnly bool) (formatVolume, error) {
	pass, opts, err := o.credentials(e, name, readOnly)
	if err != nil {
		return nil, err
	}
	defer clear(pass)
	if o.protect && !readOnly {
		kf, err := readKeyfiles(o.protectKeyfiles)
		if err != nil {
			return nil, err
		}
		hp, err := tcryptPassword(e, "Enter the hidden volume's passphrase (to protect it): ", len(kf) > 0, false)
		if err != nil {
			return nil, err
		}
		defer clear(hp)
		opts.Protect = &veracrypt.Credentials{Password: hp, Keyfiles: kf, PIM: opts.PIM, PRF: opts.PRF}
	}
	var v *veracrypt.Volume
	err = g.Interruptible(func() error {
		var err error
		v, err = veracrypt.Open(img, pass, opts)
		return tcryptError(err)
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

func (o *tcryptOptions) dump(g *guard.Guard, e *env, img *os.File, name string) error {
	pass, opts, err := o.credentials(e, name, true)
	if err != nil {
		return err
	}
	defer clear(pass)
	var h *veracrypt.Header
	err = g.Interruptible(func() error {
		var err error
		h, err = veracrypt.ReadHeader(img, pass, opts)
		return tcryptError(err)
	})
	if err != nil {
		return err
	}
	defer clear(h.KeyArea[:])
	dumpTcrypt(e.stdout, name, h, o.dumpKey)
	return nil
}

// dumpTcrypt prints the header's fields as cryptsetup tcryptDump does.
func dumpTcrypt(w io.Writer, name string, h *veracrypt.Header, key bool) {
	kind := "VERACRYPT"
	if h.TrueCrypt {
		kind = "TCRYPT"
	}
	fmt.Fprintf(w, "%s header information for %s\n", kind, name)
	if h.Version != 0 {
		fmt.Fprintf(w, "Version:        \t%d\n", h.Version)
		fmt.Fprintf(w, "Driver req.:\t%x.%x\n", h.MinProgramVersion>>8, h.MinProgramVersion&0xff)
		ss := h.SectorSize
		if ss == 0 {
			ss = 512
		}
		fmt.Fprintf(w, "Sector size:\t%d\n", ss)
		off := h.EncryptedAreaStart
		if off == 0 {
			off = 512 // headers before TrueCrypt 6.0: the data follows the header
		}
		fmt.Fprintf(w, "MK offset:\t%d\n", off)
	}
	fmt.Fprintf(w, "PBKDF2 hash:\t%s\n", cryptsetupPRF(h.PRF))
	chain, mode, bits := h.Cryptsetup()
	fmt.Fprintf(w, "Cipher chain:\t%s\n", chain)
	fmt.Fprintf(w, "Cipher mode:\t%s\n", mode)
	fmt.Fprintf(w, "MK bits:       \t%d\n", bits)
	if key {
		// The key area's first MK bits, as the line above counts them
		// (for XTS and LRW the master key).
		mk := append([]byte(nil), h.KeyArea[:min(bits/8, len(h.KeyArea))]...)
		defer clear(mk)
		fmt.Fprintf(w, "MK dump:\t")
		hexLines(w, mk, "\t\t")
	}
}

// cryptsetupPRF names a PRF as cryptsetup does.
func cryptsetupPRF(p string) string {
	switch p {
	case "streebog":
		return "stribog512"
	case "blake2s":
		return "blake2s-256"
	}
	return p
}

// tcryptError gives package veracrypt's errors cryptsetup's exit statuses
// and words.
func tcryptError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, veracrypt.ErrPassword):
		return exit.Errorf(exitPermission, "No device header detected with this passphrase (%v).", err)
	}
	return err
}

// readKeyfiles reads the keyfiles' contents (VeraCrypt uses the first
// MiB of each; more is not read).
func readKeyfiles(paths []string) ([][]byte, error) {
	var kf [][]byte
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, exit.With(exitUsage, fmt.Errorf("keyfile: %w", err))
		}
		b, err := io.ReadAll(io.LimitReader(f, 1<<20))
		f.Close()
		if err != nil {
			return nil, exit.With(exitUsage, fmt.Errorf("keyfile %s: %w", p, err))
		}
		kf = append(kf, b)
	}
	return kf, nil
}

// errTcryptEmpty refuses an empty password without keyfiles.
var errTcryptEmpty = exit.Errorf(exitUsage, "empty passphrase (an empty one goes only with keyfiles, -d)")

// maxTcryptPassword is VeraCrypt's longest password (TrueCrypt's is 64).
const maxTcryptPassword = 128

// tcryptPassword reads a password from the terminal (without echo), or
// one line of standard input when it is not a terminal. It may be empty
// only when keyfiles are given; verify asks twice on a terminal.
func tcryptPassword(e *env, prompt string, allowEmpty, verify bool) ([]byte, error) {
	var pass []byte
	if f, ok := e.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		var emptyErr error
		if !allowEmpty {
			emptyErr = errTcryptEmpty
		}
		var err error
		if pass, err = terminalPass(e, f, prompt, verify, emptyErr); err != nil {
			return nil, err
		}
	} else {
		line, err := e.rawLine()
		if err != nil {
			return nil, err
		}
		pass = line
	}
	switch {
	case len(pass) == 0 && !allowEmpty:
		return nil, errTcryptEmpty
	case len(pass) > maxTcryptPassword:
		clear(pass)
		return nil, exit.Errorf(exitUsage, "passphrase of %d bytes: VeraCrypt takes at most %d (TrueCrypt %d)", len(pass), maxTcryptPassword, 64)
	}
	return pass, nil
}

// rawLine reads one line of standard input (the newline dropped), which
// may be empty, from the buffer readLine shares.
func (e *env) rawLine() ([]byte, error) {
	if e.lines == nil {
		e.lines = bufio.NewReader(e.stdin)
	}
	line, err := e.lines.ReadBytes('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("reading the passphrase from standard input: %w", err)
	}
	if err != nil && len(line) == 0 {
		return nil, exit.Errorf(exitUsage, "no passphrase on standard input")
	}
	return bytes.TrimSuffix(line, []byte("\n")), nil
}

// readPIM reads the PIM (--veracrypt-query-pim): a line of digits.
func readPIM(e *env) (int, error) {
	if f, ok := e.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(e.stderr, "Enter VeraCrypt PIM: ")
	}
	line, err := e.rawLine()
	if err != nil {
		return 0, err
	}
	pim, err := strconv.Atoi(string(line))
	if err != nil || pim < 0 {
		return 0, exit.Errorf(exitUsage, "Invalid PIM value: not a number of 0 or more.")
	}
	return pim, nil
}

func runTcryptCreate(e *env, f *volumeFormat, args []string) error {
	cmd := "tcrypt create"
	fs := newFlagSet(cmd, `Usage: xts tcrypt create [-q] [-h PRF] [-c CIPHER] [--veracrypt-pim N] [-d KEYFILE]...
                         [--size SIZE] [--hidden-size SIZE] IMAGE

Makes a new VeraCrypt volume: IMAGE, an existing file or device that the
volume fills (asking first on a terminal, unless -q), or a new file of
--size. The password is asked for (twice on a terminal; one line of
standard input otherwise), then, with --hidden-size, the hidden volume's
(the next line). Defaults are VeraCrypt's: sha512, aes, PIM 0. The data
area holds no filesystem: open it (xts tcrypt mount, serve) and make one.
A new file appears only once complete and flushed; on any error or signal
nothing is left.
`, e.stdout)
	var (
		keyfiles, hiddenKeyfiles fileList
		hash, cipher, size       string
		hiddenSize               string
		pim, sectorSize          int
		batch, fill              bool
	)
	fs.Var(&keyfiles, "key-file", "a keyfile `FILE` (repeatable)")
	fs.alias("d", "key-file")
	fs.Var(&hiddenKeyfiles, "hidden-key-file", "a keyfile `FILE` of the hidden volume (repeatable)")
	fs.StringVar(&hash, "hash", "sha512", "the header's `PRF`: sha512, sha256, whirlpool, blake2s, stribog512, ripemd160, argon2id")
	fs.alias("h", "hash")
	fs.StringVar(&cipher, "cipher", "aes", "the cipher `CHAIN`: aes, serpent, twofish, camellia, kuznyechik or a cascade (aes-twofish-serpent...)")
	fs.alias("c", "cipher")
	fs.IntVar(&pim, "veracrypt-pim", 0, "the Personal Iterations Multiplier `N` (0: VeraCrypt's default)")
	fs.StringVar(&size, "size", "", "make IMAGE a new file of `SIZE` (cryptsetup's units: 512-byte sectors with S, K, M, G, T)")
	fs.StringVar(&hiddenSize, "hidden-size", "", "also make a hidden volume of `SIZE` at the end of the outer one")
	fs.IntVar(&sectorSize, "sector-size", 512, "the volume's sector size in `BYTES` (512 or 4096)")
	fs.BoolVar(&fill, "fill", false, "fill the data area with random bytes (VeraCrypt's full format) instead of leaving it as it is")
	batchFlag(fs, &batch)
	image, err := parseImage(fs, args)
	if err != nil {
		return err
	}
	if image == "-" {
		return usagef("IMAGE must be a file or a block device, not standard input")
	}
	if pim < 0 {
		return usagef("--veracrypt-pim: must be 0 or more")
	}
	var newSize, hsize uint64
	if size != "" {
		if newSize, err = parseCryptsetupSize("size", size); err != nil {
			return err
		}
	}
	if hiddenSize != "" {
		if hsize, err = parseCryptsetupSize("hidden-size", hiddenSize); err != nil {
			return err
		}
	}
	kf, err := readKeyfiles(keyfiles)
	if err != nil {
		return err
	}
	hkf, err := readKeyfiles(hiddenKeyfiles)
	if err != nil {
		return err
	}
	o := &veracrypt.CreateOptions{PRF: veracryptPRF(hash), Cipher: veracryptCipher(cipher), PIM: pim,
		Keyfiles: kf, SectorSize: sectorSize, Fill: fill}

	g := e.guard(cmd)
	defer g.Stop()
	var (
		dev     *os.File
		devSize int64
		commit  func() error
	)
	if size != "" {
		// A new file: written under a temporary name in IMAGE's folder,
		// renamed into place once complete and flushed.
		if _, err := os.Lstat(image); err == nil {
			return exit.Errorf(exitBusy, "%s exists: --size makes a new file (without --size the volume fills an existing one)", image)
		}
		tmp, err := os.CreateTemp(filepath.Dir(image), "."+filepath.Base(image)+".xts-*")
		if err != nil {
			return exit.With(exitWrongDevice, err)
		}
		done := false
		defer func() {
			if !done {
				tmp.Close()
				os.Remove(tmp.Name())
			}
		}()
		if err := tmp.Truncate(int64(newSize)); err != nil {
			return err
		}
		dev, devSize = tmp, int64(newSize)
		commit = func() error {
			if err := tmp.Sync(); err != nil {
				return err
			}
			if err := tmp.Close(); err != nil {
				return err
			}
			if err := os.Link(tmp.Name(), image); err != nil {
				return exit.With(exitBusy, fmt.Errorf("%s: %w", image, err))
			}
			os.Remove(tmp.Name())
			done = true
			return nil
		}
	} else {
		img, err := openImage(image, true)
		if err != nil {
			return err
		}
		defer img.Close()
		if devSize, err = volume.DeviceSize(img); err != nil {
			return fmt.Errorf("%s: %w", image, err)
		}
		ok, err := confirmOnTerminal(e, batch, fmt.Sprintf("WARNING!\n========\nThis will overwrite data on %s irrevocably.\n\nAre you sure? (Type 'yes' in capital letters): ", image))
		if err != nil {
			return err
		}
		if !ok {
			return exit.Errorf(exitPermission, "Operation aborted.")
		}
		dev, commit = img, img.Sync
	}
	pass, err := tcryptPassword(e, fmt.Sprintf("Enter passphrase for %s: ", image), len(kf) > 0, true)
	if err != nil {
		return err
	}
	defer clear(pass)
	if hiddenSize != "" {
		hp, err := tcryptPassword(e, "Enter the hidden volume's passphrase: ", len(hkf) > 0, true)
		if err != nil {
			return err
		}
		defer clear(hp)
		if bytes.Equal(hp, pass) && len(hkf) == 0 && len(kf) == 0 {
			return usagef("the hidden volume's password must differ from the outer volume's")
		}
		o.Hidden = &veracrypt.HiddenOptions{Password: hp, Keyfiles: hkf, PIM: pim, PRF: o.PRF, Cipher: o.Cipher, Size: int64(hsize)}
	}
	err = g.Interruptible(func() error { return veracrypt.Create(dev, devSize, pass, o) })
	if err != nil {
		return exit.With(exitFailure, err)
	}
	return commit()
}

func runTcryptChangeKey(e *env, f *volumeFormat, args []string) error {
	cmd := "tcrypt change-key"
	fs := newFlagSet(cmd, `Usage: xts tcrypt change-key [flags] IMAGE

Changes the password (and keyfiles, PIM or PRF) of a VeraCrypt or TrueCrypt
volume: the header the old password opens (--tcrypt-hidden: the hidden
volume's) and its backup are encrypted again under the new password with
new salts, the backup first. At every moment, a crash included, the volume
opens with the old password or the new one. The old password is asked for
first, then the new one (twice on a terminal; the next line of standard
input otherwise). The data is not touched.
`, e.stdout)
	o := &tcryptOptions{}
	o.flags(fs)
	var (
		newKeyfiles fileList
		newHash     string
		newPIM      int
	)
	fs.Var(&newKeyfiles, "new-key-file", "the new keyfile `FILE` (repeatable; none: no keyfiles)")
	fs.StringVar(&newHash, "new-hash", "", "the new header `PRF` (default: the old one)")
	fs.IntVar(&newPIM, "new-veracrypt-pim", 0, "the new PIM `N` (0: the default)")
	image, err := parseImage(fs, args)
	if err != nil {
		return err
	}
	if err := o.check(); err != nil {
		return err
	}
	if o.system {
		return usagef("change-key of a system drive: use VeraCrypt's boot loader tools")
	}
	g := e.guard(cmd)
	defer g.Stop()
	img, err := openImage(image, true)
	if err != nil {
		return err
	}
	defer img.Close()
	oldPass, opts, err := o.credentials(e, image, true)
	if err != nil {
		return err
	}
	defer clear(oldPass)
	nkf, err := readKeyfiles(newKeyfiles)
	if err != nil {
		return err
	}
	newPass, err := tcryptPassword(e, "Enter new passphrase: ", len(nkf) > 0, true)
	if err != nil {
		return err
	}
	defer clear(newPass)
	n := &veracrypt.ChangeOptions{PRF: veracryptPRF(newHash), PIM: newPIM, Keyfiles: nkf}
	err = g.Interruptible(func() error { return tcryptError(veracrypt.ChangeKey(img, oldPass, opts, newPass, n)) })
	if err != nil {
		return err
	}
	return img.Sync()
}
