package nbd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// These tests run real NBD clients (libnbd's nbdinfo and nbdcopy, qemu's
// qemu-io and qemu-img) against the server.

// needTool skips the test when a client is not installed.
func needTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s is not installed (%v)", name, err)
	}
}

// run runs a client command with a timeout and returns its output.
func run(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}

// fileBackend writes data to a temporary file and serves it.
func fileBackend(t *testing.T, data []byte, blockSize int, readOnly bool) (*File, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "disk.img")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	flag := os.O_RDWR
	if readOnly {
		flag = os.O_RDONLY
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return NewFile(f, int64(len(data)), blockSize, readOnly), path
}

func TestNbdinfo(t *testing.T) {
	needTool(t, "nbdinfo")
	const size = 3 << 20
	tests := []struct {
		name    string
		backend func(t *testing.T) Backend
		want    map[string]any
	}{
		{"memory 512", func(t *testing.T) Backend { return NewMem(make([]byte, size), 512, false) }, map[string]any{
			"export-size": size, "block_size_minimum": 512, "block_size_preferred": 4096, "block_size_maximum": DefaultMaxRequest,
			"is_read_only": false, "can_flush": true, "can_fua": true, "can_trim": false, "can_zero": true, "can_multi_conn": true,
			"can_cache": false, "can_df": false, "can_fast_zero": false,
		}},
		{"file 4096", func(t *testing.T) Backend { b, _ := fileBackend(t, make([]byte, size), 4096, false); return b }, map[string]any{
			"export-size": size, "block_size_minimum": 4096, "block_size_preferred": 4096, "block_size_maximum": DefaultMaxRequest,
			"is_read_only": false, "can_flush": true, "can_fua": true, "can_trim": true, "can_zero": true, "can_multi_conn": true,
		}},
		{"read-only file", func(t *testing.T) Backend { b, _ := fileBackend(t, make([]byte, size), 512, true); return b }, map[string]any{
			"export-size": size, "block_size_minimum": 512, "is_read_only": true, "can_flush": false, "can_fua": false,
			"can_trim": false, "can_zero": false, "can_multi_conn": true,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := startServer(t, tt.backend(t))
			out := run(t, "nbdinfo", "--json", ts.uri())
			var info struct {
				Protocol string           `json:"protocol"`
				Exports  []map[string]any `json:"exports"`
			}
			if err := json.Unmarshal(out, &info); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if info.Protocol != "newstyle-fixed" || len(info.Exports) != 1 {
				t.Fatalf("nbdinfo: %s", out)
			}
			for k, want := range tt.want {
				got := info.Exports[0][k]
				if n, ok := want.(int); ok {
					want = float64(n)
				}
				if got != want {
					t.Errorf("%s = %v, want %v", k, got, want)
				}
			}
		})
	}
}

// backends returns a memory and a file backend holding data.
func backends(t *testing.T, data []byte, blockSize int) map[string]Backend {
	f, _ := fileBackend(t, bytes.Clone(data), blockSize, false)
	return map[string]Backend{
		"memory": NewMem(bytes.Clone(data), blockSize, false),
		"file":   f,
	}
}

// contents returns what b holds, read directly.
func contents(t *testing.T, b Backend) []byte {
	t.Helper()
	got := make([]byte, b.Size())
	if _, err := b.ReadAt(got, 0); err != nil && len(got) > 0 {
		t.Fatal(err)
	}
	return got
}

// TestNbdcopyDownload copies the whole export with nbdcopy, over one and
// four connections, and compares it with qemu-img compare too.
func TestNbdcopyDownload(t *testing.T) {
	needTool(t, "nbdcopy")
	needTool(t, "qemu-img")
	const size = 8<<20 + 4096*3 // not a multiple of nbdcopy's requests
	data := pattern(size, 5)
	for name, b := range backends(t, data, 4096) {
		for _, conns := range []string{"1", "4"} {
			t.Run(name+"/connections="+conns, func(t *testing.T) {
				ts := startServer(t, b)
				out := filepath.Join(t.TempDir(), "out.img")
				run(t, "nbdcopy", "--connections="+conns, ts.uri(), out)
				got, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, data) {
					t.Fatal("nbdcopy's copy differs from the export's data")
				}
				known := filepath.Join(t.TempDir(), "known.img")
				if err := os.WriteFile(known, data, 0o600); err != nil {
					t.Fatal(err)
				}
				run(t, "qemu-img", "compare", "-f", "raw", "-F", "raw", ts.uri(), known)
			})
		}
	}
}

// TestQemuImgCompareDiffers makes sure qemu-img compare through the
// server notices a difference (so TestNbdcopyDownload's compare means
// something).
func TestQemuImgCompareDiffers(t *testing.T) {
	needTool(t, "qemu-img")
	data := pattern(1<<20, 6)
	ts := startServer(t, NewMem(bytes.Clone(data), 512, true))
	data[777777] ^= 1
	known := filepath.Join(t.TempDir(), "known.img")
	if err := os.WriteFile(known, data, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("qemu-img", "compare", "-f", "raw", "-F", "raw", ts.uri(), known).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Content mismatch at offset 777728") {
		t.Errorf("qemu-img compare found no difference: %v\n%s", err, out)
	}
}

