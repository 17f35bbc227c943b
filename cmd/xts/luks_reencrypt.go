package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fastxts/xts/cmd/xts/internal/exit"
	"github.com/fastxts/xts/cmd/xts/internal/guard"
	"github.com/fastxts/xts/cmd/xts/internal/progress"
	"github.com/fastxts/xts/internal/sector"
	"github.com/fastxts/xts/luks"
	"golang.org/x/term"
)

const luksReencryptUsage = `Usage: xts luks reencrypt [flags] IMAGE

Reencrypts the LUKS2 IMAGE in place, as cryptsetup reencrypt does (always
offline: --force-offline-reencrypt is accepted and changes nothing):

  (no mode flag)   a new volume key (and --cipher, --key-size, --sector-size)
  --encrypt        encrypts the plain IMAGE: --reduce-device-size 32M puts the
                   header in IMAGE (the data moves; the last SIZE bytes of
                   IMAGE must be unused), --header HDR writes a detached one
  --decrypt        decrypts IMAGE whose header is the detached HDR (--header)

Each hotzone is protected as --resilience says (checksum, journal, none;
datashift with --reduce-device-size) and its progress recorded in the
header: SIGINT or SIGTERM stops after the hotzone in flight ("Reencryption
interrupted.", exit 1), and after any interruption, SIGKILL or a crash too
(not with --resilience none), running the command again, this one's or
cryptsetup's, resumes. --init-only records the reencryption and stops;
--resume-only continues one and refuses to start another. With --key-file
IMAGE must have exactly one keyslot, or --key-slot N names the passphrase's
(the other keyslots are removed at the end, as cryptsetup does). LUKS1
images are converted to LUKS2 first (xts luks convert --type luks2).
Sizes take cryptsetup's units: 32M (MiB), 4K, 64S (512-byte sectors), 1MB (SI).
`

// reencryptOptions are the flags of xts luks reencrypt.
type reencryptOptions struct {
	pass                 passSpec
	kdf                  pbkdfFlags
	encrypt, decrypt     bool
	reduce, hotzone      string // sizes with cryptsetup's units
	header               string
	resilience, hash     string
	initOnly, resumeOnly bool
	cipher               string
	keyBits, sectorSize  int
	slot                 int
	batch, offline       bool
	typ                  string
	volumeKey            string
	uuid, label          string
	verbose              bool

	// From the flags by check.
	reduceBytes, hotzoneBytes uint64
}

func (o *reencryptOptions) flags(fs *cmdFlags) {
	o.pass.flags(fs)
	o.kdf.flags(fs)
	fs.BoolVar(&o.encrypt, "encrypt", false, "encrypt the plain IMAGE (in place with --reduce-device-size, or with a detached --header)")
	fs.alias("N", "encrypt")
	fs.BoolVar(&o.decrypt, "decrypt", false, "decrypt IMAGE (its header detached: --header)")
	fs.StringVar(&o.reduce, "reduce-device-size", "", "encrypt in place: the header takes the first `SIZE` bytes and the data moves towards the end (the last SIZE bytes must be unused; 32M is usual)")
	fs.StringVar(&o.header, "header", "", "detached header `FILE` (--encrypt: created)")
	fs.StringVar(&o.resilience, "resilience", "", "hotzone protection: checksum (default), journal or none; datashift with --reduce-device-size")
	fs.StringVar(&o.hash, "resilience-hash", "", "hash of the checksum resilience (default sha256)")
	fs.StringVar(&o.hotzone, "hotzone-size", "", "the most one step reencrypts, `SIZE` (a multiple of 4K; default 32M, journal: what its area holds)")
	fs.BoolVar(&o.initOnly, "init-only", false, "record the reencryption in the header and stop")
	fs.BoolVar(&o.resumeOnly, "resume-only", false, "resume the reencryption recorded in the header; never start one")
	fs.StringVar(&o.cipher, "cipher", "", "the new data cipher (default: the old one; --encrypt: aes-xts-plain64)")
	fs.alias("c", "cipher")
	fs.IntVar(&o.keyBits, "key-size", 0, "the new volume key's `BITS` (default: the old size; --encrypt: 512)")
	fs.alias("s", "key-size")
	fs.IntVar(&o.sectorSize, "sector-size", 0, "the new encryption sector size, 512 to 4096 (default: the old one; --encrypt: as cryptsetup chooses)")
	fs.IntVar(&o.slot, "key-slot", luks.AnyKeyslot, "the keyslot `N` of the passphrase; the others are removed at the end")
	fs.alias("S", "key-slot")
	fs.BoolVar(&o.batch, "batch-mode", false, "ask no questions (and ask a new passphrase only once)")
	fs.alias("q", "batch-mode")
	fs.BoolVar(&o.offline, "force-offline-reencrypt", false, "accepted for cryptsetup's command lines: this tool always reencrypts offline")
	fs.StringVar(&o.typ, "type", "luks2", "luks2 (LUKS1 images are converted first: xts luks convert --type luks2)")
	fs.alias("M", "type")
	fs.StringVar(&o.volumeKey, "volume-key-file", "", "the new volume key, raw, in `FILE` instead of a random one")
	fs.StringVar(&o.uuid, "uuid", "", "--encrypt: the new header's UUID")
	fs.StringVar(&o.label, "label", "", "--encrypt: the new header's label")
	fs.BoolVar(&o.verbose, "v", false, "print what was done, the time taken and the rate at the end")
}

