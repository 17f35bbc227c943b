//go:build (darwin || freebsd) && !386 && !arm && !mips && !mipsle

package fusefile

import (
	"context"
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

func (n *fileNode) fillAttr(a *fuse.Attr) {
	size := n.b.Size()
	a.Mode = fileMode(n.readOnly)
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
	var newSize *uint64
	var newMode *uint32
	if sz, ok := in.GetSize(); ok {
		newSize = &sz
	}
	if m, ok := in.GetMode(); ok {
		newMode = &m
	}
	_, uid := in.GetUID()
	_, gid := in.GetGID()
	if setattrRefused(uint64(n.b.Size()), fileMode(n.readOnly), newSize, newMode, uid || gid) {
		return syscall.EPERM
	}
	n.fillAttr(&out.Attr)
	return 0
}

func (n *fileNode) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if errno := openErrno(n.readOnly, flags); errno != 0 {
		return nil, 0, errno
	}
	// Direct I/O: every read and write goes to the Backend as the caller
	// made it (up to maxIO a request), not through the kernel's page
	// cache. The cache would copy everything once more (a sequential read
	// ran at a third of the speed with it) and could serve stale data if
	// the image changed underneath.
	return nil, fuse.FOPEN_DIRECT_IO, 0
}

func (n *fileNode) Read(ctx context.Context, f fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	got, errno := readFile(n.b, dest, off)
	if errno != 0 {
		return nil, errno
	}
	return fuse.ReadResultData(dest[:got]), 0
}

func (n *fileNode) Write(ctx context.Context, f fs.FileHandle, data []byte, off int64) (uint32, syscall.Errno) {
	wrote, errno := writeFile(n.b, n.readOnly, data, off)
	return uint32(wrote), errno
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
