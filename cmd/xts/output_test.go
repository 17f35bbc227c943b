//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// The output layer itself (atomic outputs, commits, signals during them)
// is tested in package guard; this file tests how commands use it.

// TestStdoutSynced (item 11): standard output that is a regular file is
// flushed to disk before exit 0, and a failed flush (EIO) is exit 1 with
// one line; a pipe is not flushed.
func TestStdoutSynced(t *testing.T) {
	dir := t.TempDir()
	key := writeFile(t, dir, "key", randBytes(t, 64))
	stdout, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer stdout.Close()
	var synced []string
	var se bytes.Buffer
	e := &env{stdin: bytes.NewReader(make([]byte, 8192)), stdout: stdout, stderr: &se,
		sync: func(f *os.File) error { synced = append(synced, f.Name()); return nil }}
	code := e.run([]string{"encrypt", "-d", key, "-", "-"})
	if code != 0 || !slices.Equal(synced, []string{stdout.Name()}) {
		t.Errorf("exit %d (%s), synced %v; want 0 and standard output synced", code, se.String(), synced)
	}
	if fi, _ := stdout.Stat(); fi.Size() != 8192 {
		t.Errorf("standard output holds %d bytes", fi.Size())
	}

	se.Reset()
	e = &env{stdin: bytes.NewReader(make([]byte, 8192)), stdout: stdout, stderr: &se,
		sync: func(*os.File) error { return &os.PathError{Op: "sync", Path: "/dev/stdout", Err: syscall.EIO} }}
	code = e.run([]string{"encrypt", "-d", key, "-", "-"})
	if want := "xts encrypt: flushing standard output to disk: input/output error; 8192 bytes of output already went to standard output\n"; code != exitFailure || se.String() != want {
		t.Errorf("EIO: exit %d, stderr %q; want 1 and %q", code, se.String(), want)
	}

	// A file OUTPUT whose flush fails leaves nothing.
	se.Reset()
	e = &env{stdin: bytes.NewReader(make([]byte, 8192)), stdout: &bytes.Buffer{}, stderr: &se,
		sync: func(*os.File) error { return syscall.ENOSPC }}
	code = e.run([]string{"encrypt", "-d", key, "-", filepath.Join(dir, "out")})
	if code != exitFailure || strings.Count(se.String(), "\n") != 1 || !strings.Contains(se.String(), "no space left on device") {
		t.Errorf("ENOSPC: exit %d, stderr %q", code, se.String())
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{"key", "stdout"}) {
		t.Errorf("directory holds %v", names)
	}

	// A pipe has nothing to flush.
	synced = nil
	r, w, _ := os.Pipe()
	defer r.Close()
	go func() {
		b := make([]byte, 1<<16)
		for {
			if _, err := r.Read(b); err != nil {
				return
			}
		}
	}()
	e = &env{stdin: bytes.NewReader(make([]byte, 8192)), stdout: w, stderr: &se,
		sync: func(f *os.File) error { synced = append(synced, f.Name()); return nil }}
	code = e.run([]string{"encrypt", "-d", key, "-", "-"})
	w.Close()
	if code != 0 || len(synced) != 0 {
		t.Errorf("pipe: exit %d, synced %v", code, synced)
	}
}
