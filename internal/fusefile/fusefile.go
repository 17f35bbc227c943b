package fusefile

import (
	"errors"
	"io"
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
