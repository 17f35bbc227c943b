package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fastxts/xts/internal/fdeimages"
)

// fsUUID returns the filesystem UUID blkid finds in the file.
func fsUUID(t *testing.T, path string) string {
	t.Helper()
	out, err := exec.Command("blkid", "-p", "-o", "value", "-s", "UUID", path).Output()
	if err != nil {
		t.Fatalf("blkid -p %s: %v", path, err)
	}
	return strings.TrimSpace(string(out))
}

// TestTcryptVerbs runs xts tcrypt over cryptsetup's VeraCrypt and
// TrueCrypt images: each case decrypts to the filesystem whose UUID the
// images' README gives, with its password, keyfiles, PIM, hidden or
// system flag, and -h naming the PRF or not; wrong secrets, a wrong -h or
// -c and --disable-veracrypt on a VeraCrypt image exit 2 leaving nothing.
func TestTcryptVerbs(t *testing.T) {
	if _, err := exec.LookPath("blkid"); err != nil {
		t.Skipf("blkid not installed (%v)", err)
	}
	dir := filepath.Join(fdeimages.Unpack(t, "tcrypt-images.tar.xz"), "tcrypt-images")
	kf1, kf2 := filepath.Join(dir, "keyfile1"), filepath.Join(dir, "keyfile2")
	const pw, hidden = "aaaaaaaaaaaa", "bbbbbbbbbbbb"
	for _, c := range []struct {
		image, pass string
		flags       []string
		uuid        string
	}{
		{"vc_1-sha512-xts-aes", pw, nil, "DEAD-BABE"},
		{"vc_1-sha512-xts-aes", pw, []string{"-h", "sha512", "-c", "aes"}, "DEAD-BABE"},
		{"vc_1-sha512-xts-aes-hidden", hidden, []string{"--tcrypt-hidden", "-h", "sha512"}, "CAFE-BABE"},
		{"vck_1-sha512-xts-aes", pw, []string{"-d", kf1, "-d", kf2, "-h", "sha512"}, "DEAD-BABE"},
		{"vck_1_nopw-sha512-xts-aes", "", []string{"-d", kf1, "--key-file", kf2, "-h", "sha512"}, "DEAD-BABE"},
		{"vcpim_1_1234-sha256-xts-aes", "cccccccccccccccccccc", []string{"--veracrypt-pim", "1234", "-h", "sha256"}, "DEAD-BABE"},
		{"tc_5-sha512-xts-serpent-twofish-aes", pw, []string{"-h", "sha512"}, "DEAD-BABE"},
		{"vc_1-sha512-xts-camellia-serpent-kuznyechik", pw, []string{"-h", "sha512"}, "DEAD-BABE"},
		{"sys_vc_1_gpt_part-sha512-xts-aes", pw, []string{"--tcrypt-system", "-h", "sha512"}, ""},
		{"tc_1-sha1-cbc-cast5", pw, nil, "DEAD-BABE"},
		{"tc_2-ripemd160-cbc-aes-hidden", hidden, []string{"--tcrypt-hidden", "-h", "ripemd160"}, "CAFE-BABE"},
	} {
		t.Run(c.image+"/"+strings.Join(c.flags, " "), func(t *testing.T) {
			t.Parallel()
			img := filepath.Join(dir, c.image)
			out := filepath.Join(t.TempDir(), "out")
			args := append(append([]string{"tcrypt", "decrypt"}, c.flags...), img, out)
			r := runCmd(t, strings.NewReader(c.pass+"\n"), args...)
			if r.code != 0 {
				t.Fatalf("xts %s: exit %d %s", strings.Join(args, " "), r.code, r.stderr)
			}
			if c.uuid != "" {
				if got := fsUUID(t, out); got != c.uuid {
					t.Errorf("decrypted volume: filesystem UUID %q, want %s", got, c.uuid)
				}
			} else if b := readFile(t, out); len(b) < 512 || b[510] != 0x55 || b[511] != 0xaa {
				t.Error("the system volume does not start with a boot sector")
			}
		})
	}
	img := filepath.Join(dir, "vc_1-sha512-xts-aes")
	t.Run("refused", func(t *testing.T) {
		for _, c := range []struct {
			pass  string
			flags []string
		}{
			{"aaaaaaaaaaab", []string{"-h", "sha512"}},
			{pw, []string{"-h", "whirlpool"}},
			{pw, []string{"-h", "sha512", "-c", "serpent"}},
			{pw, []string{"--disable-veracrypt", "-h", "sha512"}},
			{pw, []string{"-h", "sha512", "--veracrypt-pim", "7"}},
		} {
			out := filepath.Join(t.TempDir(), "out")
			args := append(append([]string{"tcrypt", "decrypt"}, c.flags...), img, out)
			r := runCmd(t, strings.NewReader(c.pass+"\n"), args...)
			if r.code != exitPermission {
				t.Errorf("xts %s: exit %d (%s), want %d", strings.Join(args, " "), r.code, r.stderr, exitPermission)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("xts %s left its output", strings.Join(args, " "))
			}
		}
	})
	t.Run("dump", func(t *testing.T) {
		r := runCmd(t, strings.NewReader(pw+"\n"), "tcrypt", "dump", "-h", "sha512", "--dump-volume-key", img)
		for _, want := range []string{"VERACRYPT header information for " + img, "PBKDF2 hash:\tsha512", "Cipher chain:\taes", "Cipher mode:\txts-plain64", "MK bits:       \t512", "MK dump:"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("xts tcrypt dump (exit %d) lacks %q:\n%s%s", r.code, want, r.stdout, r.stderr)
			}
		}
		// TrueCrypt 1.0-4.0's CBC, named as cryptsetup names it.
		cbc := filepath.Join(dir, "tc_2-ripemd160-cbc-aes-blowfish-serpent")
		r = runCmd(t, strings.NewReader(pw+"\n"), "tcrypt", "dump", "-h", "ripemd160", cbc)
		for _, want := range []string{"TCRYPT header information for " + cbc, "Version:        \t2", "MK offset:\t512", "PBKDF2 hash:\tripemd160",
			"Cipher chain:\tserpent-blowfish_le-aes", "Cipher mode:\tcbc-tcrypt", "MK bits:       \t1216"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("xts tcrypt dump (exit %d) lacks %q:\n%s%s", r.code, want, r.stdout, r.stderr)
			}
		}
		if r := runCmd(t, nil, "dump", img); r.code != exitWrongDevice || !strings.Contains(r.stderr, "--type") {
			t.Errorf("xts dump of a VeraCrypt image without --type: exit %d %s", r.code, r.stderr)
		}
	})
}

