package fusefile

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// On Linux the package speaks the FUSE protocol itself (serve_linux.go,
// proto_linux.go): one directory, one file, every request answered from
// the Backend. A FUSE library linked into the tool would run its package
// initialisers in every xts command, mounting or not; go-fuse's made and
// resized pipes and read /proc at start, 7 ms of each command's start on
// a 2-vCPU VM (bitlocker/README.md, Speed). This file mounts and
// unmounts.

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
	dir    string
	fd     int
	direct bool          // mounted by mount(2), as root, not by fusermount3
	done   chan struct{} // closed when the last request has been answered

	b        Backend
	name     string
	readOnly bool
	uid, gid uint32
	debug    bool
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
	m := &Mount{
		dir: dir, direct: os.Geteuid() == 0, done: make(chan struct{}), b: b, name: o.Name, readOnly: o.ReadOnly,
		uid: uint32(os.Getuid()), gid: uint32(os.Getgid()), debug: o.Debug,
	}
	var err error
	if m.direct {
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
		wg.Go(func() {
			b := buf // the first reader's; the others make their own
			if i > 0 {
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

// abort undoes a mount whose INIT failed: detached even if in use.
func (m *Mount) abort() {
	m.detach(true)
	unix.Close(m.fd)
}

// detach unmounts the directory the way it was mounted; lazy detaches it
// even while in use (umount -l), otherwise the kernel refuses (EBUSY).
func (m *Mount) detach(lazy bool) error {
	if m.direct {
		flags := 0
		if lazy {
			flags = unix.MNT_DETACH
		}
		if err := unix.Unmount(m.dir, flags); err != nil {
			return &os.PathError{Op: "unmount", Path: m.dir, Err: err}
		}
		return nil
	}
	args := []string{"-u", m.dir}
	if lazy {
		args = []string{"-u", "-z", m.dir}
	}
	out, err := exec.Command("fusermount3", args...).CombinedOutput()
	if err != nil {
		if msg := strings.TrimSpace(string(out)); msg != "" {
			return fmt.Errorf("fusermount3 -u %s: %s", m.dir, msg)
		}
		return fmt.Errorf("fusermount3 -u %s: %w", m.dir, err)
	}
	return nil
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
	return m.detach(false)
}
