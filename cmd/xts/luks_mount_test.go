//go:build unix

package main

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fastxts/xts/internal/fusefile"
)

func needFUSE(t *testing.T) {
	t.Helper()
	if err := fusefile.Available(); err != nil {
		t.Skipf("FUSE cannot be used here: %v", err)
	}
}

func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: %v", tool, err)
		}
	}
}

// syncBuffer is a bytes.Buffer safe to read while a process writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// mountedTool is `xts luks mount` running in the background.
type mountedTool struct {
	cmd    *exec.Cmd
	dir    string
	stderr *syncBuffer
	done   chan error
}

// startMount starts the tool on img and waits for its ready line.
func startMount(t *testing.T, args ...string) *mountedTool {
	t.Helper()
	bin := toolBinary(t)
	dir := t.TempDir()
	mt := &mountedTool{dir: dir, stderr: new(syncBuffer), done: make(chan error, 1)}
	mt.cmd = exec.Command(bin, append(append([]string{"luks", "mount"}, args...), dir)...)
	mt.cmd.Stderr = mt.stderr
	if err := mt.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { mt.done <- mt.cmd.Wait() }()
	t.Cleanup(func() {
		select {
		case <-mt.done:
		default:
			exec.Command("fusermount3", "-u", dir).Run()
			mt.cmd.Process.Kill()
			<-mt.done
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(mt.stderr.String(), "until 'fusermount3 -u") {
		select {
		case err := <-mt.done:
			mt.done <- err
			t.Fatalf("xts luks mount exited before it was ready (%v): %s", err, mt.stderr)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("xts luks mount not ready after 30 s: %s", mt.stderr)
		}
	}
	return mt
}

// wait waits for the tool to exit and returns its status.
func (mt *mountedTool) wait(t *testing.T) int {
	t.Helper()
	select {
	case err := <-mt.done:
		mt.done <- err
		code, _ := exitStatus(t, err)
		return code
	case <-time.After(30 * time.Second):
		t.Fatalf("xts luks mount still running 30 s after it was told to stop: %s", mt.stderr)
		return -1
	}
}

// unmount runs fusermount3 -u dir, again while the kernel still finds it
// busy (a process that used it may take a moment to let go).
func unmount(t *testing.T, dir string) {
	t.Helper()
	for i := 0; ; i++ {
		out, err := exec.Command("fusermount3", "-u", dir).CombinedOutput()
		if err == nil {
			return
		}
		if i == 100 || !strings.Contains(string(out), "busy") {
			t.Fatalf("fusermount3 -u %s: %v\n%s", dir, err, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func mounted(t *testing.T, dir string) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(b), " "+dir+" ")
}

// TestLUKSMountExt4: an image cryptsetup made is mounted, its data read
// back, an ext4 made on DIR/volume and a file written into it through
// fuse2fs; after fusermount3 -u the tool exits 0, the decrypted image
// passes e2fsck -fn and debugfs reads the file back, and cryptsetup still
// opens the image.
func TestLUKSMountExt4(t *testing.T) {
	needFUSE(t)
	needTools(t, "mkfs.ext4", "e2fsck", "debugfs", "fuse2fs", "fusermount3")
	for _, luks1 := range []bool{false, true} {
		name := "luks2"
		if luks1 {
			name = "luks1"
		}
		t.Run(name, func(t *testing.T) {
			work := t.TempDir()
			plain := randBytes(t, 24<<20)
			img, _, pass := csImage(t, work, plain, luks1, false)

			mt := startMount(t, "-d", pass, img)
			vol := filepath.Join(mt.dir, "volume")
			got, err := os.ReadFile(vol)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) < len(plain) || !bytes.Equal(got[:len(plain)], plain) {
				t.Fatalf("DIR/volume (%d bytes) does not start with the plaintext cryptsetup encrypted (%d bytes)", len(got), len(plain))
			}
			if out, err := exec.Command("mkfs.ext4", "-q", "-F", vol).CombinedOutput(); err != nil {
				t.Fatalf("mkfs.ext4: %v\n%s", err, out)
			}
			// fuse2fs in the foreground, so that it has let go of
			// DIR/volume once it exits.
			mnt := t.TempDir()
			var f2out syncBuffer
			f2 := exec.Command("fuse2fs", vol, mnt, "-o", "fakeroot", "-f")
			f2.Stdout, f2.Stderr = &f2out, &f2out
			if err := f2.Start(); err != nil {
				t.Fatal(err)
			}
			for i := 0; !mounted(t, mnt); i++ {
				if i == 500 {
					f2.Process.Kill()
					f2.Wait()
					t.Fatalf("fuse2fs did not mount in 10 s: %s", &f2out)
				}
				time.Sleep(20 * time.Millisecond)
			}
			hello := bytes.Repeat([]byte("hello from inside LUKS\n"), 1000)
			werr := os.WriteFile(filepath.Join(mnt, "hello.txt"), hello, 0o644)
			unmount(t, mnt)
			if err := f2.Wait(); err != nil {
				t.Fatalf("fuse2fs: %v\n%s", err, &f2out)
			}
			if werr != nil {
				t.Fatal(werr)
			}
			unmount(t, mt.dir)
			if code := mt.wait(t); code != 0 {
				t.Fatalf("exit %d after fusermount3 -u: %s", code, mt.stderr)
			}

			dec := filepath.Join(work, "dec.img")
			if r := runCmd(t, nil, "luks", "decrypt", "-d", pass, img, dec); r.code != 0 {
				t.Fatalf("luks decrypt: %d %s", r.code, r.stderr)
			}
			if out, err := exec.Command("e2fsck", "-fn", dec).CombinedOutput(); err != nil {
				t.Fatalf("e2fsck -fn on the decrypted image: %v\n%s", err, out)
			}
			out, err := exec.Command("debugfs", "-R", "cat /hello.txt", dec).Output()
			if err != nil || !bytes.Equal(out, hello) {
				t.Fatalf("debugfs cat /hello.txt: %v, %d bytes (want %d)", err, len(out), len(hello))
			}
			cryptsetup(t, "open", "--test-passphrase", "--key-file", pass, img)
		})
	}
}

// TestLUKSMountSignal: writes at odd offsets through the mount, then a
// signal: the tool unmounts, exits 0, and the image holds the writes.
func TestLUKSMountSignal(t *testing.T) {
	needFUSE(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			work := t.TempDir()
			plain := randBytes(t, 1<<20)
			img, _, pass := csImage(t, work, plain, false, false)
			mt := startMount(t, "-d", pass, img)
			vol := filepath.Join(mt.dir, "volume")
			want, err := os.ReadFile(vol)
			if err != nil || len(want) < len(plain) || !bytes.Equal(want[:len(plain)], plain) {
				t.Fatalf("DIR/volume: %v, or does not start with the plaintext", err)
			}
			f, err := os.OpenFile(vol, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range []struct{ off, n int }{{3, 5000}, {4095, 2}, {len(want) - 1, 1}} {
				p := randBytes(t, w.n)
				if _, err := f.WriteAt(p, int64(w.off)); err != nil {
					t.Fatal(err)
				}
				copy(want[w.off:], p)
			}
			f.Close()
			mt.cmd.Process.Signal(sig)
			if code := mt.wait(t); code != 0 {
				t.Fatalf("exit %d after %v: %s", code, sig, mt.stderr)
			}
			if mounted(t, mt.dir) {
				t.Fatalf("%s is still mounted after the tool exited", mt.dir)
			}
			code, got, stderr := runBytes(t, nil, "luks", "decrypt", "-d", pass, img, "-")
			if code != 0 || !bytes.Equal(got, want) {
				t.Fatalf("decrypt after the mount: exit %d %s; equal to the model: %v", code, stderr, bytes.Equal(got, want))
			}
		})
	}
}

// TestLUKSMountReadOnly: --readonly refuses writes and leaves the image as
// it was; a wrong passphrase exits 2 and mounts nothing.
func TestLUKSMountReadOnly(t *testing.T) {
	needFUSE(t)
	work := t.TempDir()
	plain := randBytes(t, 1<<20)
	img, _, pass := csImage(t, work, plain, false, false)
	sum := func() [32]byte { return sha256.Sum256(readFile(t, img)) }
	before := sum()

	mt := startMount(t, "--readonly", "-d", pass, img)
	vol := filepath.Join(mt.dir, "volume")
	if _, err := os.OpenFile(vol, os.O_RDWR, 0); !errors.Is(err, syscall.EROFS) && !errors.Is(err, syscall.EACCES) {
		t.Errorf("opening the read-only volume for writing: %v, want EROFS or EACCES", err)
	}
	if got, err := os.ReadFile(vol); err != nil || len(got) < len(plain) || !bytes.Equal(got[:len(plain)], plain) {
		t.Errorf("reading the read-only volume: %v, or it does not start with the plaintext", err)
	}
	mt.cmd.Process.Signal(syscall.SIGTERM)
	if code := mt.wait(t); code != 0 {
		t.Fatalf("exit %d: %s", code, mt.stderr)
	}
	if sum() != before {
		t.Error("a read-only mount changed the image")
	}

	wrong := writeFile(t, work, "wrong", []byte("not the passphrase"))
	dir := t.TempDir()
	r := runCmd(t, nil, "luks", "mount", "-d", wrong, img, dir)
	if r.code != 2 || !strings.Contains(r.stderr, "No key available with this passphrase.") {
		t.Errorf("wrong passphrase: exit %d, %q; want 2 and cryptsetup's words", r.code, r.stderr)
	}
	if mounted(t, dir) {
		t.Error("a wrong passphrase left a mount")
	}
	if r := runCmd(t, nil, "luks", "mount", "-d", pass, img, filepath.Join(work, "missing")); r.code != 4 {
		t.Errorf("a missing mount point: exit %d (%s), want 4", r.code, r.stderr)
	}
}