// check refuses the flag combinations cryptsetup refuses (and those this
// tool does not support) before anything is opened.
func (o *reencryptOptions) check() error {
	switch o.typ {
	case "luks2":
	case "luks1":
		return errLUKS1Reencrypt("--type luks1")
	default:
		return usagef("--type %q: want luks2", o.typ)
	}
	if o.encrypt && o.decrypt {
		return usagef("--encrypt and --decrypt exclude each other")
	}
	if o.initOnly && o.resumeOnly {
		return usagef("--init-only and --resume-only exclude each other")
	}
	var err error
	if o.reduce != "" {
		if o.reduceBytes, err = parseCryptsetupSize("reduce-device-size", o.reduce); err != nil {
			return err
		}
		switch {
		case o.reduceBytes%512 != 0:
			return exit.Errorf(exitUsage, "Reduce size must be multiple of 512 bytes sector.")
		case o.reduceBytes > 1<<30:
			return exit.Errorf(exitUsage, "Maximum device reduce size is 1 GiB.")
		case !o.encrypt:
			return usagef("--reduce-device-size goes with --encrypt only (in-place encryption)")
		case o.header != "":
			return usagef("--reduce-device-size and --header exclude each other: the header goes either at the start of IMAGE or in HDR")
		}
	}
	if o.hotzone != "" {
		if o.hotzoneBytes, err = parseCryptsetupSize("hotzone-size", o.hotzone); err != nil {
			return err
		}
		if o.hotzoneBytes == 0 {
			return exit.Errorf(exitUsage, "Invalid max reencryption hotzone size specification.")
		}
		if o.hotzoneBytes%4096 != 0 {
			return exit.Errorf(exitUsage, "Hotzone size must be multiple of calculated zone alignment (4096 bytes).")
		}
	}
	switch o.resilience {
	case "", "checksum", "journal", "none":
	case "datashift":
		if o.reduceBytes == 0 {
			return usagef("--resilience datashift goes with --encrypt --reduce-device-size only")
		}
	default:
		return exit.Errorf(exitUsage, "Unsupported resilience mode %s", o.resilience)
	}
	if o.reduceBytes > 0 && o.resilience != "" && o.resilience != "datashift" {
		return usagef("--reduce-device-size moves the data: its resilience is datashift, not %s", o.resilience)
	}
	if o.hash != "" && o.resilience != "" && o.resilience != "checksum" {
		return usagef("--resilience-hash goes with --resilience checksum only")
	}
	if o.encrypt && o.reduceBytes == 0 && o.header == "" {
		return exit.Errorf(exitUsage, "Encryption without detached header (--header) is not possible without data device size reduction (--reduce-device-size).")
	}
	if o.keyBits < 0 || o.keyBits%8 != 0 {
		return exit.Errorf(exitUsage, "Key size must be a multiple of 8 bits")
	}
	if ss := o.sectorSize; ss != 0 && (ss < 512 || ss > 4096 || ss&(ss-1) != 0) {
		return exit.Errorf(exitUsage, "Unsupported encryption sector size.")
	}
	if o.cipher != "" {
		if _, err := sector.ParseSpec(o.cipher); err != nil {
			return usagef("--cipher: %v", err)
		}
	}
	if o.decrypt {
		if o.cipher != "" || o.keyBits != 0 || o.sectorSize != 0 || o.volumeKey != "" {
			return usagef("--decrypt leaves the data plain: --cipher, --key-size, --sector-size and --volume-key-file do not go with it")
		}
	}
	if !o.encrypt && (o.uuid != "" || o.label != "") {
		return usagef("--uuid and --label name the header --encrypt makes")
	}
	if o.slot < luks.AnyKeyslot || o.slot > 31 {
		return usagef("--key-slot %d: want 0 to 31", o.slot)
	}
	if o.encrypt && o.slot != luks.AnyKeyslot {
		return usagef("--key-slot: --encrypt puts the passphrase in keyslot 0")
	}
	return nil
}

