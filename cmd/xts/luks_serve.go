package main

import (
	"os"

	"github.com/fastxts/xts/luks"
)

const luksServeUsage = `Usage: xts luks serve [-d FILE] [-S N] [--header HDR] [--volume-key-file VK]
                      (--socket PATH | --listen HOST:PORT) [--readonly] [--run CMD] IMAGE

Unlocks the LUKS1 or LUKS2 IMAGE with a passphrase (or its volume key)
and serves its decrypted data segment over NBD, without root: nbdcopy,
qemu-img, qemu-io, nbdfuse or nbd-client read and write the plaintext
while it stays encrypted on disk. Writes are encrypted before they reach
IMAGE; a FLUSH fsyncs it. A volume whose data segment overlaps its own
header or keyslots on the same file is only served --readonly.

` + serveFlagsHelp

func runLUKSServe(e *env, args []string) error {
	var (
		o  unlockOptions
		so serveOptions
	)
	fs := newFlagSet("luks serve", luksServeUsage, e.stdout)
	o.flags(fs)
	so.flags(fs)
	image, err := parseImage(fs, args)
	if err != nil {
		return err
	}
	if err := o.check(); err != nil {
		return err
	}
	if err := so.validate(); err != nil {
		return err
	}

	img, hdev, h, err := openHeader(image, o.header, !so.readOnly)
	if err != nil {
		return err
	}
	defer closeBoth(img, hdev)
	if err := lockImage(img, !so.readOnly); err != nil {
		return err
	}
	v, err := openForServe(e, &o, img, hdev, h, image, so.readOnly)
	if err != nil {
		return err
	}
	defer v.Close() // wipes the key
	return serveExport(e, "luks serve", &formatBackend{v: v, img: img, readOnly: so.readOnly}, image, &so)
}

// openForServe unlocks the header as xts luks decrypt does (its passphrase
// flags and prompt), for reading and writing unless readOnly. Its guard
// lasts only for the unlock: serveExport handles the signals once serving.
func openForServe(e *env, o *unlockOptions, img, hdev *os.File, h *luks.Header, name string, readOnly bool) (*luks.Volume, error) {
	g := e.guard("luks serve")
	defer g.Stop()
	return o.open(g, e, img, hdev, h, name, readOnly)
}
