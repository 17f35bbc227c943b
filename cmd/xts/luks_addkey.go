package main

import (
	"fmt"
	"time"

	"github.com/fastxts/xts/luks"
)

const luksAddKeyUsage = `Usage: xts luks add-key [-d FILE] [-S N] [PBKDF flags] [--header HDR] IMAGE [NEW-KEY-FILE]

Adds a keyslot to the LUKS image IMAGE (or its detached header HDR) for the
passphrase in NEW-KEY-FILE (all of the file), or one asked for twice. An
existing passphrase, from --key-file or asked for, unlocks the volume key
first; a wrong one exits 2 with "No key available with this passphrase."
and leaves the image untouched. The keyslot material is written before
the header, and both are flushed to disk before the command succeeds.
`

func runLUKSAddKey(e *env, args []string) error {
	var (
		pass    passSpec
		kdf     pbkdfFlags
		slot    int
		header  string
		verbose bool
	)
	fs := newFlagSet("luks add-key", luksAddKeyUsage, e.stdout)
	pass.flags(fs)
	kdf.flags(fs)
	fs.IntVar(&slot, "key-slot", luks.AnyKeyslot, "put the new key in keyslot `N` (default: the lowest free one)")
	fs.alias("S", "key-slot")
	fs.StringVar(&header, "header", "", "detached header `FILE`")
	fs.BoolVar(&verbose, "v", false, "print the unlock time and the new keyslot's cost")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 && len(pos) != 2 {
		return usagef("want IMAGE and NEW-KEY-FILE, got %d argument(s)", len(pos))
	}
	ko, err := kdf.options()
	if err != nil {
		return err
	}
	if pass.path == "-" && len(pos) == 2 && pos[1] == "-" {
		return usagef("--key-file - and NEW-KEY-FILE - cannot both read standard input")
	}

	g := e.guard("luks add-key")
	defer g.Stop()
	img, hdev, h, err := openSupported(pos[0], header)
	if err != nil {
		return err
	}
	defer closeBoth(img, hdev)
	if h.Version == 1 && kdf.kdf == "" {
		ko.Type = "pbkdf2"
	}
	old, err := pass.passphrase(e, "Enter any existing passphrase: ", false)
	if err != nil {
		return err
	}
	start := time.Now()
	var (
		key  []byte
		used int
	)
	err = g.Interruptible(func() error {
		defer clear(old)
		var err error
		key, used, err = h.Unlock(hdev, old, luks.AnyKeyslot)
		return luksError(err)
	})
	if err != nil {
		return err
	}
	defer clear(key)
	unlock := time.Since(start)
	np, err := newPassphrase(e, pos[1:], "Enter new passphrase for key slot: ")
	if err != nil {
		return err
	}
	defer clear(np)
	if err := g.Err(); err != nil {
		return err
	}
	start = time.Now()
	id, err := h.AddKey(hdev, key, np, slot, ko)
	if err != nil {
		return luksError(err)
	}
	if err := hdev.Sync(); err != nil {
		return fmt.Errorf("flushing the header to disk: %w", err)
	}
	if verbose {
		k, _ := h.Keyslot(id)
		fmt.Fprintf(e.stderr, "xts luks add-key: unlocked keyslot %d in %.3f s; keyslot %d added (%s) in %.3f s\n",
			used, unlock.Seconds(), id, k.KDF.Type, time.Since(start).Seconds())
		fmt.Fprintf(e.stderr, "Key slot %d created.\n", id)
	}
	return nil
}