// newParams lists the flags that set up a new reencryption, for the
// refusal when one is already recorded.
func (o *reencryptOptions) newParams() []string {
	var set []string
	for _, p := range []struct {
		name string
		on   bool
	}{
		{"--reduce-device-size", o.reduce != ""}, {"--cipher", o.cipher != ""}, {"--key-size", o.keyBits != 0},
		{"--sector-size", o.sectorSize != 0}, {"--volume-key-file", o.volumeKey != ""},
		{"--uuid", o.uuid != ""}, {"--label", o.label != ""}, {"--key-slot", o.slot != luks.AnyKeyslot},
		{"--resilience-hash", o.hash != ""},
	} {
		if p.on {
			set = append(set, p.name)
		}
	}
	return set
}

// luks1Error refuses LUKS1 (errors.Is luks.ErrUnsupported).
type luks1Error struct{ what string }

func (e *luks1Error) Error() string {
	return e.what + ": LUKS1 reencryption is not supported: convert the image to LUKS2 first (xts luks convert --type luks2 IMAGE, or cryptsetup convert --type luks2), then reencrypt it"
}
func (e *luks1Error) Unwrap() error { return luks.ErrUnsupported }

// errLUKS1Reencrypt is the refusal of LUKS1 (what names it).
func errLUKS1Reencrypt(what string) error {
	return exit.With(exitUsage, &luks1Error{what})
}

// parseCryptsetupSize parses a size as cryptsetup does: decimal digits
// and an optional unit, S (512-byte sectors), K, M, G or T (any case;
// powers of 1024, also spelled KiB, MiB, ...) or KB, MB, GB, TB (powers
// of 1000).
func parseCryptsetupSize(flagName, s string) (uint64, error) {
	bad := exit.Errorf(exitUsage, "Invalid size specification in parameter --%s.", flagName)
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, bad
	}
	n, err := strconv.ParseUint(s[:i], 10, 64)
	if err != nil {
		return 0, bad
	}
	unit := s[i:]
	if unit == "" {
		return n, nil
	}
	var exp int
	switch unit[0] | 0x20 {
	case 's':
		exp = -1
	case 'k':
		exp = 1
	case 'm':
		exp = 2
	case 'g':
		exp = 3
	case 't':
		exp = 4
	default:
		return 0, bad
	}
	base := uint64(1024)
	switch unit[1:] {
	case "", "iB":
	case "B":
		if exp < 0 {
			return 0, bad
		}
		base = 1000
	default:
		return 0, bad
	}
	mult := uint64(512)
	if exp > 0 {
		mult = 1
		for range exp {
			mult *= base
		}
	}
	if n > math.MaxUint64/mult {
		return 0, bad
	}
	return n * mult, nil
}

func runLUKSReencrypt(e *env, args []string) error {
	var o reencryptOptions
	fs := newFlagSet("luks reencrypt", luksReencryptUsage, e.stdout)
	o.flags(fs)
	image, err := parseImage(fs, args)
	if err != nil {
		return err
	}
	if err := o.check(); err != nil {
		return err
	}
	ko, err := o.kdf.options()
	if err != nil {
		return err
	}
	g := guard.Start(guard.Config{Stderr: e.stderr, Command: "luks reencrypt", Sync: e.sync,
		InPlace: "the image is resumable (run the command again, or with --resume-only)"})
	defer g.Stop()

	r := &reencryptRun{e: e, o: &o, g: g, image: image, kdf: ko}
	defer r.close()
	if err := r.open(); err != nil {
		return err
	}
	if r.state.inProgress {
		return r.resume()
	}
	return r.start()
}

