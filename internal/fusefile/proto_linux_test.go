package fusefile

import (
	"errors"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// fakeKernel is the kernel's end of a Mount whose descriptor is one end
// of a socket pair that keeps message boundaries, as /dev/fuse does.
type fakeKernel struct {
	t  *testing.T
	fd int
}

func newFakeMount(t *testing.T) (*Mount, *fakeKernel) {
	t.Helper()
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no SOCK_SEQPACKET socket pair here: %v", err)
	}
	t.Cleanup(func() { unix.Close(pair[0]); unix.Close(pair[1]) })
	m := &Mount{fd: pair[0], b: &memBackend{data: pattern(8192)}, name: "volume"}
	return m, &fakeKernel{t: t, fd: pair[1]}
}

// send queues a request: the header, then body.
func (k *fakeKernel) send(opcode uint32, unique, node uint64, body []byte) {
	b := make([]byte, inHeaderLen+len(body))
	ne.PutUint32(b, uint32(len(b)))
	ne.PutUint32(b[4:], opcode)
	ne.PutUint64(b[8:], unique)
	ne.PutUint64(b[16:], node)
	copy(b[inHeaderLen:], body)
	if _, err := unix.Write(k.fd, b); err != nil {
		k.t.Fatal(err)
	}
}

func initBody(major, minor, readAhead, flags uint32) []byte {
	b := make([]byte, 64)
	ne.PutUint32(b, major)
	ne.PutUint32(b[4:], minor)
	ne.PutUint32(b[8:], readAhead)
	ne.PutUint32(b[12:], flags)
	return b
}

// recv reads one reply and checks that it answers unique: its errno and body.
func (k *fakeKernel) recv(unique uint64) (syscall.Errno, []byte) {
	b := make([]byte, 4096)
	n, err := unix.Read(k.fd, b)
	if err != nil {
		k.t.Fatal(err)
	}
	b = b[:n]
	if n < outHeaderLen || int(ne.Uint32(b)) != n {
		k.t.Fatalf("reply of %d bytes with length field %d", n, ne.Uint32(b))
	}
	if got := ne.Uint64(b[8:]); got != unique {
		k.t.Fatalf("reply to request %d, want %d", got, unique)
	}
	return syscall.Errno(-int32(ne.Uint32(b[4:]))), b[outHeaderLen:]
}

func TestInitNegotiation(t *testing.T) {
	const offered = initAsyncRead | initBigWrites | initMaxPages | 1<<12 | 1<<30
	for _, tc := range []struct {
		name         string
		minor        uint32
		wantMinor    uint32
		wantBodySize int
	}{
		{"newer kernel (7.44)", 44, protoMinor, 64},
		{"same minor", protoMinor, protoMinor, 64},
		{"older kernel (7.26, no max_pages)", 26, 26, 64},
		{"before 7.23: the short reply", 22, 22, 24},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, k := newFakeMount(t)
			k.send(opInit, 7, 0, initBody(7, tc.minor, 1<<17, offered))
			if err := m.init(make([]byte, 1<<16)); err != nil {
				t.Fatal(err)
			}
			errno, body := k.recv(7)
			if errno != 0 || len(body) != tc.wantBodySize {
				t.Fatalf("reply: errno %v, %d bytes, want 0 and %d", errno, len(body), tc.wantBodySize)
			}
			if major, minor := ne.Uint32(body), ne.Uint32(body[4:]); major != 7 || minor != tc.wantMinor {
				t.Errorf("version %d.%d, want 7.%d", major, minor, tc.wantMinor)
			}
			if ra := ne.Uint32(body[8:]); ra != 1<<17 {
				t.Errorf("max_readahead %d, want the kernel's 131072 (under maxIO)", ra)
			}
			if flags := ne.Uint32(body[12:]); flags != initAsyncRead|initBigWrites|initMaxPages {
				t.Errorf("flags %#x, want only those this server takes, of those offered", flags)
			}
			if w := ne.Uint32(body[20:]); w != maxIO {
				t.Errorf("max_write %d, want %d", w, maxIO)
			}
			if tc.wantBodySize == 64 {
				if p := ne.Uint16(body[28:]); p != maxIO/4096 {
					t.Errorf("max_pages %d, want %d", p, maxIO/4096)
				}
			}
		})
	}

	t.Run("newer major: ours first, then the kernel's second INIT", func(t *testing.T) {
		m, k := newFakeMount(t)
		k.send(opInit, 1, 0, initBody(8, 0, 1<<20, offered))
		k.send(opInit, 2, 0, initBody(7, 40, 1<<20, offered))
		if err := m.init(make([]byte, 1<<16)); err != nil {
			t.Fatal(err)
		}
		if errno, body := k.recv(1); errno != 0 || len(body) != 8 || ne.Uint32(body) != 7 || ne.Uint32(body[4:]) != protoMinor {
			t.Fatalf("first reply: errno %v, % x", errno, body)
		}
		if errno, body := k.recv(2); errno != 0 || len(body) != 64 || ne.Uint32(body[4:]) != protoMinor {
			t.Fatalf("second reply: errno %v, %d bytes", errno, len(body))
		}
	})

	t.Run("older major refused", func(t *testing.T) {
		m, k := newFakeMount(t)
		k.send(opInit, 3, 0, initBody(6, 9, 0, 0))
		if err := m.init(make([]byte, 1<<16)); err == nil {
			t.Fatal("INIT from protocol 6 was accepted")
		}
		if errno, _ := k.recv(3); errno != unix.EPROTO {
			t.Errorf("reply errno %v, want EPROTO", errno)
		}
	})

	t.Run("first request not INIT", func(t *testing.T) {
		m, k := newFakeMount(t)
		k.send(opGetattr, 4, rootID, make([]byte, 16))
		if err := m.init(make([]byte, 1<<16)); err == nil {
			t.Fatal("a GETATTR was taken for INIT")
		}
	})
}

