package fusefile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// On Linux the package speaks the FUSE protocol itself (proto_linux.go):
// one directory, one file, every request answered from the Backend. A
// FUSE library linked into the tool would run its package initialisers in
// every xts command, mounting or not; go-fuse's made and resized pipes
// and read /proc at start, 7 ms of each command's start on a 2-vCPU VM
// (bitlocker/README.md, Speed).

// maxIO is the largest read or write the kernel is asked to send in one
// request: 1 MiB (FUSE's max_pages of 256, Linux 4.20 and later), so a
// sequential read arrives in pieces large enough for the Backend to spread
// across cores.
const maxIO = 1 << 20

// attrValid is how long, in seconds, the kernel may cache the names and
// attributes: only this process changes them, and the size never changes.
const attrValid = 3600

// Mount is a mounted directory serving one file.
type Mount struct {
	dir  string
	fd   int
	done chan struct{} // closed when the last request has been answered

	b        Backend
	name     string
	readOnly bool
	uid, gid uint32
	debug    bool
}

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

// New mounts a directory at dir (which must exist and be empty) holding
// one file with b's contents, and serves it until Unmount, or until the
// directory is unmounted from outside (fusermount3 -u DIR).
func New(dir string, b Backend, o Options) (*Mount, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	if o.Name == "" {
		o.Name = "volume"
	}
	if o.FsName == "" {
		o.FsName = "xts"
	}
	if strings.ContainsAny(o.Name, "/\x00") || o.Name == "." || o.Name == ".." {
		return nil, fmt.Errorf("fusefile: %q cannot be a file name", o.Name)
	}
	if strings.ContainsAny(o.FsName, ",\x00") {
		return nil, fmt.Errorf("fusefile: file system name %q has a comma or a NUL", o.FsName)
	}
	m := &Mount{
		dir: dir, done: make(chan struct{}), b: b, name: o.Name, readOnly: o.ReadOnly,
		uid: uint32(os.Getuid()), gid: uint32(os.Getgid()), debug: o.Debug,
	}
	var err error
	if os.Geteuid() == 0 {
		m.fd, err = mountDirect(dir, o.FsName, m.uid, m.gid)
	} else {
		m.fd, err = mountFusermount(dir, o.FsName)
	}
	if err != nil {
		return nil, fmt.Errorf("mounting FUSE at %s: %w", dir, err)
	}
	// The kernel's INIT is the first request: answer it before returning,
	// so that the directory can be used as soon as New has.
	buf := make([]byte, maxIO+4096)
	if err := m.init(buf); err != nil {
		m.abort()
		return nil, fmt.Errorf("mounting FUSE at %s: %w", dir, err)
	}
	// Several readers, so that a slow request (a large read) does not
	// hold up the others: the kernel hands each request to one of them.
	readers := min(max(runtime.GOMAXPROCS(0), 2), 8)
	var wg sync.WaitGroup
	for i := range readers {
		b := buf
		if i > 0 {
			b = nil // its own, made in its goroutine
		}
		wg.Go(func() {
			if b == nil {
				b = make([]byte, maxIO+4096)
			}
			m.serve(b)
		})
	}
	go func() {
		wg.Wait()
		unix.Close(m.fd)
		close(m.done)
	}()
	if err := m.primePoll(); err != nil {
		if m.Unmount() == nil {
			m.Wait()
		}
		return nil, fmt.Errorf("mounting FUSE at %s: %w", dir, err)
	}
	return m, nil
}

