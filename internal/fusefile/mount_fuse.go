//go:build (darwin || freebsd) && !386 && !arm && !mips && !mipsle

package fusefile

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// maxIO is the largest read or write the kernel is asked to send in one
// request: 1 MiB (FUSE's max_pages of 256, Linux 4.20 and later), so a
// sequential read arrives in pieces large enough for the Backend to spread
// across cores.
const maxIO = 1 << 20

// Mount is a mounted directory serving one file.
type Mount struct {
	dir    string
	server *fuse.Server
}

// New mounts a directory at dir (which must exist and be empty) holding
// one file with b's contents, and serves it until Unmount, or until the
// directory is unmounted from outside (fusermount3 -u DIR).
func New(dir string, b Backend, o Options) (*Mount, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	if err := o.complete(); err != nil {
		return nil, err
	}
	root := &fs.Inode{}
	file := &fileNode{b: b, readOnly: o.ReadOnly}
	// The attributes may be cached: only this process changes them, and
	// the size never changes.
	timeout := time.Hour
	opts := &fs.Options{
		EntryTimeout: &timeout,
		AttrTimeout:  &timeout,
		MountOptions: fuse.MountOptions{
			FsName:        o.FsName,
			Name:          "xts",
			MaxWrite:      maxIO,
			MaxReadAhead:  maxIO,
			Debug:         o.Debug,
			DisableXAttrs: true,
			// Splicing only helps replies read from a file descriptor;
			// ours are decrypted in memory.
			DisableSplice: true,
		},
		UID: uint32(os.Getuid()),
		GID: uint32(os.Getgid()),
		OnAdd: func(ctx context.Context) {
			ch := root.NewPersistentInode(ctx, file, fs.StableAttr{Mode: syscall.S_IFREG, Ino: 2})
			root.AddChild(o.Name, ch, true)
		},
	}
	server, err := fs.Mount(dir, root, opts)
	if err != nil {
		return nil, fmt.Errorf("mounting FUSE at %s: %w", dir, err)
	}
	return &Mount{dir: dir, server: server}, nil
}

// Dir is the mount point.
func (m *Mount) Dir() string { return m.dir }

// Wait blocks until the directory is unmounted, by Unmount or from
// outside, and every request has been answered.
func (m *Mount) Wait() { m.server.Wait() }

// Unmount detaches the directory; it fails (EBUSY) while a process has the
// file open or its working directory inside. After a successful Unmount,
// Wait returns.
func (m *Mount) Unmount() error { return m.server.Unmount() }
