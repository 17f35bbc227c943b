package main

import (
	"errors"
	"os"

	"github.com/fastxts/xts/cmd/xts/internal/exit"
	"github.com/fastxts/xts/cmd/xts/internal/guard"
	"github.com/fastxts/xts/fvault2"
)

// fvault2Format: FileVault 2 (Core Storage) volumes, as cryptsetup's
// FVAULT2 (fvault2Dump, open --type fvault2).
var fvault2Format = &volumeFormat{
	name:   "fvault2",
	title:  "FileVault 2 (Core Storage)",
	secret: "the password from -d/--key-file FILE, the terminal, or one line of standard input; --volume-key-file VK (the 16- or 32-byte volume key fvault2Dump --dump-volume-key prints)",
	options: func(fs *cmdFlags, cmd string) formatOptions {
		o := &fvault2Options{}
		o.pass.flags(fs)
		fs.StringVar(&o.volumeKey, "volume-key-file", "", "open with the raw volume key in `FILE` instead of the password")
		if cmd == "fvault2 dump" {
			fs.BoolVar(&o.dumpKey, "dump-volume-key", false, "also print the volume key (asks for the password)")
		}
		return o
	},
}

type fvault2Options struct {
	pass      passSpec
	volumeKey string
	dumpKey   bool
}

func (o *fvault2Options) check() error {
	if o.volumeKey != "" && o.pass.path != "" {
		return usagef("--volume-key-file replaces the password: --key-file does not go with it")
	}
	return nil
}

func (o *fvault2Options) open(g *guard.Guard, e *env, img *os.File, name string, readOnly bool) (formatVolume, error) {
	if _, err := fvault2.ReadHeader(img); err != nil {
		return nil, fvault2Error(name, err)
	}
	secret, err := o.pass.orVolumeKey(e, o.volumeKey, name)
	if err != nil {
		return nil, err
	}
	var v *fvault2.Volume
	err = g.Interruptible(func() error {
		defer clear(secret)
		var err error
		opts := &fvault2.Options{ReadOnly: readOnly}
		if o.volumeKey != "" {
			v, err = fvault2.OpenWithKey(img, secret, opts)
		} else {
			v, err = fvault2.Open(img, secret, opts)
		}
		return fvault2Error(name, err)
	})
	return v, err
}

func (o *fvault2Options) dump(g *guard.Guard, e *env, img *os.File, name string) error {
	h, err := fvault2.ReadHeader(img)
	if err != nil {
		return fvault2Error(name, err)
	}
	var key []byte
	if o.dumpKey {
		v, err := o.open(g, e, img, name, true)
		if err != nil {
			return err
		}
		defer v.Close()
		key = v.(*fvault2.Volume).VolumeKey()
		defer clear(key)
	}
	return h.Dump(e.stdout, name, key)
}

// fvault2Error gives package fvault2's errors cryptsetup's exit statuses.
func fvault2Error(name string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fvault2.ErrWrongPassword):
		return exit.Errorf(exitPermission, "No key available with this passphrase.")
	case errors.Is(err, fvault2.ErrNotFVault2):
		return exit.Errorf(exitWrongDevice, "Device %s is not a valid FVAULT2 device.", name)
	case errors.Is(err, fvault2.ErrUnsupported):
		return exit.With(exitUsage, err)
	}
	return err
}