// primePoll has the kernel learn that this server does not answer poll
// requests. Until a FUSE_POLL request has been answered ENOSYS once, the
// kernel sends one whenever a file of the mount is polled, and os.Open in
// this very process polls: the Go runtime adds every file it opens to its
// epoll set, in a system call during which that thread keeps its
// processor. Were that the first poll, the thread would wait for a reply
// only this process can send, with a processor the readers may need:
// mounted and opened in one process (as the tests do), requests could
// hang. So the first poll is made here, by a plain poll(2), while the
// readers run.
func (m *Mount) primePoll() error {
	fd, err := unix.Open(filepath.Join(m.dir, m.name), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("opening the file it serves: %w", err)
	}
	defer unix.Close(fd)
	for {
		_, err = unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 0)
		if err != unix.EINTR {
			return err
		}
	}
}

// mountDirect mounts as root with mount(2) on a descriptor of /dev/fuse.
func mountDirect(dir, fsName string, uid, gid uint32) (int, error) {
	fd, err := unix.Open("/dev/fuse", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	data := fmt.Sprintf("fd=%d,rootmode=40000,user_id=%d,group_id=%d", fd, uid, gid)
	if err := unix.Mount(fsName, dir, "fuse.xts", unix.MS_NOSUID|unix.MS_NODEV, data); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// mountFusermount has the set-user-ID fusermount3 mount, and receives the
// descriptor of /dev/fuse it opened over a socket (its _FUSE_COMMFD).
func mountFusermount(dir, fsName string) (int, error) {
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	defer unix.Close(pair[0])
	theirs := os.NewFile(uintptr(pair[1]), "fusermount socket")
	cmd := exec.Command("fusermount3", "-o", "fsname="+fsName+",subtype=xts", "--", dir)
	cmd.ExtraFiles = []*os.File{theirs} // descriptor 3 in fusermount3
	cmd.Env = append(os.Environ(), "_FUSE_COMMFD=3")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		theirs.Close()
		return -1, err
	}
	theirs.Close()
	fd, recvErr := receiveFD(pair[0])
	if err := cmd.Wait(); err != nil {
		if fd >= 0 {
			unix.Close(fd)
		}
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return -1, fmt.Errorf("fusermount3: %s", msg)
		}
		return -1, fmt.Errorf("fusermount3: %w", err)
	}
	if recvErr != nil {
		return -1, fmt.Errorf("fusermount3 sent no descriptor: %w", recvErr)
	}
	return fd, nil
}

// receiveFD reads the one descriptor fusermount3 sends (SCM_RIGHTS).
func receiveFD(sock int) (int, error) {
	var data [4]byte
	oob := make([]byte, unix.CmsgSpace(4))
	for {
		_, oobn, _, _, err := unix.Recvmsg(sock, data[:], oob, unix.MSG_CMSG_CLOEXEC)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return -1, err
		}
		msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
		if err != nil {
			return -1, err
		}
		for _, msg := range msgs {
			if fds, err := unix.ParseUnixRights(&msg); err == nil && len(fds) > 0 {
				for _, extra := range fds[1:] {
					unix.Close(extra)
				}
				return fds[0], nil
			}
		}
		return -1, io.ErrUnexpectedEOF
	}
}

// abort undoes a mount whose INIT failed.
func (m *Mount) abort() {
	if os.Geteuid() == 0 {
		unix.Unmount(m.dir, unix.MNT_DETACH)
	} else {
		exec.Command("fusermount3", "-u", "-z", m.dir).Run()
	}
	unix.Close(m.fd)
}

// Dir is the mount point.
func (m *Mount) Dir() string { return m.dir }

// Wait blocks until the directory is unmounted, by Unmount or from
// outside, and every request has been answered.
func (m *Mount) Wait() { <-m.done }

// Unmount detaches the directory; it fails (EBUSY) while a process has the
// file open or its working directory inside. After a successful Unmount,
// Wait returns.
func (m *Mount) Unmount() error {
	select {
	case <-m.done:
		return nil // already unmounted, from outside
	default:
	}
	if os.Geteuid() == 0 {
		if err := unix.Unmount(m.dir, 0); err != nil {
			return &os.PathError{Op: "unmount", Path: m.dir, Err: err}
		}
		return nil
	}
	out, err := exec.Command("fusermount3", "-u", m.dir).CombinedOutput()
	if err != nil {
		if msg := strings.TrimSpace(string(out)); msg != "" {
			return fmt.Errorf("fusermount3 -u %s: %s", m.dir, msg)
		}
		return fmt.Errorf("fusermount3 -u %s: %w", m.dir, err)
	}
	return nil
}

