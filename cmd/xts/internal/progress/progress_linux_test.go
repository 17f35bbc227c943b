package progress

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPty returns the two ends of a new pseudo-terminal.
func openPty(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here (/dev/ptmx: %v)", err)
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

func setPtyWidth(t *testing.T, master *os.File, cols int) {
	t.Helper()
	if err := unix.IoctlSetWinsize(int(master.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: uint16(cols)}); err != nil {
		t.Fatal(err)
	}
}

// TestProgressFollowsResize draws the bar on a real pseudo-terminal of
// 120 columns, narrows it to 24 and sends SIGWINCH (which the kernel sends
// the terminal's foreground job): the bar must take the new width, and
// every line drawn after that must fit in it.
func TestProgressFollowsResize(t *testing.T) {
	master, slave := openPty(t)
	setPtyWidth(t, master, 120)
	var mu sync.Mutex
	var drawn bytes.Buffer
	go func() { // drain the terminal so that the bar never blocks
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			mu.Lock()
			drawn.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	bar := New(slave, "encrypting", 1<<40)
	if bar == nil {
		t.Fatal("no progress bar on a terminal")
	}
	defer bar.Finish()
	bar.Add(1 << 30)
	if w := bar.width.Load(); w != 120 {
		t.Fatalf("width %d, want 120", w)
	}
	setPtyWidth(t, master, 24)
	if err := syscall.Kill(os.Getpid(), syscall.SIGWINCH); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for bar.width.Load() != 24 {
		if time.Now().After(deadline) {
			t.Fatalf("width still %d 5 s after SIGWINCH, want 24", bar.width.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	mark := drawn.Len()
	mu.Unlock()
	// Wait for two redraws after the resize (a loaded machine may delay
	// the timer; give it up to 5 s before calling nothing drawn).
	var after string
	for deadline = time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		mu.Lock()
		after = drawn.String()[mark:]
		mu.Unlock()
		if strings.Count(after, "\r") >= 2 {
			break
		}
	}
	lines := 0
	for _, seg := range strings.Split(after, "\r") {
		seg = strings.TrimSuffix(seg, "\x1b[K")
		if seg == "" {
			continue
		}
		lines++
		if len(seg) > 23 {
			t.Errorf("line of %d columns on a 24-column terminal: %q", len(seg), seg)
		}
	}
	if lines == 0 {
		t.Errorf("nothing drawn after the resize: %q", after)
	}
}
