//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestLUKSEncryptFromFIFO: a RAW named on the command line that cannot
// say its size (a named pipe) is streamed to its end, as RAW - is, and
// decrypts to what went into the pipe; one that is not whole sectors is
// refused with nothing written.
func TestLUKSEncryptFromFIFO(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		code int
		msg  string // in stderr, after the pipe's path
	}{
		{"two chunks and a bit", 2*luksChunk + 3*4096, 0, ""},
		{"not whole sectors", 4096 + 100, exitWrongDevice, " holds 4196 bytes, not a multiple of the sector size 4096"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			pass := writeFile(t, dir, "pass", []byte("through a pipe"))
			fifo := filepath.Join(dir, "raw")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("no named pipes here: %v", err)
			}
			plain := randBytes(t, tc.n)
			go func() { // opening blocks until xts opens the other end
				if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
					f.Write(plain)
					f.Close()
				}
			}()
			img := filepath.Join(dir, "img")
			r := runCmd(t, nil, "luks", "encrypt", "-d", pass, "--pbkdf", "pbkdf2", "--pbkdf-force-iterations", "1000", fifo, img)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
				t.Fatalf("exit %d (%s), want %d and %q", r.code, r.stderr, tc.code, tc.msg)
			}
			if tc.code != 0 {
				if _, err := os.Stat(img); err == nil {
					t.Fatal("a refused RAW left an image")
				}
				if !strings.Contains(r.stderr, "input "+fifo+tc.msg) {
					t.Errorf("stderr %q does not name the pipe", r.stderr)
				}
				return
			}
			code, out, stderr := runBytes(t, nil, "luks", "decrypt", "-d", pass, img, "-")
			if code != 0 || !bytes.Equal(out, plain) {
				t.Fatalf("decrypt: exit %d %s; %d bytes, want the %d written to the pipe", code, stderr, len(out), len(plain))
			}
		})
	}
}
