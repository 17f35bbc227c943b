package main

import (
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/fastxts/xts/cmd/xts/internal/guard"
	"github.com/fastxts/xts/luks"
)

const luksDecryptUsage = `Usage: xts luks decrypt [-d FILE] [-S N] [--header HDR] [--volume-key-file VK] IMAGE OUTPUT

Unlocks the LUKS1 or LUKS2 IMAGE with a passphrase (or its volume key) and
writes the whole decrypted data segment to OUTPUT (a file, or - for
standard output). A file OUTPUT appears only once complete and flushed to
disk; on any error or signal nothing is left. A wrong passphrase exits 2
with "No key available with this passphrase.".
`

// luksChunk is how much of the segment one step of a luks command moves:
// the library spreads each chunk over every core.
const luksChunk = 8 << 20

// unlockOptions are the flags that unlock an existing image, shared by
// every command that opens one (decrypt, mount, serve).
type unlockOptions struct {
	pass      passSpec
	slot      int
	header    string
	volumeKey string
}

func (o *unlockOptions) flags(fs *cmdFlags) {
	o.pass.flags(fs)
	fs.IntVar(&o.slot, "key-slot", luks.AnyKeyslot, "try only keyslot `N` (also one of priority ignore); -1: every keyslot by priority")
	fs.alias("S", "key-slot")
	fs.StringVar(&o.header, "header", "", "detached header `FILE`")
	fs.StringVar(&o.volumeKey, "volume-key-file", "", "open with the raw volume key in `FILE` instead of a passphrase")
}

func (o *unlockOptions) check() error {
	if o.volumeKey != "" && (o.pass.path != "" || o.slot != luks.AnyKeyslot) {
		return usagef("--volume-key-file replaces the passphrase: --key-file and --key-slot do not go with it")
	}
	return nil
}

type luksDecryptOptions struct {
	unlockOptions
	force   bool
	verbose bool
}

func runLUKSDecrypt(e *env, args []string) error {
	var o luksDecryptOptions
	fs := newFlagSet("luks decrypt", luksDecryptUsage, e.stdout)
	o.unlockOptions.flags(fs)
	fs.BoolVar(&o.force, "force", false, "replace OUTPUT if it exists")
	fs.BoolVar(&o.verbose, "v", false, "print the unlock time and the throughput at the end")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("want IMAGE and OUTPUT, got %d argument(s)", len(pos))
	}
	if err := o.check(); err != nil {
		return err
	}

	g := e.guard("luks decrypt")
	defer g.Stop()
	img, hdev, h, err := openHeader(pos[0], o.header, false)
	if err != nil {
		return err
	}
	defer closeBoth(img, hdev)

	// The output first: an existing file or a bad path is reported before
	// the passphrase prompt and the key derivation, as luks encrypt does.
	inInfo, _ := img.Stat()
	out, err := g.Create(guard.Spec{Path: pos[1], Force: o.force, Input: inInfo, Stdout: e.stdout})
	if err != nil {
		return err
	}
	start := time.Now()
	v, err := o.open(g, e, img, hdev, h, pos[0], true)
	if err != nil {
		return g.Abort(err)
	}
	defer v.Close()
	unlock := time.Since(start)

	d, err := pumpVolume(g, e, v, out)
	if err != nil {
		return err
	}
	if o.verbose {
		slot := "volume key"
		if v.Keyslot() >= 0 {
			slot = fmt.Sprintf("keyslot %d", v.Keyslot())
		}
		fmt.Fprintf(e.stderr, "xts luks decrypt: unlocked (%s) in %.3f s; %d bytes in %.3f s, %.0f MB/s (%d threads)\n",
			slot, unlock.Seconds(), v.Size(), d.Seconds(), float64(v.Size())/d.Seconds()/1e6, runtime.GOMAXPROCS(0))
	}
	return nil
}

// open unlocks the header with the passphrase or the volume key, for
// reading only or for reading and writing. The secret is read first; the
// key derivation runs under interruptible, so that a signal stops the
// command at once.
func (o *unlockOptions) open(g *guard.Guard, e *env, img, hdev *os.File, h *luks.Header, name string, readOnly bool) (*luks.Volume, error) {
	var opts luks.Options
	opts.ReadOnly = readOnly
	if !sameFile(hdev, img) {
		// A detached header. --header naming the image itself is not
		// one: then luks checks that writes cannot reach the header.
		opts.Header = hdev
	}
	if err := h.CheckSupported(); err != nil {
		return nil, err
	}
	secret, err := o.pass.orVolumeKey(e, o.volumeKey, name)
	if err != nil {
		return nil, err
	}
	if o.slot != luks.AnyKeyslot {
		opts.UseKeyslot, opts.Keyslot = true, o.slot
	}
	var v *luks.Volume
	err = g.Interruptible(func() error {
		defer clear(secret)
		var err error
		if o.volumeKey != "" {
			v, err = luks.OpenWithKey(img, secret, &opts)
		} else {
			v, err = luks.Open(img, secret, &opts)
		}
		return luksError(err)
	})
	return v, err
}

// sameFile reports whether a and b are the same file (also when opened
// twice).
func sameFile(a, b *os.File) bool {
	if a == b {
		return true
	}
	sa, errA := a.Stat()
	sb, errB := b.Stat()
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}
