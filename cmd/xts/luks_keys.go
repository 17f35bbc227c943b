package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/fastxts/xts/cmd/xts/internal/exit"
	"github.com/fastxts/xts/luks"
)

const luksKillSlotUsage = `Usage: xts luks kill-slot [-d FILE] [-q] [--force] [--header HDR] IMAGE N

Removes keyslot N of the LUKS image IMAGE (or its detached header HDR) and
wipes its area, as cryptsetup luksKillSlot does. A remaining passphrase (of
another keyslot; from --key-file, or asked for) authorises it, unless -q
(--batch-mode) is given without --key-file. The last keyslot that opens the
volume is removed only after the answer YES (asked on the terminal, or read
as the next line of standard input), or with -q or --force. The header
without the keyslot is written and flushed before the area is wiped.
`

const luksRemoveKeyUsage = `Usage: xts luks remove-key [-d FILE] [-q] [--force] [--header HDR] IMAGE [KEY-FILE]

Removes the keyslot that the passphrase (in KEY-FILE or --key-file, all of
the file, or asked for) opens and wipes its area, as cryptsetup
luksRemoveKey does. A wrong passphrase exits 2 and writes nothing. The last
keyslot is removed only after the answer YES, or with -q or --force.
`

const luksChangeKeyUsage = `Usage: xts luks change-key [-d FILE] [-S N] [PBKDF flags] [--header HDR] IMAGE [NEW-KEY-FILE]

Changes a passphrase, as cryptsetup luksChangeKey does: the passphrase to
change (--key-file, or asked for; -S names its keyslot) unlocks the key, a
keyslot for the new passphrase (NEW-KEY-FILE, or asked for twice) is
written and flushed, and only then is the old keyslot removed and wiped.
LUKS2 keeps the keyslot's number; LUKS1 takes the lowest free slot. With no
free LUKS1 slot, or no room in the LUKS2 keyslots area, it refuses
(cryptsetup would overwrite the old keyslot in place).
`

const luksEraseUsage = `Usage: xts luks erase [-q] [--header HDR] IMAGE

Removes every keyslot that opens the volume and wipes their areas, as
cryptsetup luksErase does: the image becomes permanently inaccessible. Asks
for the answer YES (on the terminal, or the next line of standard input)
unless -q (--batch-mode).
`

// keyFlags are the flags the key verbs share.
type keyFlags struct {
	pass   passSpec
	header string
	batch  bool
	force  bool
}

func (k *keyFlags) flags(fs *cmdFlags, confirms bool) {
	k.pass.flags(fs)
	fs.StringVar(&k.header, "header", "", "detached header `FILE`")
	if confirms {
		fs.BoolVar(&k.batch, "batch-mode", false, "do not ask: no confirmation (and, for kill-slot without --key-file, no passphrase)")
		fs.alias("q", "batch-mode")
	}
}

// headerName is the file that holds the header, for messages.
func (k *keyFlags) headerName(image string) string {
	if k.header != "" {
		return k.header
	}
	return image
}

func runLUKSKillSlot(e *env, args []string) error {
	var k keyFlags
	fs := newFlagSet("luks kill-slot", luksKillSlotUsage, e.stdout)
	k.flags(fs, true)
	fs.BoolVar(&k.force, "force", false, "remove the last keyslot without asking (xts only; -q does too)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("want IMAGE and a keyslot number N, got %d argument(s)", len(pos))
	}
	id, err := strconv.Atoi(pos[1])
	if err != nil {
		return usagef("keyslot %q is not a number", pos[1])
	}
	g := e.guard("luks kill-slot")
	defer g.Stop()
	img, hdev, h, err := openHeader(pos[0], k.header, true)
	if err != nil {
		return err
	}
	defer closeBoth(img, hdev)
	if err := checkSlot(h, id); err != nil {
		return err
	}
	last := isLastKeyslot(h, id)
	if last && !k.batch && !k.force {
		if err := confirmOrAbort(e, "This is the last keyslot. Device will become unusable after purging this key.", "Operation aborted, the keyslot was NOT wiped."); err != nil {
			return err
		}
	}
	if !k.batch || k.pass.path != "" {
		pass, err := k.pass.passphrase(e, "Enter any remaining passphrase: ", false)
		if err != nil {
			return err
		}
		err = g.Interruptible(func() error { return authorise(h, hdev, pass, id, last) })
		clear(pass)
		if err != nil {
			return err
		}
	}
	if err := g.Err(); err != nil {
		return err
	}
	return finishKeyVerb(hdev, id, h.KillSlot(hdev, id))
}

