//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// write is one qemu-io pattern write: n bytes of b at off.
type write struct {
	b      byte
	off, n int
}

func (w write) apply(model []byte) { copy(model[w.off:w.off+w.n], bytes.Repeat([]byte{w.b}, w.n)) }

// qemuIO is a qemu-io command line on "$uri" that writes (or, with
// verify, reads back and checks) each pattern, then flushes.
func qemuIO(ws []write, verify bool) string {
	op := "write"
	if verify {
		op = "read"
	}
	var b strings.Builder
	b.WriteString("qemu-io -f raw")
	for _, w := range ws {
		fmt.Fprintf(&b, " -c '%s -P 0x%02x %d %d'", op, w.b, w.off, w.n)
	}
	if !verify {
		b.WriteString(" -c flush")
	}
	b.WriteString(` "$uri"`)
	return b.String()
}

// nbdkitLUKS runs cmd against nbdkit's luks filter (it reads and writes
// LUKS1 only) on img and returns its output.
func nbdkitLUKS(t *testing.T, img, pass, cmd string) string {
	t.Helper()
	out, err := exec.Command("nbdkit", "-U", "-", "--filter=luks", "file", img, "passphrase=+"+pass, "--run", cmd).CombinedOutput()
	if err != nil {
		t.Fatalf("nbdkit --filter=luks --run %q: %v\n%s", cmd, err, out)
	}
	return string(out)
}

// TestLUKSServeNbdkitInterop: on a LUKS1 image, nbdkit's luks filter reads
// back what our server wrote, and our server reads what nbdkit wrote,
// writes at odd offsets and lengths (partial sectors) included.
func TestLUKSServeNbdkitInterop(t *testing.T) {
	needServeTool(t, "nbdkit")
	needServeTool(t, "qemu-io")
	needServeTool(t, "nbdcopy")
	raw := randBytes(t, 4<<20)
	img, pass := serveImage(t, "luks1", raw)
	model := bytes.Clone(raw)

	ours := []write{{0x5a, 1000, 9000}, {0xa5, 3000001, 12345}, {0x11, 4<<20 - 7, 7}}
	if r := runCmd(t, nil, "luks", "serve", "-d", pass, "--run", qemuIO(ours, false), img); r.code != 0 {
		t.Fatalf("our server, qemu-io writes: exit %d %s", r.code, r.stderr)
	}
	for _, w := range ours {
		w.apply(model)
	}
	out := nbdkitLUKS(t, img, pass, qemuIO(ours, true))
	if strings.Contains(out, "verification failed") {
		t.Fatalf("nbdkit's luks filter does not read back what our server wrote:\n%s", out)
	}
	dump := filepath.Join(t.TempDir(), "dump")
	nbdkitLUKS(t, img, pass, `nbdcopy "$uri" `+dump)
	if !bytes.Equal(readFile(t, dump), model) {
		t.Fatal("nbdkit's luks filter reads other data than our server wrote")
	}

	theirs := []write{{0x33, 777, 5555}, {0xcc, 2<<20 + 511, 4097}}
	nbdkitLUKS(t, img, pass, qemuIO(theirs, false))
	for _, w := range theirs {
		w.apply(model)
	}
	r := runCmd(t, nil, "luks", "serve", "--readonly", "-d", pass, "--run", `nbdcopy "$uri" `+dump, img)
	if r.code != 0 {
		t.Fatalf("our server, nbdcopy: exit %d %s", r.code, r.stderr)
	}
	if !bytes.Equal(readFile(t, dump), model) {
		t.Fatal("our server does not read what nbdkit's luks filter wrote")
	}
}

// TestLUKSServeKillAfterFlush: writes a client flushed survive SIGKILL of
// the server, and the image still opens (in cryptsetup too, where it is
// installed).
func TestLUKSServeKillAfterFlush(t *testing.T) {
	needServeTool(t, "qemu-io")
	for _, typ := range []string{"luks1", "luks2"} {
		t.Run(typ, func(t *testing.T) {
			raw := randBytes(t, 2<<20)
			img, pass := serveImage(t, typ, raw)
			cmd, dir, _ := startServer(t, "luks", "serve", "-d", pass, "--socket", "{dir}/s.sock", img)
			sock := filepath.Join(dir, "s.sock")
			ws := []write{{0x5a, 1000, 9000}, {0xa5, 1<<20 + 3, 70000}}
			uri := "nbd+unix:///?socket=" + sock
			io := exec.Command("sh", "-c", qemuIO(ws, false))
			io.Env = append(os.Environ(), "uri="+uri)
			if out, err := io.CombinedOutput(); err != nil {
				t.Fatalf("qemu-io: %v\n%s", err, out)
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			model := bytes.Clone(raw)
			for _, w := range ws {
				w.apply(model)
			}
			if got := decryptImage(t, img, pass); !bytes.Equal(got, model) {
				t.Fatal("after SIGKILL the image does not hold the flushed writes")
			}
			if _, err := exec.LookPath("cryptsetup"); err == nil {
				cryptsetup(t, "open", "--test-passphrase", "--key-file", pass, img)
			}
		})
	}
}

// TestLUKSServeCryptsetupImages: images cryptsetup filled itself (offline
// reencrypt --encrypt with a detached header, so that the volume is
// exactly the plaintext; LUKS1 by converting) served and compared with the
// known plaintext by qemu-img compare, and copied whole by nbdcopy over
// four connections.
func TestLUKSServeCryptsetupImages(t *testing.T) {
	needServeTool(t, "qemu-img")
	needServeTool(t, "nbdcopy")
	for _, luks1 := range []bool{false, true} {
		name := "luks2"
		if luks1 {
			name = "luks1"
		}
		t.Run(name, func(t *testing.T) {
			work := t.TempDir()
			plain := randBytes(t, 3<<20+4096)
			known := writeFile(t, work, "known", plain)
			img, hdr, pass := csImage(t, work, plain, luks1, true)
			serve := func(cmd string) {
				t.Helper()
				if r := runCmd(t, nil, "luks", "serve", "--readonly", "-d", pass, "--header", hdr, "--run", cmd, img); r.code != 0 {
					t.Fatalf("%s: exit %d %s", cmd, r.code, r.stderr)
				}
			}
			serve(`qemu-img compare -s -f raw -F raw ` + known + ` "$uri"`)
			dump := filepath.Join(work, "dump")
			serve(`nbdcopy --connections=4 "$uri" ` + dump)
			if !bytes.Equal(readFile(t, dump), plain) {
				t.Fatal("nbdcopy's copy is not the plaintext")
			}
		})
	}
}
