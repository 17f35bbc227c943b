package main

import (
	"os"

	"github.com/fastxts/xts/cmd/xts/internal/guard"
	"github.com/fastxts/xts/luks"
)

// luksFormat makes LUKS images one of the formats of xts serve, mount,
// decrypt and dump --type (the header on the image; xts luks VERB has
// the detached-header and keyslot flags too).
var luksFormat = &volumeFormat{
	name:   "luks",
	title:  "LUKS1 and LUKS2",
	secret: "the passphrase from -d/--key-file FILE, the terminal, or one line of standard input; --volume-key-file VK",
	options: func(fs *cmdFlags, cmd string) formatOptions {
		o := &luksFormatOptions{}
		o.flags(fs)
		return o
	},
}

type luksFormatOptions struct{ unlockOptions }

func (o *luksFormatOptions) check() error {
	if o.header != "" {
		return usagef("--header: use xts luks VERB for detached headers")
	}
	return o.unlockOptions.check()
}

func (o *luksFormatOptions) open(g *guard.Guard, e *env, img *os.File, name string, readOnly bool) (formatVolume, error) {
	h, err := luks.ReadHeader(img)
	if err != nil {
		return nil, luksError(err)
	}
	v, err := o.unlockOptions.open(g, e, img, img, h, name, readOnly)
	if err != nil {
		return nil, err
	}
	return v, nil
}

func (o *luksFormatOptions) dump(g *guard.Guard, e *env, img *os.File, name string) error {
	return runLUKSDump(e, []string{name})
}
