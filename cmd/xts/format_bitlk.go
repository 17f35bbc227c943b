package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/fastxts/xts/bitlocker"
	"github.com/fastxts/xts/cmd/xts/internal/exit"
	"github.com/fastxts/xts/cmd/xts/internal/guard"
)

// bitlkFormat: BitLocker and BitLocker To Go volumes, as cryptsetup's
// BITLK (bitlkDump, open --type bitlk).
var bitlkFormat = &volumeFormat{
	name:  "bitlk",
	title: "BitLocker and BitLocker To Go",
	secret: "the password or the 48-digit recovery password from the terminal or one line of standard input;\n" +
		"  -d/--key-file FILE with the password or a .BEK startup key; --volume-key-file VK (the raw FVEK);\n" +
		"  none for a volume whose protection is suspended (clear key)",
	options: func(fs *cmdFlags, cmd string) formatOptions {
		o := &bitlkOptions{}
		fs.StringVar(&o.keyFile, "key-file", "", "the password, or a .BEK startup key, in `FILE` (- for standard input)")
		fs.alias("d", "key-file")
		fs.StringVar(&o.volumeKey, "volume-key-file", "", "open with the raw volume key (FVEK) in `FILE`")
		if cmd == "bitlk dump" {
			fs.BoolVar(&o.dumpKey, "dump-volume-key", false, "also print the volume key (asks for a secret)")
		}
		return o
	},
}

type bitlkOptions struct {
	keyFile, volumeKey string
	dumpKey            bool
}

func (o *bitlkOptions) check() error {
	if o.volumeKey != "" && o.keyFile != "" {
		return usagef("--volume-key-file replaces the password: --key-file does not go with it")
	}
	return nil
}

// secrets returns what to try, in order: the volume key, a startup key,
// the clear key of a suspended volume, or the password (as a password
// and, when it has the form, as a recovery password).
func (o *bitlkOptions) secrets(e *env, m *bitlocker.Metadata, name string) ([]bitlocker.Secret, error) {
	switch {
	case o.volumeKey != "":
		k, err := readKeyFile(o.volumeKey, 0, 0, e.stdin)
		if err != nil {
			return nil, err
		}
		defer clear(k)
		return []bitlocker.Secret{bitlocker.VolumeKey(k)}, nil
	case o.keyFile != "":
		b, err := readKeyFile(o.keyFile, 0, 0, e.stdin)
		if err != nil {
			return nil, err
		}
		defer clear(b)
		if _, err := bitlocker.ParseBEK(b); err == nil {
			return []bitlocker.Secret{bitlocker.StartupKey(b)}, nil
		}
		return passwordSecrets(string(b)), nil
	case hasClearKey(m):
		return []bitlocker.Secret{bitlocker.ClearKey()}, nil
	}
	p, err := promptPass(e, fmt.Sprintf("Enter passphrase for %s: ", name), false)
	if err != nil {
		return nil, err
	}
	defer clear(p)
	return passwordSecrets(string(p)), nil
}

// passwordSecrets: a typed secret is a password, or a recovery password
// when it has that form (8 groups of 6 digits).
func passwordSecrets(p string) []bitlocker.Secret {
	s := []bitlocker.Secret{bitlocker.Password(p)}
	if _, err := bitlocker.ParseRecoveryPassword(strings.TrimSpace(p)); err == nil {
		s = append([]bitlocker.Secret{bitlocker.RecoveryPassword(strings.TrimSpace(p))}, s...)
	}
	return s
}

func hasClearKey(m *bitlocker.Metadata) bool {
	for _, p := range m.Protectors {
		if p.Type == bitlocker.ProtectClearKey {
			return true
		}
	}
	return false
}

func (o *bitlkOptions) metadata(img *os.File, name string) (*bitlocker.Metadata, error) {
	m, err := bitlocker.ReadMetadata(img)
	if err != nil {
		return nil, bitlkError(name, err)
	}
	return m, nil
}

func (o *bitlkOptions) open(g *guard.Guard, e *env, img *os.File, name string, readOnly bool) (formatVolume, error) {
	m, err := o.metadata(img, name)
	if err != nil {
		return nil, err
	}
	// Before the secret: a volume that cannot be opened says why.
	if err := m.Openable(); err != nil {
		return nil, bitlkError(name, err)
	}
	secrets, err := o.secrets(e, m, name)
	if err != nil {
		return nil, err
	}
	var v *bitlocker.Volume
	err = g.Interruptible(func() error {
		var err error
		for _, s := range secrets {
			v, err = bitlocker.Open(img, s, &bitlocker.Options{ReadOnly: readOnly, Metadata: m})
			if !errors.Is(err, bitlocker.ErrWrongSecret) {
				break
			}
		}
		return bitlkError(name, err)
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

func (o *bitlkOptions) dump(g *guard.Guard, e *env, img *os.File, name string) error {
	m, err := o.metadata(img, name)
	if err != nil {
		return err
	}
	kind := "BITLK"
	if m.ToGo {
		kind = "BITLK To Go"
	}
	fmt.Fprintf(e.stdout, "Info for %s device %s.\n", kind, name)
	if err := m.Dump(e.stdout); err != nil {
		return err
	}
	if !o.dumpKey {
		return nil
	}
	v, err := o.open(g, e, img, name, true)
	if err != nil {
		return err
	}
	defer v.Close()
	k := v.(*bitlocker.Volume).FVEK()
	defer clear(k)
	fmt.Fprintf(e.stdout, "\nVolume key:   \t")
	hexLines(e.stdout, k, "\t\t")
	return nil
}

// bitlkError gives package bitlocker's errors cryptsetup's exit statuses
// and words.
func bitlkError(name string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, bitlocker.ErrWrongSecret):
		return exit.Errorf(exitPermission, "No key available with this passphrase.")
	case errors.Is(err, bitlocker.ErrNotBitLocker):
		return exit.Errorf(exitWrongDevice, "Device %s is not a valid BITLK device.", name)
	case errors.Is(err, bitlocker.ErrUnsupported), errors.Is(err, bitlocker.ErrCorrupt):
		return exit.With(exitUsage, err)
	}
	return err
}
