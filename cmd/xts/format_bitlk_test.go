package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fastxts/xts/internal/fdeimages"
)

// bitlkImage is one section of the BitLocker images' images.conf.
type bitlkImage struct {
	name string
	conf map[string]string
}

func bitlkImages(t *testing.T) (dir string, images []bitlkImage) {
	t.Helper()
	dir = filepath.Join(fdeimages.Unpack(t, "bitlk-images.tar.xz"), "bitlk-images")
	f, err := os.Open(filepath.Join(dir, "images.conf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			images = append(images, bitlkImage{name: line[1 : len(line)-1], conf: map[string]string{}})
		case strings.Contains(line, "=") && len(images) > 0:
			k, v, _ := strings.Cut(line, "=")
			images[len(images)-1].conf[k] = v
		}
	}
	if len(images) == 0 {
		t.Fatal("images.conf lists no image")
	}
	return dir, images
}

// TestBitlkVerbs runs xts bitlk over cryptsetup's BitLocker images: the
// dump equals cryptsetup bitlkDump's for the images whose first metadata
// copy is intact; decrypt with the password, each recovery password and
// the startup keys gives the SHA-256 images.conf lists; a wrong password
// exits 2 with no output left. -short decrypts a few images only.
func TestBitlkVerbs(t *testing.T) {
	dir, images := bitlkImages(t)
	_, cryptsetupErr := exec.LookPath("cryptsetup")
	checked := 0
	for _, im := range images {
		img := filepath.Join(dir, im.name+".img")
		if _, err := os.Stat(img); err != nil {
			continue
		}
		t.Run(im.name, func(t *testing.T) {
			dump := runCmd(t, nil, "bitlk", "dump", img)
			if dump.code != 0 || !strings.Contains(dump.stdout, im.conf["GUID"]) {
				t.Fatalf("xts bitlk dump: exit %d\n%s%s", dump.code, dump.stdout, dump.stderr)
			}
			if auto := runCmd(t, nil, "dump", img); auto.stdout != dump.stdout {
				t.Errorf("xts dump (detected) differs from xts bitlk dump:\n%s", auto.stdout)
			}
			if cryptsetupErr == nil && !strings.Contains(im.name, "crc") {
				want, err := exec.Command("cryptsetup", "bitlkDump", img).Output()
				if err == nil && string(want) != dump.stdout {
					t.Errorf("xts bitlk dump:\n%s\ncryptsetup bitlkDump:\n%s", dump.stdout, want)
				}
			}
			sum := im.conf["SHA256SUM"]
			if sum == "" || testing.Short() && checked >= 3 {
				return
			}
			checked++
			var secrets [][]string
			for _, k := range []string{"PW", "RP", "RP2"} {
				if v := im.conf[k]; v != "" {
					secrets = append(secrets, []string{"stdin", v})
				}
			}
			for k, v := range im.conf {
				if strings.HasPrefix(k, "BEK") && v != "" {
					secrets = append(secrets, []string{"-d", filepath.Join(dir, v)})
				}
			}
			if len(secrets) == 0 {
				secrets = append(secrets, []string{"none", ""}) // clear key
			}
			for _, s := range secrets {
				out := filepath.Join(t.TempDir(), "out")
				var r result
				switch s[0] {
				case "stdin":
					r = runCmd(t, strings.NewReader(s[1]+"\n"), "bitlk", "decrypt", img, out)
				case "-d":
					r = runCmd(t, nil, "bitlk", "decrypt", "-d", s[1], img, out)
				default:
					r = runCmd(t, nil, "bitlk", "decrypt", img, out)
				}
				if r.code != 0 {
					t.Fatalf("xts bitlk decrypt (%s): exit %d %s", s[0], r.code, r.stderr)
				}
				got := sha256.Sum256(readFile(t, out))
				if hex.EncodeToString(got[:]) != sum {
					t.Errorf("xts bitlk decrypt (%s %s): SHA-256 %x, want %s", s[0], s[1], got, sum)
				}
			}
			if im.conf["PW"] != "" {
				out := filepath.Join(t.TempDir(), "out")
				r := runCmd(t, strings.NewReader(im.conf["PW"]+"x\n"), "bitlk", "decrypt", img, out)
				if r.code != exitPermission {
					t.Errorf("a wrong password: exit %d %s", r.code, r.stderr)
				}
				if _, err := os.Stat(out); !os.IsNotExist(err) {
					t.Errorf("a wrong password left the output: %v", err)
				}
			}
		})
	}
}

// TestBitlkServeWrite writes through xts bitlk serve with qemu-io at odd
// offsets, then checks the data with xts bitlk decrypt and, where it is
// installed, dislocker-file, and that cryptsetup bitlkDump still prints
// the same metadata.
func TestBitlkServeWrite(t *testing.T) {
	needServeTool(t, "qemu-io")
	dir, images := bitlkImages(t)
	var pw string
	for _, im := range images {
		if im.name == "bitlk-aes-xts-128" {
			pw = im.conf["PW"]
		}
	}
	if pw == "" {
		t.Fatal("images.conf has no password for bitlk-aes-xts-128")
	}
	img := filepath.Join(dir, "bitlk-aes-xts-128.img")
	dumpBefore := runCmd(t, nil, "bitlk", "dump", img).stdout
	r := runCmd(t, strings.NewReader(pw+"\n"), "bitlk", "serve", "--socket", filepath.Join(t.TempDir(), "s"),
		"--run", `qemu-io -f raw -c 'write -P 0x5a 1000 9000' -c 'write -P 0xa5 50000001 70000' -c flush "$uri"`, img)
	if r.code != 0 {
		t.Fatalf("xts bitlk serve: exit %d %s%s", r.code, r.stdout, r.stderr)
	}
	if after := runCmd(t, nil, "bitlk", "dump", img).stdout; after != dumpBefore {
		t.Errorf("the metadata changed:\n%s\n---\n%s", dumpBefore, after)
	}
	out := filepath.Join(t.TempDir(), "out")
	if r := runCmd(t, strings.NewReader(pw+"\n"), "bitlk", "decrypt", img, out); r.code != 0 {
		t.Fatalf("xts bitlk decrypt: exit %d %s", r.code, r.stderr)
	}
	got := readFile(t, out)
	check := func(b []byte, who string) {
		if !bytes.Equal(b[1000:10000], bytes.Repeat([]byte{0x5a}, 9000)) || !bytes.Equal(b[50000001:50070001], bytes.Repeat([]byte{0xa5}, 70000)) {
			t.Errorf("%s: the written data does not read back", who)
		}
	}
	check(got, "xts bitlk decrypt")
	if _, err := exec.LookPath("dislocker-file"); err != nil {
		t.Logf("dislocker-file not installed (%v): not cross-checked", err)
		return
	}
	dl := filepath.Join(t.TempDir(), "dislocker")
	if b, err := exec.Command("dislocker-file", "-V", img, "-u"+pw, dl).CombinedOutput(); err != nil {
		t.Fatalf("dislocker-file: %v\n%s", err, b)
	}
	d := readFile(t, dl)
	if !bytes.Equal(d, got) {
		t.Error("dislocker-file decrypts the written image to other bytes than xts bitlk decrypt")
	}
}
