package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/fastxts/xts/cmd/xts/internal/exit"
	"github.com/fastxts/xts/cmd/xts/internal/guard"
	"github.com/fastxts/xts/luks"
	"golang.org/x/term"
)

// The header verbs: header-backup, header-restore, config, uuid and
// convert, with cryptsetup's flags, questions, messages and exit
// statuses (luksHeaderBackup, luksHeaderRestore, config, luksUUID,
// convert).

const luksHeaderBackupUsage = `Usage: xts luks header-backup --header-backup-file FILE [--header HDR] IMAGE

Writes the header backup of the LUKS image IMAGE (or of its detached header
HDR) to FILE: the bytes cryptsetup luksHeaderBackup writes (LUKS2 both header
copies and the keyslots area; LUKS1 the header and key material). FILE
appears only once complete and flushed, with mode 0400; an existing FILE is
refused. Whoever has the backup and a passphrase valid now can decrypt the
volume even after that passphrase is removed: keep it as safe as a key.
`

const luksHeaderRestoreUsage = `Usage: xts luks header-restore --header-backup-file FILE [-q] [--force] [--header HDR] IMAGE

Writes the header backup FILE back to IMAGE (or to its detached header HDR),
as cryptsetup luksHeaderRestore does: afterwards only the backup's
passphrases open it. A backup of another data offset or header size (LUKS1:
key size) is refused, as cryptsetup refuses it, unless --force (not a
cryptsetup flag). On a terminal it asks for YES first, unless -q. The writes
are ordered so that a crash leaves the old header's or the backup's
passphrases working; a backup whose keyslot lies where the device's header
has another, with no free room to move it through (LUKS1 always), is
refused unless --force (cryptsetup writes it in place).
`

const luksConfigUsage = `Usage: xts luks config [--label L] [--subsystem S] [--priority prefer|normal|ignore -S N] [--header HDR] IMAGE

Sets the LUKS2 label and subsystem (both at once: the one not given is
cleared, as cryptsetup does; at most 47 bytes each) and a keyslot's priority.
LUKS1 has neither.
`

const luksUUIDUsage = `Usage: xts luks uuid [--uuid UUID] [-q] [--header HDR] IMAGE

Prints the UUID of the LUKS image, or with --uuid sets it (asking first on a
terminal, unless -q), as cryptsetup luksUUID does.
`

const luksConvertUsage = `Usage: xts luks convert --type luks1|luks2 [-q] [--header HDR] IMAGE

Converts the header between LUKS1 and LUKS2 in place, as cryptsetup convert
does (asking first on a terminal, unless -q); the passphrases, the volume key
and the data stay. Unlike cryptsetup's, the conversion survives a crash at
any point, and keeps the key material where it is (so cryptsetup may not
convert the result back; xts does). LUKS2 headers that LUKS1 cannot describe
are refused with cryptsetup's reason.
`

// parseImage parses the flags and the one argument, IMAGE.
func parseImage(fs *cmdFlags, args []string) (string, error) {
	pos, err := parseFlags(fs, args)
	if err != nil {
		return "", err
	}
	if len(pos) != 1 {
		return "", usagef("want IMAGE, got %d argument(s)", len(pos))
	}
	return pos[0], nil
}

// batchFlag defines -q, --batch-mode: no questions.
func batchFlag(fs *cmdFlags, batch *bool) {
	fs.BoolVar(batch, "batch-mode", false, "do not ask for confirmation")
	fs.alias("q", "batch-mode")
}

// headerDevice is the file that holds the header: --header, else IMAGE.
func headerDevice(image, header string) string {
	if header != "" {
		return header
	}
	return image
}

// openDevice opens path as cryptsetup opens a device: one that is missing
// or not allowed exits 4 with its words.
func openDevice(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return nil, exit.Errorf(exitWrongDevice, "Device %s does not exist or access denied.", path)
	}
	return f, nil
}

// readDeviceHeader opens the header device of image and reads its header;
// what is not LUKS (or not LUKS2 when need2) exits 1 as cryptsetup does.
func readDeviceHeader(image, header string, write, need2 bool) (*os.File, *luks.Header, error) {
	name := headerDevice(image, header)
	if header != "" {
		if _, err := os.Stat(image); err != nil {
			return nil, nil, exit.Errorf(exitWrongDevice, "Device %s does not exist or access denied.", image)
		}
	}
	flag := os.O_RDONLY
	if write {
		flag = os.O_RDWR
	}
	f, err := openDevice(name, flag)
	if err != nil {
		return nil, nil, err
	}
	h, err := luks.ReadHeader(f)
	if err == nil && need2 && h.Version != 2 {
		err = luks.ErrNotLUKS
	}
	if err != nil {
		f.Close()
		kind := "LUKS"
		if need2 {
			kind = "LUKS2"
		}
		if errors.Is(err, luks.ErrCorrupt) {
			return nil, nil, luksError(fmt.Errorf("%s: %w", name, err))
		}
		return nil, nil, exit.Errorf(exitUsage, "Device %s is not a valid %s device.", name, kind)
	}
	return f, h, nil
}

