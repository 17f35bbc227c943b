package fusefile

import (
	"encoding/binary"
	"syscall"
)

// The FUSE kernel protocol as far as one directory holding one file needs
// it: message layouts from the kernel's uapi header (linux/fuse.h),
// protocol 7.31, which every kernel since 5.4 speaks and older ones
// negotiate down (nothing here depends on what came after 7.9 but the
// 1 MiB requests of FUSE_MAX_PAGES, 7.28). Integers are in the machine's
// byte order.

const (
	protoMajor = 7
	protoMinor = 31
)

// Request opcodes.
const (
	opLookup      = 1
	opForget      = 2
	opGetattr     = 3
	opSetattr     = 4
	opSymlink     = 6
	opMknod       = 8
	opMkdir       = 9
	opUnlink      = 10
	opRmdir       = 11
	opRename      = 12
	opLink        = 13
	opOpen        = 14
	opRead        = 15
	opWrite       = 16
	opStatfs      = 17
	opRelease     = 18
	opFsync       = 20
	opFlush       = 25
	opInit        = 26
	opOpendir     = 27
	opReaddir     = 28
	opReleasedir  = 29
	opFsyncdir    = 30
	opAccess      = 34
	opCreate      = 35
	opInterrupt   = 36
	opDestroy     = 38
	opPoll        = 40
	opNotifyReply = 41
	opBatchForget = 42
	opRename2     = 45
	opTmpfile     = 51
)

// INIT flags this server takes when the kernel offers them.
const (
	initAsyncRead = 1 << 0  // several reads of a file in flight at once
	initBigWrites = 1 << 5  // writes larger than a page
	initMaxPages  = 1 << 22 // max_pages in the reply sets the request size
)

// Setattr's valid bits.
const (
	fattrMode = 1 << 0
	fattrUID  = 1 << 1
	fattrGID  = 1 << 2
	fattrSize = 1 << 3
)

const (
	fopenDirectIO = 1 << 0
	rootID        = 1 // the mounted directory's node id, fixed by the protocol
	fileID        = 2 // the one file's
	inHeaderLen   = 40
	outHeaderLen  = 16
	attrLen       = 88
	readInLen     = 40 // fuse_read_in, also the start of fuse_write_in
	writeInLen    = 40
)

var ne = binary.NativeEndian

// inHeader is fuse_in_header, the start of every request.
type inHeader struct {
	len    uint32
	opcode uint32
	unique uint64
	nodeID uint64
}

func parseInHeader(b []byte) (inHeader, bool) {
	if len(b) < inHeaderLen {
		return inHeader{}, false
	}
	h := inHeader{len: ne.Uint32(b), opcode: ne.Uint32(b[4:]), unique: ne.Uint64(b[8:]), nodeID: ne.Uint64(b[16:])}
	return h, int(h.len) == len(b)
}

// putOutHeader writes fuse_out_header: the reply's length, its error (a
// negated errno, or 0) and the request it answers.
func putOutHeader(b []byte, n int, errno syscall.Errno, unique uint64) {
	ne.PutUint32(b, uint32(n))
	ne.PutUint32(b[4:], uint32(-int32(errno)))
	ne.PutUint64(b[8:], unique)
}

// attr is what fuse_attr carries here; times stay at zero.
type attr struct {
	ino, size, blocks uint64
	mode, nlink       uint32
	uid, gid          uint32
	blksize           uint32
}

func (a *attr) put(b []byte) {
	clear(b[:attrLen])
	ne.PutUint64(b, a.ino)
	ne.PutUint64(b[8:], a.size)
	ne.PutUint64(b[16:], a.blocks)
	// atime, mtime, ctime and their nanoseconds: zero.
	ne.PutUint32(b[60:], a.mode)
	ne.PutUint32(b[64:], a.nlink)
	ne.PutUint32(b[68:], a.uid)
	ne.PutUint32(b[72:], a.gid)
	// rdev at 76: zero.
	ne.PutUint32(b[80:], a.blksize)
}

// putAttrOut writes fuse_attr_out: validity (seconds), then the attributes.
func putAttrOut(b []byte, valid uint64, a *attr) int {
	clear(b[:16])
	ne.PutUint64(b, valid)
	a.put(b[16:])
	return 16 + attrLen
}

// putEntryOut writes fuse_entry_out for a lookup that found node id.
func putEntryOut(b []byte, id, valid uint64, a *attr) int {
	clear(b[:40])
	ne.PutUint64(b, id)
	ne.PutUint64(b[16:], valid) // entry_valid
	ne.PutUint64(b[24:], valid) // attr_valid
	a.put(b[40:])
	return 40 + attrLen
}

// putDirent appends fuse_dirent (padded to 8 bytes) to b if it fits in
// max bytes, reporting whether it did.
func putDirent(b []byte, max int, ino, off uint64, typ uint32, name string) ([]byte, bool) {
	n := (24 + len(name) + 7) &^ 7
	if len(b)+n > max {
		return b, false
	}
	var e [24]byte
	ne.PutUint64(e[:], ino)
	ne.PutUint64(e[8:], off)
	ne.PutUint32(e[16:], uint32(len(name)))
	ne.PutUint32(e[20:], typ)
	b = append(b, e[:]...)
	b = append(b, name...)
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	return b, true
}
