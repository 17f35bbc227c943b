package fusefile

import (
	"errors"
	"io"
	"syscall"
)

// The served file's behaviour, the same whichever FUSE back end serves it
// (serve_linux.go, node.go): a fixed size and mode, reads that stop at the
// end, writes that never grow the file, and the Backend's errors kept.

// fileMode is the file's mode: read and write for its owner, or read only.
func fileMode(readOnly bool) uint32 {
	if readOnly {
		return syscall.S_IFREG | 0o400
	}
	return syscall.S_IFREG | 0o600
}

// openErrno refuses an open for writing (flags as open(2) takes them) of
// a read-only file.
func openErrno(readOnly bool, flags uint32) syscall.Errno {
	if readOnly && flags&(syscall.O_WRONLY|syscall.O_RDWR) != 0 {
		return syscall.EROFS
	}
	return 0
}

// setattrRefused says whether a setattr must be refused (EPERM): it may
// leave the size and the permission bits as they are (size, mode), and
// change times, which are not kept; newSize and newMode are nil where the
// request leaves them alone, and newOwner says whether it sets the owner
// or the group.
func setattrRefused(size uint64, mode uint32, newSize *uint64, newMode *uint32, newOwner bool) bool {
	return newSize != nil && *newSize != size ||
		newMode != nil && *newMode&0o7777 != mode&0o7777 ||
		newOwner
}

// readFile reads the file at off into p, up to its end (nothing at or
// past it): the bytes read, or the errno the read fails with.
func readFile(b Backend, p []byte, off int64) (int, syscall.Errno) {
	if off < 0 {
		return 0, syscall.EINVAL
	}
	size := b.Size()
	if off >= size {
		return 0, 0
	}
	p = p[:min(int64(len(p)), size-off)]
	got, err := b.ReadAt(p, off)
	if err != nil && !(errors.Is(err, io.EOF) && got == len(p)) {
		return 0, errnoOf(err)
	}
	return got, 0
}

// writeFile writes p at off into the file, which never grows: a write
// starting at or past the end fails with ENOSPC, one crossing it is cut
// short (the caller retries the rest and gets ENOSPC).
func writeFile(b Backend, readOnly bool, p []byte, off int64) (int, syscall.Errno) {
	if readOnly {
		return 0, syscall.EROFS
	}
	if off < 0 {
		return 0, syscall.EINVAL
	}
	size := b.Size()
	if off >= size && len(p) > 0 {
		return 0, syscall.ENOSPC
	}
	p = p[:min(int64(len(p)), size-off)]
	wrote, err := b.WriteAt(p, off)
	if err != nil {
		return wrote, errnoOf(err)
	}
	return wrote, 0
}