// syncDevice flushes a changed header to disk.
func syncDevice(f *os.File) error {
	if err := f.Sync(); err != nil {
		return fmt.Errorf("flushing the header to disk: %w", err)
	}
	return nil
}

func runLUKSHeaderBackup(e *env, args []string) error {
	var file, header string
	fs := newFlagSet("luks header-backup", luksHeaderBackupUsage, e.stdout)
	fs.StringVar(&file, "header-backup-file", "", "write the backup to `FILE`")
	fs.StringVar(&header, "header", "", "detached header `FILE`")
	image, err := parseImage(fs, args)
	if err != nil {
		return err
	}
	if file == "" {
		return usagef("Option --header-backup-file is required.")
	}
	if _, err := os.Lstat(file); err == nil {
		return exit.Errorf(exitUsage, "Requested header backup file %s already exists.", file)
	}
	f, h, err := readDeviceHeader(image, header, false, false)
	if err != nil {
		return err
	}
	defer f.Close()
	g := e.guard("luks header-backup")
	defer g.Stop()
	out, err := g.Create(guard.Spec{Path: file, Mode: 0o400})
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
			return exit.Errorf(exitUsage, "Cannot create header backup file %s.", file)
		}
		return err
	}
	if err := h.Backup(f, out); err != nil {
		return g.Abort(err)
	}
	return g.Commit()
}

func runLUKSHeaderRestore(e *env, args []string) error {
	var (
		file, header string
		batch, force bool
	)
	fs := newFlagSet("luks header-restore", luksHeaderRestoreUsage, e.stdout)
	fs.StringVar(&file, "header-backup-file", "", "restore the backup in `FILE`")
	fs.StringVar(&header, "header", "", "detached header `FILE`")
	batchFlag(fs, &batch)
	fs.BoolVar(&force, "force", false, "restore a backup of another layout too (cryptsetup refuses it)")
	image, err := parseImage(fs, args)
	if err != nil {
		return err
	}
	if file == "" {
		return usagef("Option --header-backup-file is required.")
	}
	b, err := os.Open(file)
	if err != nil {
		return exit.Errorf(exitUsage, "Header backup file does not contain compatible LUKS header.")
	}
	defer b.Close()
	name := headerDevice(image, header)
	dev, err := openDevice(name, os.O_RDWR)
	if err != nil {
		return err
	}
	defer dev.Close()
	bh, err := luks.ReadHeader(b)
	if err != nil {
		return exit.Errorf(exitUsage, "Header backup file does not contain compatible LUKS header.")
	}
	if fi, err := b.Stat(); err == nil && uint64(fi.Size()) < bh.BackupSize() {
		return exit.Errorf(exitUsage, "Device %s is too small. Need at least %d bytes.", file, bh.BackupSize())
	}
	dh, _, err := luks.CompareBackup(dev, b)
	var me *luks.BackupMismatchError
	if err != nil && !errors.As(err, &me) {
		return luksError(err)
	}
	if me != nil && me.Layout() && !force {
		if bh.Version == 1 {
			return exit.Errorf(exitUsage, "Data offset or key size differs on device and backup, restore failed.")
		}
		if me.Field == "data offset" {
			return exit.Errorf(exitUsage, "Data offset differ on device and backup, restore failed.")
		}
		return exit.Errorf(exitUsage, "Binary header with keyslot areas size differ on device and backup, restore failed.")
	}
	kind := "LUKS"
	if bh.Version == 2 {
		kind = "LUKS2"
	}
	warning := fmt.Sprintf("Device %s does not contain %s header. Replacing header can destroy data on that device.", name, kind)
	if dh != nil && dh.Version == bh.Version {
		warning = fmt.Sprintf("Device %s already contains %s header. Replacing header will destroy existing keyslots.", name, kind)
		if dh.UUID != bh.UUID {
			warning += "\nWARNING: real device header has different UUID than backup!"
		}
	}
	ok, err := confirmOnTerminal(e, batch, warning)
	if err != nil {
		return err
	}
	if !ok {
		return exit.Errorf(exitUsage, "Operation aborted.")
	}
	// A mismatch the user was asked about (or -q) is restored as asked;
	// else the package refuses a restore it cannot do crash-safely
	// (a backup's keyslot where the device has another) unless --force.
	if _, err := luks.RestoreHeader(dev, b, force || me != nil); err != nil {
		return luksError(err)
	}
	return syncDevice(dev)
}

