//go:build (darwin || freebsd) && !386 && !arm && !mips && !mipsle

package fusefile

import (
	"context"
	"errors"
	"io"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// fileNode is the one file: every operation goes straight to the Backend.
// It keeps no state of its own, so open handles need none either.
type fileNode struct {
	fs.Inode
	b        Backend
	readOnly bool
}

var (
	_ fs.NodeGetattrer = (*fileNode)(nil)
	_ fs.NodeSetattrer = (*fileNode)(nil)
	_ fs.NodeOpener    = (*fileNode)(nil)
	_ fs.NodeReader    = (*fileNode)(nil)
	_ fs.NodeWriter    = (*fileNode)(nil)
	_ fs.NodeFsyncer   = (*fileNode)(nil)
	_ fs.NodeFlusher   = (*fileNode)(nil)
)

func (n *fileNode) mode() uint32 {
	if n.readOnly {
		return syscall.S_IFREG | 0o400
	}
	return syscall.S_IFREG | 0o600
}

func (n *fileNode) fillAttr(a *fuse.Attr) {
	size := n.b.Size()
	a.Mode = n.mode()
	a.Size = uint64(size)
	a.Blocks = (uint64(size) + 511) / 512
	a.Blksize = 4096
	a.Nlink = 1
}

func (n *fileNode) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	n.fillAttr(&out.Attr)
	return 0
}

// Setattr accepts what does not change the file (a size equal to the
// current one, times, which are not kept) and refuses the rest: the size
// is the volume's and fixed, and the mode says whether it is writable.
func (n *fileNode) Setattr(ctx context.Context, f fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if sz, ok := in.GetSize(); ok && int64(sz) != n.b.Size() {
		return syscall.EPERM
	}
	if m, ok := in.GetMode(); ok && m&0o7777 != n.mode()&0o7777 {
		return syscall.EPERM
	}
	if _, ok := in.GetUID(); ok {
		return syscall.EPERM
	}
	if _, ok := in.GetGID(); ok {
		return syscall.EPERM
	}
	n.fillAttr(&out.Attr)
	return 0
}

func (n *fileNode) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if n.readOnly && flags&(syscall.O_WRONLY|syscall.O_RDWR) != 0 {
		return nil, 0, syscall.EROFS
	}
	// Direct I/O: every read and write goes to the Backend as the caller
	// made it (up to maxIO a request), not through the kernel's page
	// cache. The cache would copy everything once more (a sequential read
	// ran at a third of the speed with it) and could serve stale data if
	// the image changed underneath.
	return nil, fuse.FOPEN_DIRECT_IO, 0
}

func (n *fileNode) Read(ctx context.Context, f fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	size := n.b.Size()
	if off < 0 {
		return nil, syscall.EINVAL
	}
	if off >= size {
		return fuse.ReadResultData(nil), 0
	}
	if rest := size - off; int64(len(dest)) > rest {
		dest = dest[:rest]
	}
	got, err := n.b.ReadAt(dest, off)
	if err != nil && !(errors.Is(err, io.EOF) && got == len(dest)) {
		return nil, errnoOf(err)
	}
	return fuse.ReadResultData(dest[:got]), 0
}

func (n *fileNode) Write(ctx context.Context, f fs.FileHandle, data []byte, off int64) (uint32, syscall.Errno) {
	if n.readOnly {
		return 0, syscall.EROFS
	}
	size := n.b.Size()
	if off < 0 {
		return 0, syscall.EINVAL
	}
	if off >= size && len(data) > 0 {
		return 0, syscall.ENOSPC
	}
	if rest := size - off; int64(len(data)) > rest {
		data = data[:rest] // a short write: the caller retries and gets ENOSPC
	}
	wrote, err := n.b.WriteAt(data, off)
	if err != nil {
		return uint32(wrote), errnoOf(err)
	}
	return uint32(wrote), 0
}

func (n *fileNode) Fsync(ctx context.Context, f fs.FileHandle, flags uint32) syscall.Errno {
	if err := n.b.Sync(); err != nil {
		return errnoOf(err)
	}
	return 0
}

// Flush (each close of a descriptor) does nothing: writes are in the
// Backend when they return, and durability is fsync's job, as for a file
// on any other filesystem.
func (n *fileNode) Flush(ctx context.Context, f fs.FileHandle) syscall.Errno { return 0 }