// reencryptRun is one run of xts luks reencrypt.
type reencryptRun struct {
	e     *env
	o     *reencryptOptions
	g     *guard.Guard
	image string
	kdf   luks.KDFOptions

	img, hdev *os.File     // the data, and the header's device (img unless detached)
	h         *luks.Header // nil: IMAGE (or HDR) holds no LUKS header (--encrypt)
	state     reencryptState
	newHeader bool // --encrypt --header HDR where HDR does not exist yet: created here
}

// reencryptState is what the header says of a reencryption.
type reencryptState struct {
	inProgress       bool
	mode, resilience string
}

// stateOf reports the reencryption recorded in h: from the library's
// Reencryption, else (a header it cannot read that far) from the
// requirement flag and the reencrypt keyslot.
func stateOf(h *luks.Header) reencryptState {
	if re, ok := h.Reencryption(); ok {
		return reencryptState{true, re.Mode, re.Resilience}
	}
	var s reencryptState
	for _, r := range h.Config.Requirements {
		if strings.HasPrefix(r, "online-reencrypt") {
			s.inProgress = true
		}
	}
	for _, k := range h.Keyslots {
		if k.Type == "reencrypt" {
			s.inProgress, s.mode, s.resilience = true, k.Mode, k.Area.Type
		}
	}
	return s
}

func (r *reencryptRun) close() { closeBoth(r.img, r.hdev) }

// headerName is the file the header is in.
func (r *reencryptRun) headerName() string {
	if r.o.header != "" {
		return r.o.header
	}
	return r.image
}

// open opens IMAGE and HDR and reads the header, refusing what
// cryptsetup refuses before it writes anything.
func (r *reencryptRun) open() error {
	o := r.o
	if !o.encrypt {
		if o.decrypt && o.header == "" {
			return exit.Errorf(exitUsage, "LUKS2 decryption requires --header option.")
		}
		if o.decrypt {
			if _, err := os.Stat(o.header); errors.Is(err, fs.ErrNotExist) {
				return exit.Errorf(exitWrongDevice, "header %s does not exist: decrypting with the header exported from IMAGE (cryptsetup's header export) is not supported; give the detached header of IMAGE", o.header)
			}
		}
		img, hdev, h, err := openHeader(r.image, o.header, true)
		if err != nil {
			return err
		}
		r.img, r.hdev, r.h = img, hdev, h
		return r.checkHeader()
	}
	var err error
	if r.img, err = os.OpenFile(r.image, os.O_RDWR, 0); err != nil {
		return fmt.Errorf("image: %w", err)
	}
	r.hdev = r.img
	if o.header != "" {
		r.hdev, err = os.OpenFile(o.header, os.O_RDWR, 0)
		if errors.Is(err, fs.ErrNotExist) {
			r.hdev, r.newHeader = nil, true
			return nil
		}
		if err != nil {
			return fmt.Errorf("header: %w", err)
		}
	}
	h, err := luks.ReadHeader(r.hdev)
	if err != nil {
		if errors.Is(err, luks.ErrNotLUKS) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil // plain: to be encrypted
		}
		return luksError(fmt.Errorf("%s: %w", r.headerName(), err))
	}
	r.h = h
	return r.checkHeader()
}