func runLUKSConfig(e *env, args []string) error {
	var (
		label, subsystem, prio, header string
		slot                           int
	)
	fs := newFlagSet("luks config", luksConfigUsage, e.stdout)
	fs.StringVar(&label, "label", "", "set the LUKS2 label to `L` (clears the subsystem unless --subsystem)")
	fs.StringVar(&subsystem, "subsystem", "", "set the LUKS2 subsystem to `S` (clears the label unless --label)")
	fs.StringVar(&prio, "priority", "", "set keyslot -S N's priority: `prefer`, normal or ignore")
	fs.IntVar(&slot, "key-slot", luks.AnyKeyslot, "the keyslot `N` of --priority")
	fs.alias("S", "key-slot")
	fs.StringVar(&header, "header", "", "detached header `FILE`")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	priorities := map[string]int{"ignore": luks.PriorityIgnore, "normal": luks.PriorityNormal, "prefer": luks.PriorityPrefer}
	p, okPrio := priorities[prio]
	switch {
	case set["priority"] && !okPrio:
		return usagef("Option --priority can be only ignore/normal/prefer.")
	case set["priority"] && slot == luks.AnyKeyslot:
		return usagef("Keyslot specification is required.")
	case len(pos) != 1:
		return usagef("want IMAGE, got %d argument(s)", len(pos))
	case !set["priority"] && !set["label"] && !set["subsystem"]:
		return exit.Errorf(exitUsage, "Option --priority, --label or --subsystem is missing.")
	}
	f, h, err := readDeviceHeader(pos[0], header, true, true)
	if err != nil {
		return err
	}
	defer f.Close()
	if set["priority"] {
		if err := h.SetPriority(f, slot, p); err != nil {
			return exit.With(exitUsage, err)
		}
	}
	if set["label"] || set["subsystem"] {
		if err := h.SetLabel(f, truncate(label, 47), truncate(subsystem, 47)); err != nil {
			return luksError(err)
		}
	}
	return syncDevice(f)
}

// truncate cuts s to n bytes, as cryptsetup cuts a label.
func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func runLUKSUUID(e *env, args []string) error {
	var (
		uuid, header string
		batch        bool
	)
	fs := newFlagSet("luks uuid", luksUUIDUsage, e.stdout)
	fs.StringVar(&uuid, "uuid", "", "set the UUID to `UUID`")
	fs.StringVar(&header, "header", "", "detached header `FILE`")
	batchFlag(fs, &batch)
	image, err := parseImage(fs, args)
	if err != nil {
		return err
	}
	setting := false
	fs.Visit(func(f *flag.Flag) { setting = setting || f.Name == "uuid" })
	f, h, err := readDeviceHeader(image, header, setting, false)
	if err != nil {
		return err
	}
	defer f.Close()
	if !setting {
		fmt.Fprintln(e.stdout, h.UUID)
		return nil
	}
	if luks.CheckUUID(uuid) != nil {
		return exit.Errorf(exitUsage, "Wrong LUKS UUID format provided.")
	}
	ok, err := confirmOnTerminal(e, batch, "Do you really want to change UUID of device?")
	if err != nil {
		return err
	}
	if !ok {
		return exit.Errorf(exitPermission, "Operation aborted.")
	}
	if err := h.SetUUID(f, uuid); err != nil {
		return luksError(err)
	}
	return syncDevice(f)
}

func runLUKSConvert(e *env, args []string) error {
	var (
		typ, header string
		batch       bool
	)
	fs := newFlagSet("luks convert", luksConvertUsage, e.stdout)
	fs.StringVar(&typ, "type", "", "convert to `luks1` or luks2")
	fs.alias("M", "type")
	fs.StringVar(&header, "header", "", "detached header `FILE`")
	batchFlag(fs, &batch)
	image, err := parseImage(fs, args)
	if err != nil {
		return err
	}
	version := map[string]int{"luks1": 1, "luks2": 2}[typ]
	if version == 0 {
		return exit.Errorf(exitUsage, "Invalid LUKS type, only luks1 and luks2 are supported.")
	}
	f, h, err := readDeviceHeader(image, header, true, false)
	if err != nil {
		return err
	}
	defer f.Close()
	if h.Version == version {
		return exit.Errorf(exitUsage, "Device is already %s type.", strings.ToUpper(typ))
	}
	if len(h.Config.Requirements) > 0 {
		return exit.Errorf(exitUsage, "Operation incompatible with device marked for LUKS2 reencryption. Aborting.")
	}
	ok, err := confirmOnTerminal(e, batch, fmt.Sprintf("This operation will convert %s to %s format.\n", headerDevice(image, header), strings.ToUpper(typ)))
	if err != nil {
		return err
	}
	if !ok {
		return exit.Errorf(exitPermission, "Operation aborted, device was NOT converted.")
	}
	if err := h.Convert(f, version); err != nil {
		var ce *luks.ConvertError
		if errors.As(err, &ce) {
			return exit.Errorf(exitUsage, "Cannot convert to LUKS1 format - %s.", ce.Reason)
		}
		return luksError(err)
	}
	return syncDevice(f)
}

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
