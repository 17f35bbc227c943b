package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fastxts/xts/luks"
)

// buildXTS is the built command (toolBinary), outside -short.
func buildXTS(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the xts binary and signals it; not in -short")
	}
	return toolBinary(t)
}

// makeImage writes a LUKS2 image with dataSize bytes of zeros under kdf.
func makeImage(t *testing.T, dir string, dataSize int64, kdf luks.KDFOptions) (img, pass string) {
	t.Helper()
	pass = writeFile(t, dir, "pass", []byte("signal test"))
	img = filepath.Join(dir, "img")
	f, err := os.Create(img)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, key, err := luks.Create(f, []byte("signal test"), &luks.CreateOptions{KDF: kdf})
	if err != nil {
		t.Fatal(err)
	}
	clear(key)
	if err := f.Truncate(int64(h.Segments[0].Offset) + dataSize); err != nil {
		t.Fatal(err)
	}
	return img, pass
}

// TestLUKSDecryptSignals: xts luks decrypt killed by SIGINT, SIGTERM or
// SIGHUP while it unlocks (a slow argon2id keyslot) exits 128 + the
// signal and leaves no output, not even a temporary file.
func TestLUKSDecryptSignals(t *testing.T) {
	bin := buildXTS(t)
	dir := t.TempDir()
	img, pass := makeImage(t, dir, 1<<20, luks.KDFOptions{Type: "argon2id", Iterations: 200, Memory: 32 << 10, Parallel: 1})
	names := dirNames(t, dir)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin, "luks", "decrypt", "-d", pass, img, filepath.Join(dir, "out"))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond)
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) {
				t.Fatalf("exit %v, want %d; stderr %q", err, 128+int(sig), stderr.String())
			}
			if got := dirNames(t, dir); !slices.Equal(got, names) {
				t.Fatalf("left %v, was %v", got, names)
			}
		})
	}
}

// TestLUKSDecryptSignalToPipe: interrupted while writing to a slow pipe
// (pv -L), xts luks decrypt exits 130 and says that partial output already
// went to standard output.
func TestLUKSDecryptSignalToPipe(t *testing.T) {
	if _, err := exec.LookPath("pv"); err != nil {
		t.Skip("pv is not installed: ", err)
	}
	bin := buildXTS(t)
	dir := t.TempDir()
	img, pass := makeImage(t, dir, 64<<20, luks.KDFOptions{Type: "pbkdf2", Iterations: 1000})
	out, err := os.Create(filepath.Join(dir, "piped"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	pv := exec.Command("pv", "-q", "-L", "4m")
	pv.Stdout = out
	pipe, err := pv.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "luks", "decrypt", "-d", pass, img, "-")
	cmd.Stdout = pipe
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := pv.Start(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	cmd.Process.Signal(syscall.SIGINT)
	err = cmd.Wait()
	pipe.Close()
	pv.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, want 130; stderr %q", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupted by SIGINT") || !strings.Contains(stderr.String(), "partial output already went to standard output") {
		t.Fatalf("stderr %q", stderr.String())
	}
}
