//go:build !linux && !((darwin || freebsd) && !386 && !arm && !mips && !mipsle)

package fusefile

import (
	"fmt"
	"runtime"
)

// Mount is a mounted directory; on this platform none can be made.
type Mount struct{}

// Available reports why FUSE cannot be used here: the FUSE library this
// package is built on (github.com/hanwen/go-fuse/v2) does not build for
// this GOOS/GOARCH.
func Available() error {
	return fmt.Errorf("%w: not built for %s/%s (FUSE mounts need 64-bit Linux, macOS or FreeBSD)", ErrUnavailable, runtime.GOOS, runtime.GOARCH)
}

// New fails: see Available.
func New(dir string, b Backend, o Options) (*Mount, error) { return nil, Available() }

// Dir, Wait and Unmount exist so that callers build everywhere.
func (m *Mount) Dir() string    { return "" }
func (m *Mount) Wait()          {}
func (m *Mount) Unmount() error { return Available() }
