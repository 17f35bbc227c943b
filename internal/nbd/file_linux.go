package nbd

import (
	"errors"

	"golang.org/x/sys/unix"
)

// Trim implements Trimmer: it punches a hole in the file (the size stays);
// on a file system that cannot, it does nothing.
func (b *File) Trim(off, n int64) error {
	if b.readOnly {
		return errors.New("nbd: file backend is read-only")
	}
	err := unix.Fallocate(int(b.f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, off, n)
	if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSYS) {
		return nil // a trim is advice: the data simply stays
	}
	return err
}

// WriteZeroes implements Zeroer: a punched hole, or FALLOC_FL_ZERO_RANGE
// when the space must stay allocated. A file system without either gets
// errors.ErrUnsupported, and the server writes zeros instead.
func (b *File) WriteZeroes(off, n int64, mayTrim bool) error {
	if b.readOnly {
		return errors.New("nbd: file backend is read-only")
	}
	mode := uint32(unix.FALLOC_FL_ZERO_RANGE | unix.FALLOC_FL_KEEP_SIZE)
	if mayTrim {
		mode = unix.FALLOC_FL_PUNCH_HOLE | unix.FALLOC_FL_KEEP_SIZE
	}
	err := unix.Fallocate(int(b.f.Fd()), mode, off, n)
	if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSYS) {
		return errors.ErrUnsupported
	}
	return err
}
