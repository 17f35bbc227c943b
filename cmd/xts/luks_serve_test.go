package main

import (
	"bytes"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fastxts/xts/internal/sock"
)

func needServeTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s is not installed (%v)", name, err)
	}
}

// serveImage makes a LUKS image of the given type holding raw, with the
// passphrase in a key file; it returns the image and key file paths.
func serveImage(t *testing.T, typ string, raw []byte) (img, pass string) {
	t.Helper()
	dir := t.TempDir()
	rawPath := writeFile(t, dir, "raw", raw)
	pass = writeFile(t, dir, "pass", []byte("serve me"))
	img = filepath.Join(dir, "img")
	r := runCmd(t, nil, "luks", "encrypt", "-d", pass, "--type", typ, "--pbkdf", "pbkdf2", "--pbkdf-force-iterations", "1000", rawPath, img)
	if r.code != 0 {
		t.Fatalf("luks encrypt: %d %s", r.code, r.stderr)
	}
	return img, pass
}

// decryptImage returns the image's plaintext through xts luks decrypt.
func decryptImage(t *testing.T, img, pass string) []byte {
	t.Helper()
	code, out, stderr := runBytes(t, nil, "luks", "decrypt", "-d", pass, img, "-")
	if code != 0 {
		t.Fatalf("luks decrypt: %d %s", code, stderr)
	}
	return out
}

// TestLUKSServeDownload copies the served plaintext with nbdcopy (run by
// --run) on each kind of listener and compares it with the image's data.
func TestLUKSServeDownload(t *testing.T) {
	needServeTool(t, "nbdcopy")
	raw := randBytes(t, 4<<20)
	for _, typ := range []string{"luks1", "luks2"} {
		img, pass := serveImage(t, typ, raw)
		for _, listen := range [][]string{{"--socket", "{dir}/s.sock"}, {"--listen", "127.0.0.1:0"}, {"--listen", ":0"}, nil} {
			name := typ + "/" + strings.Join(listen, "=")
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				out := filepath.Join(dir, "out")
				args := []string{"luks", "serve", "-d", pass, "--run", `nbdcopy --connections=4 "$uri" ` + out}
				for _, a := range listen {
					args = append(args, strings.ReplaceAll(a, "{dir}", dir))
				}
				r := runCmd(t, nil, append(args, img)...)
				if r.code != 0 {
					t.Fatalf("exit %d: %s", r.code, r.stderr)
				}
				if !strings.Contains(r.stderr, "serving "+img+" (4194304 bytes, read-write) at nbd") {
					t.Errorf("no ready line in %q", r.stderr)
				}
				if !bytes.Equal(readFile(t, out), raw) {
					t.Fatal("the served data differs from the image's plaintext")
				}
				if listen != nil && listen[0] == "--socket" {
					if _, err := os.Lstat(filepath.Join(dir, "s.sock")); !os.IsNotExist(err) {
						t.Errorf("the socket is still there: %v", err)
					}
				}
			})
		}
	}
}