// checkHeader refuses LUKS1 and a mode that conflicts with the
// reencryption recorded.
func (r *reencryptRun) checkHeader() error {
	o, h := r.o, r.h
	if h.Version == 1 {
		return errLUKS1Reencrypt("Device " + r.headerName() + " is LUKS1")
	}
	r.state = stateOf(h)
	if !r.state.inProgress {
		switch {
		case o.resumeOnly:
			return exit.Errorf(exitUsage, "Device reencryption not in progress.")
		case o.encrypt:
			return exit.Errorf(exitUsage, "Device %s is already LUKS device. Aborting operation.", r.headerName())
		}
		return nil
	}
	switch {
	case o.initOnly:
		return exit.Errorf(exitUsage, "LUKS2 reencryption already initialized. Aborting operation.")
	case o.encrypt && r.state.mode != "encrypt":
		return exit.Errorf(exitUsage, "Device is not in LUKS2 encryption. Conflicting option --encrypt.")
	case o.decrypt && r.state.mode != "decrypt":
		return exit.Errorf(exitUsage, "Device is not in LUKS2 decryption. Conflicting option --decrypt.")
	case o.resilience != "" && o.resilience != r.state.resilience:
		if r.state.resilience == "datashift" {
			return exit.Errorf(exitUsage, "Device is in reencryption using datashift resilience. Requested --resilience option cannot be applied.")
		}
		return usagef("--resilience %s: the reencryption recorded in %s uses %s, and resuming with another resilience is not supported", o.resilience, r.headerName(), r.state.resilience)
	}
	if set := o.newParams(); len(set) > 0 {
		return usagef("a reencryption is already recorded in %s and resumes as it was set up: %s do(es) not apply", r.headerName(), strings.Join(set, ", "))
	}
	return nil
}

// confirm asks question on the terminal, as cryptsetup does without
// --batch-mode: only "YES" goes on. Without a terminal it goes on.
func (r *reencryptRun) confirm(question string) error {
	if r.o.batch {
		return nil
	}
	if terminalWidth(r.e.stderr) == 0 {
		return nil
	}
	if f, ok := r.e.stdin.(*os.File); !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	fmt.Fprintf(r.e.stderr, "\nWARNING!\n========\n%s\n\nAre you sure? (Type 'yes' in capital letters): ", question)
	line, err := r.e.readLine()
	if err != nil || string(line) != "YES" {
		return exit.Errorf(exitUsage, "Operation aborted.")
	}
	return nil
}

// reencryptOptions turns the flags into the library's options.
func (r *reencryptRun) libOptions() (luks.ReencryptOptions, error) {
	o := r.o
	lo := luks.ReencryptOptions{Mode: "reencrypt", Resilience: o.resilience, Hash: o.hash, HotzoneSize: o.hotzoneBytes,
		Cipher: o.cipher, KeySize: o.keyBits / 8, SectorSize: o.sectorSize, KDF: r.kdf, Keyslot: o.slot,
		ReduceDeviceSize: o.reduceBytes}
	switch {
	case o.encrypt:
		lo.Mode = "encrypt"
		lo.Create = &luks.CreateOptions{UUID: o.uuid, Label: o.label, Detached: o.header != "", KDF: r.kdf}
		if o.reduceBytes > 0 {
			lo.Resilience = "datashift"
		}
	case o.decrypt:
		lo.Mode = "decrypt"
	}
	if o.volumeKey != "" {
		key, err := readKeyFile(o.volumeKey, 0, 0, nil)
		if err != nil {
			return lo, err
		}
		lo.VolumeKey = key
	}
	return lo, nil
}

// activeKeyslots are the ids of h's keyslots that hold a passphrase.
func activeKeyslots(h *luks.Header) []int {
	var ids []int
	for _, k := range h.Keyslots {
		if k.Active && k.Type != "reencrypt" {
			ids = append(ids, k.ID)
		}
	}
	return ids
}