// read reads one request into buf, waiting for it; io.EOF once the
// directory is unmounted.
func (m *Mount) read(buf []byte) ([]byte, error) {
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
	req, err := m.read(buf)
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
		req, err := m.read(buf)
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

func (m *Mount) fileMode() uint32 {
	if m.readOnly {
		return syscall.S_IFREG | 0o400
	}
	return syscall.S_IFREG | 0o600
}

// attrOf fills the attributes of node id, false if there is no such node.
func (m *Mount) attrOf(id uint64, a *attr) bool {
	*a = attr{ino: id, uid: m.uid, gid: m.gid, blksize: 4096}
	switch id {
	case rootID:
		a.mode, a.nlink = syscall.S_IFDIR|0o755, 2
	case fileID:
		size := uint64(m.b.Size())
		a.mode, a.nlink, a.size, a.blocks = m.fileMode(), 1, size, (size+511)/512
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
		m.read1(h, in, buf)

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
	switch {
	case valid&fattrSize != 0 && (h.nodeID != fileID || ne.Uint64(in[16:]) != a.size),
		valid&fattrMode != 0 && ne.Uint32(in[68:])&0o7777 != a.mode&0o7777,
		valid&(fattrUID|fattrGID) != 0:
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
	if m.readOnly && ne.Uint32(in)&(unix.O_WRONLY|unix.O_RDWR) != 0 {
		m.reply(out, unix.EROFS, h.unique)
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

// read1 answers READ with the Backend's bytes, read into buf after the
// reply header (the request in buf is no longer needed by then).
func (m *Mount) read1(h inHeader, in, buf []byte) {
	if h.nodeID != fileID || len(in) < readInLen {
		m.reply(buf, unix.EINVAL, h.unique)
		return
	}
	off, want := ne.Uint64(in[8:]), int64(ne.Uint32(in[16:]))
	size := m.b.Size()
	if off > 1<<63-1 || want > int64(len(buf)-outHeaderLen) {
		m.reply(buf, unix.EINVAL, h.unique)
		return
	}
	n := min(want, max(0, size-int64(off)))
	dest := buf[outHeaderLen : outHeaderLen+n]
	if n > 0 {
		got, err := m.b.ReadAt(dest, int64(off))
		if err != nil && !(errors.Is(err, io.EOF) && got == len(dest)) {
			m.reply(buf, errnoOf(err), h.unique)
			return
		}
		dest = dest[:got]
	}
	m.reply(buf[:outHeaderLen+len(dest)], 0, h.unique)
}

func (m *Mount) write(h inHeader, in, out []byte) {
	if h.nodeID != fileID || len(in) < writeInLen {
		m.reply(out, unix.EINVAL, h.unique)
		return
	}
	if m.readOnly {
		m.reply(out, unix.EROFS, h.unique)
		return
	}
	off, n := ne.Uint64(in[8:]), int(ne.Uint32(in[16:]))
	data := in[writeInLen:]
	if n > len(data) || off > 1<<63-1 {
		m.reply(out, unix.EINVAL, h.unique)
		return
	}
	data = data[:n]
	size := m.b.Size()
	if int64(off) >= size && len(data) > 0 {
		m.reply(out, unix.ENOSPC, h.unique)
		return
	}
	if rest := size - int64(off); int64(len(data)) > rest {
		data = data[:rest] // a short write: the caller retries and gets ENOSPC
	}
	wrote, err := m.b.WriteAt(data, int64(off))
	if err != nil {
		m.reply(out, errnoOf(err), h.unique)
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
