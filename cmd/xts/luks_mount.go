package main

import (
	"fmt"
	"os"
	"time"

	"github.com/fastxts/xts/internal/fusefile"
	"github.com/fastxts/xts/luks"
)

const luksMountUsage = `Usage: xts luks mount [-d FILE] [-S N] [--header HDR] [--volume-key-file VK] [--readonly] IMAGE DIR

Unlocks the LUKS1 or LUKS2 IMAGE and shows its decrypted data segment as
the file DIR/volume, over FUSE: no root and no device-mapper where
fusermount3 works. What is written to DIR/volume is encrypted into IMAGE
as it comes; fsync on it flushes IMAGE to disk. The command stays in the
foreground until 'fusermount3 -u DIR' or a signal (SIGINT, SIGTERM,
SIGHUP); it then unmounts DIR, flushes IMAGE and wipes the keys.

DIR/volume has the data segment's fixed size, like a disk: open it
without truncating (dd conv=notrunc). An ext4 inside opens with
'fuse2fs DIR/volume MNT'. Where FUSE cannot be used, exit 1 says why.
`

type luksMountOptions struct {
	unlockOptions
	readOnly bool
}

func runLUKSMount(e *env, args []string) error {
	var o luksMountOptions
	fs := newFlagSet("luks mount", luksMountUsage, e.stdout)
	o.unlockOptions.flags(fs)
	fs.BoolVar(&o.readOnly, "readonly", false, "serve DIR/volume read-only (IMAGE is opened read-only)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("want IMAGE and DIR, got %d argument(s)", len(pos))
	}
	if err := o.check(); err != nil {
		return err
	}
	image, dir := pos[0], pos[1]
	if err := checkMountPoint(dir); err != nil {
		return err
	}

	g := e.guard("luks mount")
	defer g.Stop()
	img, hdev, h, err := openHeader(image, o.header, !o.readOnly)
	if err != nil {
		return err
	}
	defer closeBoth(img, hdev)
	v, err := o.open(g, e, img, hdev, h, image, o.readOnly)
	if err != nil {
		return err
	}
	defer v.Close() // wipes the volume key and the round keys

	return mountVolume(g, e, "luks mount", image, dir, volumeFile{v, img}, v.Size(), img, o.readOnly)
}

// unmountWhenFree unmounts after a signal. While a process still uses the
// mount, the kernel refuses (EBUSY): say so once and try again until it is
// free (a second signal exits at once, leaving DIR to fusermount3 -u).
func unmountWhenFree(e *env, m *fusefile.Mount, dir string, unmounted <-chan struct{}) error {
	said := false
	for {
		err := m.Unmount()
		if err == nil {
			<-unmounted
			return nil
		}
		if !said {
			fmt.Fprintf(e.stderr, "xts luks mount: cannot unmount %s yet (%v); waiting until nothing uses it (a second signal exits without unmounting)\n", dir, err)
			said = true
		}
		select {
		case <-unmounted:
			return nil
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// volumeFile is what DIR/volume shows: the volume's decrypted data, with
// fsync reaching the image file.
type volumeFile struct {
	*luks.Volume
	img *os.File
}

func (f volumeFile) Sync() error { return f.img.Sync() }
