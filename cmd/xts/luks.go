package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/fastxts/xts/cmd/xts/internal/exit"
	"github.com/fastxts/xts/luks"
)

const luksUsage = `Usage: xts luks COMMAND [flags] ARGS

LUKS1 and LUKS2 images, opened, read and made in user space (no root, no
device-mapper), with cryptsetup's flags:

  xts luks dump     [--header HDR] IMAGE                 what cryptsetup luksDump prints
  xts luks decrypt  [-d F] [-S N] [--header HDR] [--volume-key-file VK] IMAGE OUT
                                                         OUT gets the whole decrypted data segment
  xts luks encrypt  [-d F] [--type luks2|luks1] [-c CIPHER] [-s BITS] [PBKDF flags] RAW OUT
                                                         a new image whose data segment is RAW
  xts luks add-key  [-d F] [-S N] [PBKDF flags] IMAGE [NEW-KEY-FILE]
  xts luks remove-key [-d F] [-q] [--force] IMAGE [KEY-FILE]
                                                         removes the keyslot the passphrase opens
  xts luks kill-slot  [-d F] [-q] [--force] IMAGE N      removes keyslot N (a remaining passphrase authorises)
  xts luks change-key [-d F] [-S N] [PBKDF flags] IMAGE [NEW-KEY-FILE]
                                                         the new keyslot is written before the old goes
  xts luks erase    [-q] IMAGE                           removes every keyslot (asks for YES)
  xts luks reencrypt [-d F] [-S N] [--encrypt|--decrypt] [--header HDR] [--reduce-device-size SIZE]
                    [--resilience R] [--hotzone-size SIZE] [--init-only|--resume-only] [-c CIPHER] IMAGE
                                                         reencrypts IMAGE in place (cryptsetup reencrypt)
  xts luks mount    [-d F] [-S N] [--header HDR] [--readonly] IMAGE DIR
                                                         DIR/volume is the decrypted data segment (FUSE)
  xts luks serve    [-d F] [-S N] (--socket PATH | --listen HOST:PORT) [--readonly] [--run CMD] IMAGE
                                                         serves the decrypted data over NBD
  xts luks header-backup  --header-backup-file F [--header HDR] IMAGE
  xts luks header-restore --header-backup-file F [-q] [--force] [--header HDR] IMAGE
  xts luks config   [--label L] [--subsystem S] [--priority prefer|normal|ignore -S N] IMAGE
  xts luks uuid     [--uuid UUID] [-q] IMAGE             prints (or sets) the UUID
  xts luks convert  --type luks1|luks2 [-q] IMAGE        LUKS1 <-> LUKS2 in place, crash-safe

The passphrase comes from --key-file (all of the file, as cryptsetup reads
it; - for standard input), or is asked for on the terminal (one line of
standard input when that is not a terminal). A wrong passphrase exits 2
with "No key available with this passphrase." and writes nothing.
Run 'xts luks COMMAND --help' for a command's flags.

` + exitHelp

// luksCommands lists the luks subcommands in the order the usage shows
// them: the one place a new verb is added.
var luksCommands = []struct {
	name string
	run  func(*env, []string) error
}{
	{"dump", runLUKSDump},
	{"decrypt", runLUKSDecrypt},
	{"encrypt", runLUKSEncrypt},
	{"add-key", runLUKSAddKey},
	{"remove-key", runLUKSRemoveKey},
	{"kill-slot", runLUKSKillSlot},
	{"change-key", runLUKSChangeKey},
	{"erase", runLUKSErase},
	{"reencrypt", runLUKSReencrypt},
	{"mount", runLUKSMount},
	{"serve", runLUKSServe},
	{"header-backup", runLUKSHeaderBackup},
	{"header-restore", runLUKSHeaderRestore},
	{"config", runLUKSConfig},
	{"uuid", runLUKSUUID},
	{"convert", runLUKSConvert},
}

// luksCommandList is "dump, decrypt, ... or convert", for messages.
func luksCommandList() string {
	names := make([]string, len(luksCommands))
	for i, c := range luksCommands {
		names[i] = c.name
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// runLUKS runs one luks subcommand and returns its name for messages
// ("luks decrypt") and its error.
func runLUKS(e *env, args []string) (string, error) {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, luksUsage)
		return "luks", usagef("want a subcommand: %s", luksCommandList())
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(e.stdout, luksUsage)
		return "luks", errHelpShown
	}
	for _, c := range luksCommands {
		if c.name == sub {
			return "luks " + sub, c.run(e, rest)
		}
	}
	return "luks", usagef("unknown subcommand %q: want %s", sub, luksCommandList())
}

// luksError gives errors of package luks cryptsetup's exit statuses and
// words.
func luksError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, luks.ErrNoKey):
		return exit.Errorf(exitPermission, "No key available with this passphrase.")
	case errors.Is(err, luks.ErrWrongKey):
		return exit.Errorf(exitPermission, "Volume key does not match the volume.")
	case errors.Is(err, luks.ErrDataOverlapsHeader):
		return exit.Errorf(exitUsage, "the data segment starts inside the header or keyslots on the same file (a detached header's data?): writing would destroy them, so it opens only with --readonly")
	case errors.Is(err, luks.ErrNotLUKS), errors.Is(err, luks.ErrCorrupt):
		return exit.With(exitUsage, err)
	}
	return err
}

// openHeader opens IMAGE (for reading, or reading and writing) and the
// device that holds its header (--header, else IMAGE), and reads the
// header.
func openHeader(image, header string, write bool) (img, hdev *os.File, h *luks.Header, err error) {
	flag := os.O_RDONLY
	if write {
		flag = os.O_RDWR
	}
	img, err = os.OpenFile(image, flag, 0)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("image: %w", err)
	}
	hdev = img
	if header != "" {
		if hdev, err = os.OpenFile(header, flag, 0); err != nil {
			img.Close()
			return nil, nil, nil, fmt.Errorf("header: %w", err)
		}
	}
	name := image
	if header != "" {
		name = header
	}
	h, err = luks.ReadHeader(hdev)
	if err != nil {
		closeBoth(img, hdev)
		if errors.Is(err, luks.ErrNotLUKS) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, nil, nil, exit.Errorf(exitUsage, "Device %s is not a valid LUKS device.", name)
		}
		return nil, nil, nil, luksError(fmt.Errorf("%s: %w", name, err))
	}
	return img, hdev, h, nil
}

func closeBoth(img, hdev *os.File) {
	if hdev != nil && hdev != img {
		hdev.Close()
	}
	if img != nil {
		img.Close()
	}
}