// TestLUKSServeWrite writes at odd offsets with qemu-io through the server
// and checks the image's plaintext afterwards (decrypted independently),
// and that --readonly refuses writes and leaves the image as it was.
func TestLUKSServeWrite(t *testing.T) {
	needServeTool(t, "qemu-io")
	raw := randBytes(t, 2<<20)
	writes := []struct{ off, n int }{{1, 3}, {4095, 2}, {100000, 70000}, {2<<20 - 7, 7}}
	for _, typ := range []string{"luks1", "luks2"} {
		t.Run(typ, func(t *testing.T) {
			img, pass := serveImage(t, typ, raw)
			want := bytes.Clone(raw)
			var cmds []string
			for i, w := range writes {
				pat := 0x41 + i
				cmds = append(cmds, "-c", shellQuote("write -P "+itoa(pat)+" "+itoa(w.off)+" "+itoa(w.n)))
				for j := range w.n {
					want[w.off+j] = byte(pat)
				}
			}
			script := "qemu-io -f raw " + strings.Join(cmds, " ") + ` -c flush "$uri"`
			if r := runCmd(t, nil, "luks", "serve", "-d", pass, "--run", script, img); r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if !bytes.Equal(decryptImage(t, img, pass), want) {
				t.Fatal("the image's plaintext does not hold the writes (or lost bytes around them)")
			}
			before := readFile(t, img)
			r := runCmd(t, nil, "luks", "serve", "-d", pass, "--readonly", "--run", `qemu-io -f raw -c "write -P 1 0 512" "$uri"`, img)
			if !strings.Contains(r.stderr+r.stdout, "read-only") {
				t.Errorf("--readonly: qemu-io did not report a read-only export: %s %s", r.stdout, r.stderr)
			}
			if !bytes.Equal(readFile(t, img), before) {
				t.Error("--readonly changed the image")
			}
		})
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// needIPv6Loopback skips the test, saying why, where this host cannot
// listen on ::1 (IPv6 disabled, or a container without it).
func needIPv6Loopback(t *testing.T) {
	t.Helper()
	l, _, err := sock.ListenTCP(netip.MustParseAddrPort("[::1]:0"))
	if err != nil {
		t.Skipf("no IPv6 loopback here: %v", err)
	}
	l.Close()
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestLUKSServeRunStatus checks that xts luks serve exits with --run's
// status, and refuses bad command lines before it asks for a passphrase.
func TestLUKSServeRunStatus(t *testing.T) {
	img, pass := serveImage(t, "luks2", make([]byte, 1<<20))
	dir := t.TempDir()
	busy := writeFile(t, dir, "busy", nil)
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"zero", []string{"--run", "true"}, 0, ""},
		{"three", []string{"--run", "exit 3"}, 3, "--run command"},
		{"killed", []string{"--run", "kill -TERM $$"}, 128 + 15, ""},
		{"uri set", []string{"--run", `case "$uri" in nbd+unix:///?socket=/*) exit 0;; *) exit 9;; esac`}, 0, ""},
		{"no listener", nil, 1, "want --socket PATH or --listen"},
		{"both listeners", []string{"--socket", "x", "--listen", ":1"}, 1, "do not go together"},
		{"socket exists", []string{"--socket", busy}, 5, "already exists"},
		{"bad listen", []string{"--listen", "a:b:c"}, 1, "--listen"},
		{"non-loopback warning", []string{"--listen", "0.0.0.0:0", "--run", "true"}, 0, "crosses the network in clear"},
		{"localhost", []string{"--listen", "localhost:0", "--run", `case "$uri" in nbd://localhost:[1-9]*) exit 0;; *) exit 9;; esac`}, 0, ""},
		{"IPv6 loopback", []string{"--listen", "[::1]:0", "--run", `case "$uri" in nbd://\[::1\]:[1-9]*) exit 0;; *) exit 9;; esac`}, 0, ""},
		{"host name", []string{"--listen", "example.com:10809"}, 1, "host names are not looked up"},
		{"port name", []string{"--listen", "127.0.0.1:nbd"}, 1, "want a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if slices.Contains(tt.args, "[::1]:0") {
				needIPv6Loopback(t)
			}
			r := runCmd(t, nil, append(append([]string{"luks", "serve", "-d", pass}, tt.args...), img)...)
			if r.code != tt.wantCode {
				t.Errorf("exit %d, want %d (%s)", r.code, tt.wantCode, r.stderr)
			}
			if !strings.Contains(r.stderr, tt.wantErr) {
				t.Errorf("stderr %q does not say %q", r.stderr, tt.wantErr)
			}
		})
	}
	if r := runCmd(t, nil, "luks", "serve", "-d", pass, "--socket", filepath.Join(dir, "s"), filepath.Join(dir, "missing")); r.code != 4 {
		t.Errorf("missing image: exit %d (%s), want 4", r.code, r.stderr)
	}
}