func runLUKSRemoveKey(e *env, args []string) error {
	var k keyFlags
	fs := newFlagSet("luks remove-key", luksRemoveKeyUsage, e.stdout)
	k.flags(fs, true)
	fs.BoolVar(&k.force, "force", false, "remove the last keyslot without asking (xts only; -q does too)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 && len(pos) != 2 {
		return usagef("want IMAGE and an optional KEY-FILE, got %d argument(s)", len(pos))
	}
	if len(pos) == 2 {
		if k.pass.path != "" {
			return usagef("give the passphrase to remove in KEY-FILE or --key-file, not both")
		}
		k.pass.path = pos[1]
	}
	g := e.guard("luks remove-key")
	defer g.Stop()
	img, hdev, h, err := openSupported(pos[0], k.header)
	if err != nil {
		return err
	}
	defer closeBoth(img, hdev)
	pass, err := k.pass.passphrase(e, "Enter passphrase to be deleted: ", false)
	if err != nil {
		return err
	}
	defer clear(pass)
	if len(boundKeyslots(h)) == 1 && !k.batch && !k.force {
		// The last keyslot: the passphrase is checked before the question.
		if err := g.Interruptible(func() error { return authorise(h, hdev, pass, boundKeyslots(h)[0], true) }); err != nil {
			return err
		}
		if err := confirmOrAbort(e, "This is the last keyslot. Device will become unusable after purging this key.", "Operation aborted, the keyslot was NOT wiped."); err != nil {
			return err
		}
	}
	if err := g.Err(); err != nil {
		return err
	}
	var id int
	err = g.Interruptible(func() error {
		id, err = h.RemoveKey(hdev, pass)
		return err
	})
	return finishKeyVerb(hdev, id, err)
}

func runLUKSChangeKey(e *env, args []string) error {
	var (
		k    keyFlags
		kdf  pbkdfFlags
		slot int
	)
	fs := newFlagSet("luks change-key", luksChangeKeyUsage, e.stdout)
	k.flags(fs, false)
	kdf.flags(fs)
	fs.IntVar(&slot, "key-slot", luks.AnyKeyslot, "the keyslot `N` whose passphrase changes (default: the one the passphrase opens)")
	fs.alias("S", "key-slot")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 && len(pos) != 2 {
		return usagef("want IMAGE and an optional NEW-KEY-FILE, got %d argument(s)", len(pos))
	}
	if k.pass.path == "-" && len(pos) == 2 && pos[1] == "-" {
		return usagef("--key-file - and NEW-KEY-FILE - cannot both read standard input")
	}
	ko, err := kdf.options()
	if err != nil {
		return err
	}
	g := e.guard("luks change-key")
	defer g.Stop()
	img, hdev, h, err := openSupported(pos[0], k.header)
	if err != nil {
		return err
	}
	defer closeBoth(img, hdev)
	if h.Version == 1 && kdf.kdf == "" {
		ko.Type = "pbkdf2"
	}
	if slot != luks.AnyKeyslot {
		if ks, ok := h.Keyslot(slot); !ok || !ks.Active {
			return exit.Errorf(exitUsage, "No usable keyslot is available.")
		}
	}
	old, err := k.pass.passphrase(e, "Enter passphrase to be changed: ", false)
	if err != nil {
		return err
	}
	defer clear(old)
	// The old passphrase is checked before the new one is asked for.
	if err := g.Interruptible(func() error {
		try := slot
		if try == luks.AnyKeyslot {
			try = luks.AnyKeyslotOrUnbound // as luks.Header.ChangeKey tries them
		}
		key, _, err := h.Unlock(hdev, old, try)
		clear(key)
		return luksError(err)
	}); err != nil {
		return err
	}
	np, err := newPassphrase(e, pos[1:], "Enter new passphrase: ")
	if err != nil {
		return err
	}
	defer clear(np)
	if err := g.Err(); err != nil {
		return err
	}
	_, err = h.ChangeKey(hdev, old, np, slot, ko)
	if errors.Is(err, luks.ErrInactiveKeyslot) {
		return exit.Errorf(exitUsage, "No usable keyslot is available.")
	}
	return finishKeyVerb(hdev, slot, err)
}