// TestRequests drives handle with requests the kernel tests do not make
// on demand: a read past the end, a poll, a forget (no reply), a lookup
// of another name, and an unknown opcode.
func TestRequests(t *testing.T) {
	m, k := newFakeMount(t)
	buf := make([]byte, 1<<16)
	do := func(opcode uint32, unique, node uint64, body []byte) {
		t.Helper()
		k.send(opcode, unique, node, body)
		req, err := m.receive(buf)
		if err != nil {
			t.Fatal(err)
		}
		h, ok := parseInHeader(req)
		if !ok {
			t.Fatal("request did not parse")
		}
		m.handle(h, req[inHeaderLen:], buf)
	}
	readIn := func(off uint64, size uint32) []byte {
		b := make([]byte, readInLen)
		ne.PutUint64(b[8:], off)
		ne.PutUint32(b[16:], size)
		return b
	}

	do(opRead, 10, fileID, readIn(8192-100, 4096))
	if errno, body := k.recv(10); errno != 0 || len(body) != 100 {
		t.Errorf("read across the end: errno %v, %d bytes, want 0 and 100", errno, len(body))
	}
	do(opRead, 11, fileID, readIn(1<<40, 4096))
	if errno, body := k.recv(11); errno != 0 || len(body) != 0 {
		t.Errorf("read past the end: errno %v, %d bytes, want 0 and none", errno, len(body))
	}
	do(opRead, 12, fileID, readIn(1<<63, 16))
	if errno, _ := k.recv(12); errno != unix.EINVAL {
		t.Errorf("read at a negative offset: errno %v, want EINVAL", errno)
	}
	do(opPoll, 13, fileID, make([]byte, 24))
	if errno, _ := k.recv(13); errno != unix.ENOSYS {
		t.Errorf("poll: errno %v, want ENOSYS", errno)
	}
	do(opForget, 14, fileID, make([]byte, 8))
	do(opLookup, 15, rootID, []byte("other\x00"))
	if errno, _ := k.recv(15); errno != unix.ENOENT { // and not a reply to the forget
		t.Errorf("lookup of another name: errno %v, want ENOENT", errno)
	}
	do(opLookup, 16, rootID, []byte("volume\x00"))
	if errno, body := k.recv(16); errno != 0 || len(body) != 40+attrLen || ne.Uint64(body) != fileID {
		t.Errorf("lookup: errno %v, %d bytes", errno, len(body))
	} else if size := ne.Uint64(body[40+8:]); size != 8192 {
		t.Errorf("lookup: size %d, want 8192", size)
	}
	do(999, 17, rootID, nil)
	if errno, _ := k.recv(17); errno != unix.ENOSYS {
		t.Errorf("unknown opcode: errno %v, want ENOSYS", errno)
	}
	do(opWrite, 18, fileID, append(readIn(8192, 1), 'x'))
	if errno, _ := k.recv(18); errno != unix.ENOSPC {
		t.Errorf("write at the end: errno %v, want ENOSPC", errno)
	}
	m.readOnly = true
	do(opWrite, 19, fileID, append(readIn(0, 1), 'x'))
	if errno, _ := k.recv(19); !errors.Is(errno, unix.EROFS) {
		t.Errorf("write to a read-only file: errno %v, want EROFS", errno)
	}
}
