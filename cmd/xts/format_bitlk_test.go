package main

import (
	"bufio"
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