func runLUKSErase(e *env, args []string) error {
	var k keyFlags
	fs := newFlagSet("luks erase", luksEraseUsage, e.stdout)
	fs.StringVar(&k.header, "header", "", "detached header `FILE`")
	fs.BoolVar(&k.batch, "batch-mode", false, "do not ask for confirmation")
	fs.alias("q", "batch-mode")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want IMAGE, got %d argument(s)", len(pos))
	}
	g := e.guard("luks erase")
	defer g.Stop()
	img, hdev, h, err := openHeader(pos[0], k.header, true)
	if err != nil {
		return err
	}
	defer closeBoth(img, hdev)
	if !k.batch {
		msg := fmt.Sprintf("This operation will erase all keyslots on device %s.\nDevice will become unusable after this operation.", k.headerName(pos[0]))
		if err := confirmOrAbort(e, msg, "Operation aborted, keyslots were NOT wiped."); err != nil {
			return err
		}
	}
	if err := g.Err(); err != nil {
		return err
	}
	return finishKeyVerb(hdev, -1, h.Erase(hdev))
}

// openSupported is openHeader for writing, refusing a header whose
// volume this package does not open (CheckSupported).
func openSupported(image, header string) (img, hdev *os.File, h *luks.Header, err error) {
	img, hdev, h, err = openHeader(image, header, true)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := h.CheckSupported(); err != nil {
		closeBoth(img, hdev)
		return nil, nil, nil, err
	}
	return img, hdev, h, nil
}

// newPassphrase reads a new passphrase: all of the key file named in
// file (NEW-KEY-FILE) when there is one, else asked for twice.
func newPassphrase(e *env, file []string, prompt string) ([]byte, error) {
	if len(file) > 0 {
		return readKeyFile(file[0], 0, 0, e.stdin)
	}
	return promptPass(e, prompt, true)
}

// finishKeyVerb gives a key verb's error cryptsetup's words, or flushes
// the header device.
func finishKeyVerb(hdev *os.File, id int, err error) error {
	switch {
	case errors.Is(err, luks.ErrInactiveKeyslot):
		return exit.Errorf(exitUsage, "Keyslot %d is not active.", id)
	case err != nil:
		return luksError(err)
	}
	if err := hdev.Sync(); err != nil {
		return fmt.Errorf("flushing the header to disk: %w", err)
	}
	return nil
}

// checkSlot refuses, as cryptsetup does before asking anything, a
// keyslot number out of range or a keyslot not in use.
func checkSlot(h *luks.Header, id int) error {
	limit := 32
	if h.Version == 1 {
		limit = 8
	}
	if id < 0 || id >= limit {
		return exit.Errorf(exitUsage, "keyslot %d out of range (0 to %d)", id, limit-1)
	}
	if k, ok := h.Keyslot(id); !ok || !k.Active {
		return exit.Errorf(exitUsage, "Keyslot %d is not active.", id)
	}
	return nil
}

// boundKeyslots lists the keyslots in use that open the volume.
func boundKeyslots(h *luks.Header) []int {
	var out []int
	for _, k := range h.Keyslots {
		if k.Active && h.Bound(k.ID) {
			out = append(out, k.ID)
		}
	}
	return out
}

// isLastKeyslot reports whether id is the only keyslot that opens the
// volume (cryptsetup's "last keyslot": unbound ones do not count).
func isLastKeyslot(h *luks.Header, id int) bool {
	b := boundKeyslots(h)
	return len(b) == 1 && b[0] == id
}

// authorise checks that pass opens a keyslot that opens the volume other
// than id (or id itself, when it is the last), in the order cryptsetup
// tries them (priority prefer, then normal); else "No key available".
func authorise(h *luks.Header, dev io.ReaderAt, pass []byte, id int, last bool) error {
	var firstErr error
	for _, prio := range []int{luks.PriorityPrefer, luks.PriorityNormal} {
		for _, k := range h.Keyslots {
			if !k.Active || k.Priority != prio || !h.Bound(k.ID) || k.ID == id && !last {
				continue
			}
			key, _, err := h.Unlock(dev, pass, k.ID)
			clear(key)
			if err == nil {
				return nil
			}
			if !errors.Is(err, luks.ErrNoKey) && firstErr == nil {
				firstErr = err
			}
		}
	}
	if firstErr != nil {
		return luksError(firstErr)
	}
	return luksError(luks.ErrNoKey)
}
