package guard

import (
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// openUnnamed opens an unnamed regular file in dir (O_TMPFILE): it has no
// name until linkUnnamed gives it one, so whatever happens before (an
// error, a signal, SIGKILL, a crash) it vanishes with the process. It
// returns errNoUnnamed where the kernel or the file system cannot do it.
func openUnnamed(dir string) (*os.File, error) {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
	switch {
	case err == nil:
		return os.NewFile(uintptr(fd), dir+"/(unnamed output)"), nil
	case errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.EISDIR), errors.Is(err, unix.EINVAL):
		// EISDIR: a kernel before 3.11 that took O_TMPFILE for O_DIRECTORY.
		return nil, errNoUnnamed
	default:
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
}

// linkUnnamed gives the unnamed file f the name path; it fails with an
// error matching fs.ErrExist if path exists. Linking /proc/self/fd/N with
// AT_SYMLINK_FOLLOW needs no privilege (AT_EMPTY_PATH on the descriptor
// itself needs CAP_DAC_READ_SEARCH on most kernels), so that is tried
// first, and AT_EMPTY_PATH only where /proc is not mounted.
func linkUnnamed(f *os.File, path string) error {
	proc := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	err := unix.Linkat(unix.AT_FDCWD, proc, unix.AT_FDCWD, path, unix.AT_SYMLINK_FOLLOW)
	if err == nil {
		return nil
	}
	if errors.Is(err, unix.ENOENT) {
		if _, serr := os.Stat("/proc/self/fd"); serr != nil {
			err = unix.Linkat(int(f.Fd()), "", unix.AT_FDCWD, path, unix.AT_EMPTY_PATH)
			if err == nil {
				return nil
			}
		}
	}
	return &os.LinkError{Op: "link", Old: "(unnamed output)", New: path, Err: err}
}