// TestLUKSServeOverlap: a detached header's file holds a data segment at
// offset 0, over the header itself. Served (or mounted) as an image on its
// own, read-write is refused with a clear word before anything is written;
// --readonly serves it; --header naming the same file is the same file.
func TestLUKSServeOverlap(t *testing.T) {
	needServeTool(t, "nbdinfo")
	for _, typ := range []string{"luks1", "luks2"} {
		t.Run(typ, func(t *testing.T) {
			dir := t.TempDir()
			raw := writeFile(t, dir, "raw", randBytes(t, 1<<20))
			pass := writeFile(t, dir, "pass", []byte("overlap"))
			hdr, data := filepath.Join(dir, "hdr"), filepath.Join(dir, "data")
			if r := runCmd(t, nil, "luks", "encrypt", "-d", pass, "--type", typ, "--pbkdf", "pbkdf2", "--pbkdf-force-iterations", "1000", "--header", hdr, raw, data); r.code != 0 {
				t.Fatalf("luks encrypt --header: %d %s", r.code, r.stderr)
			}
			before := readFile(t, hdr)
			for _, args := range [][]string{
				{"luks", "serve", "-d", pass, "--run", "true", hdr},
				{"luks", "serve", "-d", pass, "--header", hdr, "--run", "true", hdr},
				{"luks", "mount", "-d", pass, hdr, t.TempDir()},
			} {
				r := runCmd(t, nil, args...)
				if r.code != 1 || !strings.Contains(r.stderr, "--readonly") {
					t.Errorf("%s: exit %d %q; want 1 and a word about --readonly", strings.Join(args, " "), r.code, r.stderr)
				}
			}
			r := runCmd(t, nil, "luks", "serve", "--readonly", "-d", pass, "--run", `test "$(nbdinfo --size "$uri")" -gt 0`, hdr)
			if r.code != 0 {
				t.Errorf("--readonly: exit %d %s", r.code, r.stderr)
			}
			if !bytes.Equal(readFile(t, hdr), before) {
				t.Error("the header file changed")
			}
		})
	}
}

// TestLUKSServeDetachedHeader serves an image whose header is in another
// file (--header): the whole image is data, and writes reach it.
func TestLUKSServeDetachedHeader(t *testing.T) {
	needServeTool(t, "nbdcopy")
	needServeTool(t, "qemu-io")
	dir := t.TempDir()
	raw := randBytes(t, 1<<20)
	rawPath := writeFile(t, dir, "raw", raw)
	pass := writeFile(t, dir, "pass", []byte("detached"))
	img, hdr := filepath.Join(dir, "img"), filepath.Join(dir, "hdr")
	if r := runCmd(t, nil, "luks", "encrypt", "-d", pass, "--header", hdr, "--pbkdf", "pbkdf2", "--pbkdf-force-iterations", "1000", rawPath, img); r.code != 0 {
		t.Fatalf("luks encrypt: %s", r.stderr)
	}
	out := filepath.Join(dir, "out")
	script := `qemu-io -f raw -c "write -P 7 4096 8192" "$uri" && nbdcopy "$uri" ` + out
	if r := runCmd(t, nil, "luks", "serve", "-d", pass, "--header", hdr, "--run", script, img); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	want := bytes.Clone(raw)
	copy(want[4096:], bytes.Repeat([]byte{7}, 8192))
	if !bytes.Equal(readFile(t, out), want) {
		t.Error("nbdcopy's copy does not hold the image's data with the write")
	}
	code, dec, stderr := runBytes(t, nil, "luks", "decrypt", "-d", pass, "--header", hdr, img, "-")
	if code != 0 || !bytes.Equal(dec, want) {
		t.Errorf("luks decrypt afterwards: exit %d %s, equal %v", code, stderr, bytes.Equal(dec, want))
	}
}