// start records a new reencryption and runs it (unless --init-only).
func (r *reencryptRun) start() error {
	o := r.o
	var prompt string
	switch {
	case o.encrypt:
		if err := r.confirm(fmt.Sprintf("This will overwrite data on %s irrevocably.", r.image)); err != nil {
			return err
		}
		prompt = fmt.Sprintf("Enter passphrase for %s: ", r.image)
	default:
		ids := activeKeyslots(r.h)
		slot := o.slot
		switch {
		case slot != luks.AnyKeyslot:
			if !slices.Contains(ids, slot) {
				return exit.Errorf(exitUsage, "Keyslot %d is not active.", slot)
			}
		case len(ids) == 1:
			slot = ids[0]
		case o.pass.path != "":
			return exit.Errorf(exitUsage, "Key file can be used only with --key-slot or with exactly one key slot active.")
		default:
			return exit.Errorf(exitUsage, "%s has %d keyslots: cryptsetup would ask for every passphrase; this tool takes one, so give --key-slot N (the other keyslots are removed at the end)", r.headerName(), len(ids))
		}
		prompt = fmt.Sprintf("Enter passphrase for key slot %d: ", slot)
	}
	lo, err := r.libOptions()
	if err != nil {
		return err
	}
	defer clear(lo.VolumeKey)
	pass, err := r.o.pass.passphrase(r.e, prompt, o.encrypt && !o.batch)
	if err != nil {
		return err
	}
	defer clear(pass)
	if err := r.g.Err(); err != nil {
		return err // nothing written yet
	}
	if r.newHeader {
		f, err := os.OpenFile(o.header, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return fmt.Errorf("header: %w", err)
		}
		r.hdev = f
	}
	start := time.Now()
	_, err = luks.InitReencrypt(r.img, r.hdev, pass, lo)
	if err != nil {
		if r.newHeader {
			r.hdev.Close()
			os.Remove(o.header)
			r.hdev = nil
		}
		return reencryptError(err)
	}
	if err := r.sync(); err != nil {
		return err
	}
	if o.initOnly {
		return nil
	}
	return r.run(pass, lo, start)
}

// resume continues the reencryption recorded in the header.
func (r *reencryptRun) resume() error {
	if !r.o.resumeOnly {
		if err := r.confirm(fmt.Sprintf("Device %s is already in LUKS2 reencryption. Do you wish to resume previously initialised operation?", r.image)); err != nil {
			return err
		}
	}
	pass, err := r.o.pass.passphrase(r.e, fmt.Sprintf("Enter passphrase for %s: ", r.image), false)
	if err != nil {
		return err
	}
	defer clear(pass)
	if err := r.g.Err(); err != nil {
		return err
	}
	return r.run(pass, luks.ReencryptOptions{HotzoneSize: r.o.hotzoneBytes}, time.Now())
}

// run runs the recorded reencryption to its end or to a signal, with the
// progress on the terminal.
func (r *reencryptRun) run(pass []byte, lo luks.ReencryptOptions, start time.Time) error {
	label := "reencrypting"
	switch {
	case r.o.encrypt || r.state.mode == "encrypt":
		label = "encrypting"
	case r.o.decrypt || r.state.mode == "decrypt":
		label = "decrypting"
	}
	var (
		bar        *progress.Bar
		last, size uint64
	)
	lo.Progress = func(done, total uint64) {
		if bar == nil {
			bar = progress.New(r.e.stderr, label, int64(total))
		}
		if done > last {
			bar.Add(int64(done - last))
			last = done
		}
		size = total
	}
	err := luks.ResumeReencrypt(r.g.Context(), r.img, r.hdev, pass, lo)
	bar.Finish()
	if serr := r.sync(); err == nil {
		err = serr
	}
	if err != nil {
		if s := r.g.Signal(); s != 0 && errors.Is(err, context.Canceled) {
			return exit.Errorf(exitFailure, "Reencryption interrupted. (%s; the image is resumable: run the command again, or with --resume-only)", guard.SignalName(s))
		}
		return reencryptError(err)
	}
	if r.o.verbose {
		d := time.Since(start)
		fmt.Fprintf(r.e.stderr, "xts luks reencrypt: finished %s %s: %d bytes in %.3f s, %.0f MB/s\n",
			label, r.image, size, d.Seconds(), float64(size)/d.Seconds()/1e6)
	}
	return nil
}

// sync flushes the image and the header to disk.
func (r *reencryptRun) sync() error {
	flush := r.e.sync
	if flush == nil {
		flush = (*os.File).Sync
	}
	files := []*os.File{r.img}
	if r.hdev != nil && r.hdev != r.img {
		files = append(files, r.hdev)
	}
	for _, f := range files {
		if err := flush(f); err != nil {
			return fmt.Errorf("flushing %s to disk: %w", f.Name(), err)
		}
	}
	return nil
}

// reencryptError gives the library's errors cryptsetup's words and exit
// statuses.
func reencryptError(err error) error {
	switch {
	case errors.Is(err, luks.ErrReencryptMetadata):
		return exit.Errorf(exitUsage, "Failed to load LUKS2 reencryption context. (%w)", err)
	case errors.Is(err, luks.ErrUnsupported):
		return exit.With(exitUsage, err)
	}
	return luksError(err)
}
