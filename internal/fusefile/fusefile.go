package fusefile

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"
)

// Backend is the contents of the served file.
type Backend interface {
	io.ReaderAt
	io.WriterAt
	// Size is the file's fixed size in bytes.
	Size() int64
	// Sync makes every write that returned durable (fsync of the image).
	Sync() error
}

// Options configure a mount. The zero value serves "volume", read-write.
type Options struct {
	// Name is the file's name in the mounted directory ("volume" if empty).
	Name string
	// ReadOnly serves the file with mode 0400 and refuses writes (EROFS).
	ReadOnly bool
	// FsName is the source shown in /proc/mounts ("xts" if empty).
	FsName string
	// Debug logs every FUSE request to standard error.
	Debug bool
}

// complete fills in the defaults and checks what the mount will show.
func (o *Options) complete() error {
	if o.Name == "" {
		o.Name = "volume"
	}
	if o.FsName == "" {
		o.FsName = "xts"
	}
	if strings.ContainsAny(o.Name, "/\x00") || o.Name == "." || o.Name == ".." {
		return fmt.Errorf("fusefile: %q cannot be a file name", o.Name)
	}
	if strings.ContainsAny(o.FsName, ",\x00") {
		return fmt.Errorf("fusefile: file system name %q has a comma or a NUL", o.FsName)
	}
	return nil
}

// ErrUnavailable is returned (wrapped) by New when this machine cannot
// mount FUSE filesystems.
var ErrUnavailable = errors.New("FUSE is not available")

// errnoOf maps a Backend error to the errno the caller sees: the
// underlying one when there is one (a full disk stays ENOSPC), EIO
// otherwise.
func errnoOf(err error) syscall.Errno {
	var e syscall.Errno
	if errors.As(err, &e) {
		return e
	}
	return syscall.EIO
}