// TestNbdcopyUpload writes a whole image into the export with nbdcopy
// (four connections, then a flush) and checks the backend's data.
func TestNbdcopyUpload(t *testing.T) {
	needTool(t, "nbdcopy")
	const size = 8<<20 + 512
	data := pattern(size, 7)
	src := filepath.Join(t.TempDir(), "src.img")
	if err := os.WriteFile(src, data, 0o600); err != nil {
		t.Fatal(err)
	}
	for name, b := range backends(t, make([]byte, size), 512) {
		t.Run(name, func(t *testing.T) {
			ts := startServer(t, b)
			run(t, "nbdcopy", "--flush", "--connections=4", src, ts.uri())
			if !bytes.Equal(contents(t, b), data) {
				t.Fatal("the export does not hold the uploaded image")
			}
		})
	}
}

// TestQemuIOOddWrites writes at odd offsets and lengths with qemu-io
// (which aligns to the advertised minimum block size itself), then reads
// each pattern back through the server in a second session and checks
// the backend's bytes.
func TestQemuIOOddWrites(t *testing.T) {
	needTool(t, "qemu-io")
	const size = 1 << 20
	writes := []struct {
		off, n int
		pat    byte
	}{
		{1, 3, 0x11},
		{511, 2, 0x22},
		{4095, 4098, 0x33},
		{65537, 100000, 0x44},
		{size - 5, 5, 0x55},
	}
	for _, bs := range []int{512, 4096} {
		for name, b := range backends(t, pattern(size, 8), bs) {
			t.Run(name+"/"+strconv.Itoa(bs), func(t *testing.T) {
				ts := startServer(t, b)
				want := contents(t, b)
				var wargs, rargs []string
				for _, w := range writes {
					wargs = append(wargs, "-c", fmt.Sprintf("write -P %d %d %d", w.pat, w.off, w.n))
					rargs = append(rargs, "-c", fmt.Sprintf("read -P %d %d %d", w.pat, w.off, w.n))
					for i := range w.n {
						want[w.off+i] = w.pat
					}
				}
				run(t, "qemu-io", append([]string{"-f", "raw"}, append(wargs, "-c", "flush", ts.uri())...)...)
				out := run(t, "qemu-io", append([]string{"-f", "raw"}, append(rargs, ts.uri())...)...)
				if strings.Contains(string(out), "Pattern verification failed") || !strings.Contains(string(out), "read") {
					t.Fatalf("qemu-io read back:\n%s", out)
				}
				if !bytes.Equal(contents(t, b), want) {
					t.Fatal("the backend does not hold the written patterns (or lost bytes around them)")
				}
			})
		}
	}
}

// TestTwoClients runs a writer (qemu-io) and a reader (nbdcopy) at once
// on disjoint halves of one export.
func TestTwoClients(t *testing.T) {
	needTool(t, "nbdcopy")
	needTool(t, "qemu-io")
	const size = 16 << 20
	data := pattern(size, 9)
	b := NewMem(bytes.Clone(data), 512, false)
	ts := startServer(t, b)
	out := filepath.Join(t.TempDir(), "out.img")
	var wg sync.WaitGroup
	var copyOut, ioOut []byte
	var copyErr, ioErr error
	wg.Add(2)
	go func() {
		defer wg.Done()
		// The copy's second half races with the writes: only the first
		// half is checked.
		copyOut, copyErr = exec.Command("nbdcopy", ts.uri(), out).CombinedOutput()
	}()
	go func() {
		defer wg.Done()
		var args []string
		for i := range size / 2 >> 20 {
			args = append(args, "-c", fmt.Sprintf("write -P %d %d %d", 0x60+i, size/2+i*(1<<20), 1<<20))
		}
		ioOut, ioErr = exec.Command("qemu-io", append(append([]string{"-f", "raw"}, args...), ts.uri())...).CombinedOutput()
	}()
	wg.Wait()
	if copyErr != nil {
		t.Fatalf("nbdcopy: %v\n%s", copyErr, copyOut)
	}
	if ioErr != nil {
		t.Fatalf("qemu-io: %v\n%s", ioErr, ioOut)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != size || !bytes.Equal(got[:size/2], data[:size/2]) {
		t.Error("nbdcopy's copy of the first half is wrong")
	}
	all := contents(t, b)
	for i := range size / 2 >> 20 {
		chunk := all[size/2+i*(1<<20):][:1<<20]
		if !bytes.Equal(chunk, bytes.Repeat([]byte{byte(0x60 + i)}, 1<<20)) {
			t.Fatalf("qemu-io's write %d is not in the backend", i)
		}
	}
}

// slowReads delays every read so that a copy takes a while.
type slowReads struct {
	Backend
	reads chan struct{}
}

func (s *slowReads) ReadAt(p []byte, off int64) (int, error) {
	select {
	case s.reads <- struct{}{}:
	default:
	}
	time.Sleep(2 * time.Millisecond)
	return s.Backend.ReadAt(p, off)
}

// TestShutdownMidCopy shuts the server down while nbdcopy reads: Shutdown
// returns promptly without error, nbdcopy fails (it did not get the whole
// export) and exits.
func TestShutdownMidCopy(t *testing.T) {
	needTool(t, "nbdcopy")
	b := &slowReads{Backend: NewMem(make([]byte, 256<<20), 512, false), reads: make(chan struct{}, 1)}
	ts := startServer(t, b)
	cmd := exec.Command("nbdcopy", "--connections=4", ts.uri(), "null:")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for range 20 {
		select {
		case <-b.reads:
		case err := <-done:
			t.Fatalf("nbdcopy ended before the shutdown: %v\n%s", err, out.Bytes())
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	if err := ts.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	t.Logf("Shutdown took %v", time.Since(start))
	select {
	case err := <-done:
		if err == nil {
			t.Errorf("nbdcopy succeeded although the server shut down mid-copy:\n%s", out.Bytes())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("nbdcopy still runs 30 s after the shutdown")
	}
}
