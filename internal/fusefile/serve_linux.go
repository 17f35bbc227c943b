package fusefile

import (
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// The server's side of the protocol: requests read from the mount's
// descriptor of /dev/fuse, each answered from the Backend.

// receive reads one request into buf, waiting for it; io.EOF once the
// directory is unmounted.
func (m *Mount) receive(buf []byte) ([]byte, error) {
	for {
		n, err := unix.Read(m.fd, buf)
		switch {
		case err == nil:
			return buf[:n], nil
		case err == unix.EINTR, err == unix.ENOENT, err == unix.EAGAIN:
			// Interrupted, or a request the kernel took back before it was
			// read: wait for the next.
		case err == unix.ENODEV:
			return nil, io.EOF
		default:
			return nil, err
		}
	}
}

// reply writes a reply whose header is b[:outHeaderLen] and body the rest.
// ENOENT means the request was interrupted and nobody waits for it.
func (m *Mount) reply(b []byte, errno syscall.Errno, unique uint64) {
	if errno != 0 {
		b = b[:outHeaderLen]
	}
	putOutHeader(b, len(b), errno, unique)
	if m.debug {
		fmt.Fprintf(os.Stderr, "fusefile: reply %d: %d bytes, errno %d\n", unique, len(b), errno)
	}
	for {
		_, err := unix.Write(m.fd, b)
		if err != unix.EINTR {
			return
		}
	}
}

// init answers the kernel's INIT request.
func (m *Mount) init(buf []byte) error {
	req, err := m.receive(buf)
	if err != nil {
		return err
	}
	h, ok := parseInHeader(req)
	if !ok || h.opcode != opInit || len(req) < inHeaderLen+16 {
		return fmt.Errorf("the kernel's first FUSE request is not a valid INIT (opcode %d, %d bytes)", h.opcode, len(req))
	}
	in := req[inHeaderLen:]
	major, minor := ne.Uint32(in), ne.Uint32(in[4:])
	readAhead, offered := ne.Uint32(in[8:]), ne.Uint32(in[12:])
	var out [outHeaderLen + 64]byte
	if major < protoMajor {
		m.reply(out[:], unix.EPROTO, h.unique)
		return fmt.Errorf("the kernel speaks FUSE %d.%d, older than %d", major, minor, protoMajor)
	}
	b := out[outHeaderLen:]
	ne.PutUint32(b, protoMajor)
	ne.PutUint32(b[4:], protoMinor)
	if major == protoMajor {
		ne.PutUint32(b[4:], min(minor, protoMinor))
	}
	ne.PutUint32(b[8:], min(readAhead, maxIO))
	ne.PutUint32(b[12:], offered&(initAsyncRead|initBigWrites|initMaxPages))
	ne.PutUint16(b[16:], 16)                 // max_background
	ne.PutUint16(b[18:], 12)                 // congestion_threshold
	ne.PutUint32(b[20:], maxIO)              // max_write
	ne.PutUint32(b[24:], 1)                  // time_gran (ns)
	ne.PutUint16(b[28:], uint16(maxIO/4096)) // max_pages
	if major > protoMajor {
		// A newer major version: reply with ours alone, and the kernel
		// sends INIT again in it.
		m.reply(out[:outHeaderLen+8], 0, h.unique)
		return m.init(buf)
	}
	if major == protoMajor && minor < 23 {
		// Kernels before 3.15 (protocol 7.23) take the reply's first 24
		// bytes only, and refuse a longer one.
		m.reply(out[:outHeaderLen+24], 0, h.unique)
		return nil
	}
	m.reply(out[:], 0, h.unique)
	return nil
}

// serve answers requests until the directory is unmounted.
func (m *Mount) serve(buf []byte) {
	for {
		req, err := m.receive(buf)
		if err != nil {
			if err != io.EOF {
				fmt.Fprintf(os.Stderr, "fusefile: reading a request from /dev/fuse: %v\n", err)
			}
			return
		}
		h, ok := parseInHeader(req)
		if !ok {
			continue // not a request the protocol sends: nothing to answer
		}
		if m.debug {
			fmt.Fprintf(os.Stderr, "fusefile: request %d: opcode %d, node %d, %d bytes\n", h.unique, h.opcode, h.nodeID, h.len)
		}
		m.handle(h, req[inHeaderLen:], buf)
		if h.opcode == opDestroy {
			return
		}
	}
}

// attrOf fills the attributes of node id, false if there is no such node.
func (m *Mount) attrOf(id uint64, a *attr) bool {
	*a = attr{ino: id, uid: m.uid, gid: m.gid, blksize: 4096}
	switch id {
	case rootID:
		a.mode, a.nlink = syscall.S_IFDIR|0o755, 2
	case fileID:
		size := uint64(m.b.Size())
		a.mode, a.nlink, a.size, a.blocks = fileMode(m.readOnly), 1, size, (size+511)/512
	default:
		return false
	}
	return true
}

// handle answers one request. buf holds the request (in is its body,
// after the header); a reply carrying data is built in buf, over the
// request, once what is needed of it has been read.
func (m *Mount) handle(h inHeader, in, buf []byte) {
	var small [outHeaderLen + 128]byte
	out := small[:]
	var a attr
	switch h.opcode {
	case opForget, opBatchForget, opInterrupt, opNotifyReply:
		// No reply: nodes are never forgotten here, and a request in
		// progress finishes rather than being cut short.
		return

	case opInit:
		m.reply(out, unix.EIO, h.unique) // only once, and it was answered

	case opDestroy:
		m.reply(out[:outHeaderLen], 0, h.unique)

	case opLookup:
		name, _, _ := strings.Cut(string(in), "\x00")
		if h.nodeID != rootID || name != m.name {
			m.reply(out, unix.ENOENT, h.unique)
			return
		}
		m.attrOf(fileID, &a)
		n := putEntryOut(out[outHeaderLen:], fileID, attrValid, &a)
		m.reply(out[:outHeaderLen+n], 0, h.unique)

	case opGetattr:
		if !m.attrOf(h.nodeID, &a) {
			m.reply(out, unix.ENOENT, h.unique)
			return
		}
		n := putAttrOut(out[outHeaderLen:], attrValid, &a)
		m.reply(out[:outHeaderLen+n], 0, h.unique)

	case opSetattr:
		m.setattr(h, in, out)

	case opOpen:
		m.open(h, in, out)

	case opRead:
		m.read(h, in, buf)

	case opWrite:
		m.write(h, in, out)

	case opFlush, opRelease, opReleasedir, opFsyncdir:
		// Flush (each close of a descriptor) has nothing to do: writes are
		// in the Backend when they return, and durability is fsync's job,
		// as for a file on any other filesystem.
		m.reply(out[:outHeaderLen], 0, h.unique)

	case opFsync:
		if err := m.b.Sync(); err != nil {
			m.reply(out, errnoOf(err), h.unique)
			return
		}
		m.reply(out[:outHeaderLen], 0, h.unique)

	case opOpendir:
		if h.nodeID != rootID {
			m.reply(out, unix.ENOTDIR, h.unique)
			return
		}
		clear(out[outHeaderLen : outHeaderLen+16])
		m.reply(out[:outHeaderLen+16], 0, h.unique)

	case opReaddir:
		m.readdir(h, in, buf)

	case opStatfs:
		b := out[outHeaderLen : outHeaderLen+80]
		clear(b)
		size := uint64(m.b.Size())
		ne.PutUint64(b, (size+4095)/4096) // blocks
		ne.PutUint64(b[24:], 2)           // files
		ne.PutUint32(b[40:], 4096)        // bsize
		ne.PutUint32(b[44:], 255)         // namelen
		ne.PutUint32(b[48:], 4096)        // frsize
		m.reply(out[:outHeaderLen+80], 0, h.unique)

	case opAccess:
		if len(in) >= 4 && ne.Uint32(in)&unix.W_OK != 0 && m.readOnly && h.nodeID == fileID {
			m.reply(out, unix.EROFS, h.unique)
			return
		}
		m.reply(out[:outHeaderLen], 0, h.unique)

	case opCreate, opMknod, opMkdir, opSymlink, opLink, opUnlink, opRmdir, opRename, opRename2, opTmpfile:
		// The directory holds the one file, always.
		m.reply(out, unix.EPERM, h.unique)

	case opPoll:
		// Told once (primePoll), the kernel polls the file no more and
		// takes it as always ready, as for a file on a disk.
		m.reply(out, unix.ENOSYS, h.unique)

	default:
		// Extended attributes, locks, lseek, statx and the rest: told
		// ENOSYS once, the kernel does without them.
		m.reply(out, unix.ENOSYS, h.unique)
	}
}

// setattr accepts what does not change the file (a size equal to the
// current one, times, which are not kept) and refuses the rest: the size
// is the volume's and fixed, and the mode says whether it is writable.
func (m *Mount) setattr(h inHeader, in, out []byte) {
	var a attr
	if !m.attrOf(h.nodeID, &a) {
		m.reply(out, unix.ENOENT, h.unique)
		return
	}
	if len(in) < 88 {
		m.reply(out, unix.EINVAL, h.unique)
		return
	}
	valid := ne.Uint32(in)
	var newSize *uint64
	var newMode *uint32
	if valid&fattrSize != 0 {
		size := ne.Uint64(in[16:])
		newSize = &size
	}
	if valid&fattrMode != 0 {
		mode := ne.Uint32(in[68:])
		newMode = &mode
	}
	if setattrRefused(a.size, a.mode, newSize, newMode, valid&(fattrUID|fattrGID) != 0) ||
		newSize != nil && h.nodeID != fileID {
		m.reply(out, unix.EPERM, h.unique)
		return
	}
	n := putAttrOut(out[outHeaderLen:], attrValid, &a)
	m.reply(out[:outHeaderLen+n], 0, h.unique)
}

func (m *Mount) open(h inHeader, in, out []byte) {
	if h.nodeID != fileID {
		m.reply(out, unix.EISDIR, h.unique)
		return
	}
	if len(in) < 4 {
		m.reply(out, unix.EINVAL, h.unique)
		return
	}
	if errno := openErrno(m.readOnly, ne.Uint32(in)); errno != 0 {
		m.reply(out, errno, h.unique)
		return
	}
	// Direct I/O: every read and write goes to the Backend as the caller
	// made it (up to maxIO a request), not through the kernel's page
	// cache. The cache would copy everything once more and could serve
	// stale data if the image changed underneath.
	b := out[outHeaderLen : outHeaderLen+16]
	clear(b)
	ne.PutUint32(b[8:], fopenDirectIO)
	m.reply(out[:outHeaderLen+16], 0, h.unique)
}

// read answers READ with the Backend's bytes, read into buf after the
// reply header (the request in buf is no longer needed by then).
func (m *Mount) read(h inHeader, in, buf []byte) {
	if h.nodeID != fileID || len(in) < readInLen {
		m.reply(buf, unix.EINVAL, h.unique)
		return
	}
	off, want := int64(ne.Uint64(in[8:])), int(ne.Uint32(in[16:]))
	if want > len(buf)-outHeaderLen {
		m.reply(buf, unix.EINVAL, h.unique)
		return
	}
	got, errno := readFile(m.b, buf[outHeaderLen:outHeaderLen+want], off)
	m.reply(buf[:outHeaderLen+got], errno, h.unique)
}

func (m *Mount) write(h inHeader, in, out []byte) {
	if h.nodeID != fileID || len(in) < writeInLen {
		m.reply(out, unix.EINVAL, h.unique)
		return
	}
	off, n := int64(ne.Uint64(in[8:])), int(ne.Uint32(in[16:]))
	data := in[writeInLen:]
	if n > len(data) {
		m.reply(out, unix.EINVAL, h.unique)
		return
	}
	wrote, errno := writeFile(m.b, m.readOnly, data[:n], off)
	if errno != 0 {
		m.reply(out, errno, h.unique)
		return
	}
	b := out[outHeaderLen : outHeaderLen+8]
	clear(b)
	ne.PutUint32(b, uint32(wrote))
	m.reply(out[:outHeaderLen+8], 0, h.unique)
}

// readdir lists ".", ".." and the file, from the offset the kernel gives
// (the index of the next entry), as many as fit in its buffer.
func (m *Mount) readdir(h inHeader, in, buf []byte) {
	if h.nodeID != rootID || len(in) < readInLen {
		m.reply(buf, unix.ENOTDIR, h.unique)
		return
	}
	off, max := ne.Uint64(in[8:]), int(ne.Uint32(in[16:]))
	max = min(max, len(buf)-outHeaderLen)
	entries := []struct {
		ino  uint64
		typ  uint32
		name string
	}{{rootID, unix.DT_DIR, "."}, {rootID, unix.DT_DIR, ".."}, {fileID, unix.DT_REG, m.name}}
	b := buf[outHeaderLen:outHeaderLen]
	for i := off; i < uint64(len(entries)); i++ {
		e := entries[i]
		var ok bool
		if b, ok = putDirent(b, max, e.ino, i+1, e.typ, e.name); !ok {
			break
		}
	}
	m.reply(buf[:outHeaderLen+len(b)], 0, h.unique)
}