// TestTcryptCreateChangeKey makes a VeraCrypt volume with a cascade and a
// hidden volume, writes through xts tcrypt serve (qemu-io) into the outer
// volume under hidden-volume protection and into the hidden one, reads
// both back, then changes the password: only the new one opens.
func TestTcryptCreateChangeKey(t *testing.T) {
	needServeTool(t, "qemu-io")
	dir := t.TempDir()
	img := filepath.Join(dir, "vol")
	const pw, hpw, npw = "outer password", "hidden password", "new password"
	fast := []string{"-h", "sha256", "--veracrypt-pim", "1"}
	r := runCmd(t, strings.NewReader(pw+"\n"+hpw+"\n"), append(append([]string{"tcrypt", "create", "-q", "-c", "serpent-twofish-aes", "--size", "4M", "--hidden-size", "1M"}, fast...), img)...)
	if r.code != 0 {
		t.Fatalf("xts tcrypt create: exit %d %s", r.code, r.stderr)
	}
	if r := runCmd(t, nil, "tcrypt", "create", "--size", "4M", img); r.code != exitBusy {
		t.Errorf("create --size over an existing file: exit %d %s", r.code, r.stderr)
	}
	serve := func(pass string, flags []string, cmds ...string) result {
		args := append(append([]string{"tcrypt", "serve"}, fast...), flags...)
		var qio strings.Builder
		qio.WriteString("qemu-io -f raw")
		if len(flags) > 0 && flags[0] == "--readonly" {
			qio.WriteString(" -r")
		}
		for _, c := range cmds {
			qio.WriteString(" -c '" + c + "'")
		}
		qio.WriteString(` "$uri"`)
		args = append(args, "--socket", filepath.Join(t.TempDir(), "s"), "--run", qio.String(), img)
		return runCmd(t, strings.NewReader(pass), args...)
	}
	if r := serve(pw+"\n", nil, "write -P 0x5a 1000 9000", "flush"); r.code != 0 {
		t.Fatalf("writing the outer volume: exit %d %s%s", r.code, r.stdout, r.stderr)
	}
	if r := serve(hpw+"\n", []string{"--tcrypt-hidden"}, "write -P 0xa5 0 4096", "read -P 0xa5 0 4096"); r.code != 0 || strings.Contains(r.stdout, "Pattern verification failed") {
		t.Fatalf("the hidden volume: exit %d %s%s", r.code, r.stdout, r.stderr)
	}
	// The hidden volume lies at the end of the outer one: a protected
	// write there is refused, one at the start is not.
	prot := serve(pw+"\n"+hpw+"\n", []string{"--protect-hidden"}, "write -P 0x11 3000000 4096")
	if prot.code == 0 || !strings.Contains(prot.stdout+prot.stderr, "write failed") {
		t.Errorf("a write into the protected hidden volume was not refused: exit %d %s%s", prot.code, prot.stdout, prot.stderr)
	}
	if r := serve(pw+"\n"+hpw+"\n", []string{"--protect-hidden"}, "write -P 0x5a 1000 9000"); r.code != 0 {
		t.Errorf("a write outside the protected hidden volume: exit %d %s%s", r.code, r.stdout, r.stderr)
	}
	if r := serve(pw+"\n", []string{"--readonly"}, "read -P 0x5a 1000 9000"); r.code != 0 || strings.Contains(r.stdout, "Pattern verification failed") {
		t.Fatalf("reading back the outer volume: exit %d %s%s", r.code, r.stdout, r.stderr)
	}
	r = runCmd(t, strings.NewReader(pw+"\n"+npw+"\n"), append(append([]string{"tcrypt", "change-key"}, fast...), "--new-hash", "sha256", "--new-veracrypt-pim", "1", img)...)
	if r.code != 0 {
		t.Fatalf("xts tcrypt change-key: exit %d %s", r.code, r.stderr)
	}
	out := filepath.Join(dir, "out")
	if r := runCmd(t, strings.NewReader(pw+"\n"), append(append([]string{"tcrypt", "decrypt"}, fast...), "--tcrypt-backup", img, out)...); r.code != exitPermission {
		t.Errorf("the old password after change-key (backup header): exit %d %s", r.code, r.stderr)
	}
	if r := runCmd(t, strings.NewReader(pw+"\n"), append(append([]string{"tcrypt", "decrypt"}, fast...), img, out)...); r.code != exitPermission {
		t.Errorf("the old password after change-key: exit %d %s", r.code, r.stderr)
	}
	if r := runCmd(t, strings.NewReader(npw+"\n"), append(append([]string{"tcrypt", "decrypt"}, fast...), img, out)...); r.code != 0 {
		t.Fatalf("the new password after change-key: exit %d %s", r.code, r.stderr)
	}
	if b := readFile(t, out); !bytes.Equal(b[1000:10000], bytes.Repeat([]byte{0x5a}, 9000)) {
		t.Error("the data written before change-key does not read back with the new password")
	}
}
