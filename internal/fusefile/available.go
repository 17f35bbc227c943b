//go:build linux || ((darwin || freebsd) && !386 && !arm && !mips && !mipsle)

package fusefile

import (
	"fmt"
	"os"
	"os/exec"
)

// Available reports whether FUSE can be used here, and if not, why: the
// kernel device /dev/fuse must be openable, and a non-root process needs
// fusermount3 on the PATH.
func Available() error {
	f, err := os.OpenFile("/dev/fuse", os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("%w: %v (load the fuse module, or give the container the device)", ErrUnavailable, err)
	}
	f.Close()
	if os.Geteuid() != 0 {
		if _, err := exec.LookPath("fusermount3"); err != nil {
			return fmt.Errorf("%w: fusermount3 is not on the PATH (Debian: apt-get install fuse3)", ErrUnavailable)
		}
	}
	return nil
}
