package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fastxts/xts/internal/fdeimages"
)

// The FileVault 2 test image's values (../shared/fde-images/README.md).
const (
	fvault2Password = "heslo123"
	fvault2SHA256   = "2c662e36c0f7e2f5583e6a939bbcbdc660805692d0fccaa45ad4052beb3b8e18"
	fvault2Key      = "20734d3389212774d7610c29d732880916f3be14c4b12ac7aaf07e5ccc77b319"
)

// TestFVault2Verbs: xts fvault2 dump agrees with cryptsetup fvault2Dump
// (and xts dump detects the type); decrypt with the password and with the
// volume key writes the volume whose SHA-256 the README gives; a wrong
// password exits 2 and leaves no output; serve hands out the same bytes.
func TestFVault2Verbs(t *testing.T) {
	img := filepath.Join(fdeimages.Unpack(t, "fvault2-images.tar.xz"), "fvault2-images", "small")
	dir := t.TempDir()
	pass := writeFile(t, dir, "pass", []byte(fvault2Password))

	dump := runCmd(t, nil, "fvault2", "dump", img)
	if dump.code != 0 || !strings.Contains(dump.stdout, "fc52bfae-5a1f-4f9b-b3a6-f33303a0e401") {
		t.Fatalf("xts fvault2 dump: exit %d\n%s%s", dump.code, dump.stdout, dump.stderr)
	}
	if auto := runCmd(t, nil, "dump", img); auto.code != 0 || auto.stdout != dump.stdout {
		t.Errorf("xts dump (detected) differs from xts fvault2 dump: exit %d\n%s", auto.code, auto.stdout)
	}
	if _, err := exec.LookPath("cryptsetup"); err == nil {
		want, err := exec.Command("cryptsetup", "fvault2Dump", img).Output()
		if err != nil {
			t.Fatalf("cryptsetup fvault2Dump: %v", err)
		}
		if dump.stdout != string(want) {
			t.Errorf("xts fvault2 dump:\n%s\ncryptsetup fvault2Dump:\n%s", dump.stdout, want)
		}
	} else {
		t.Log("cryptsetup not installed: the dump is checked against the README's values only")
	}
	withKey := runCmd(t, nil, "fvault2", "dump", "-d", pass, "--dump-volume-key", img)
	if withKey.code != 0 || !strings.Contains(strings.ReplaceAll(withKey.stdout, " ", ""), fvault2Key[:32]) {
		t.Errorf("xts fvault2 dump --dump-volume-key: exit %d\n%s%s", withKey.code, withKey.stdout, withKey.stderr)
	}

	key, _ := hex.DecodeString(fvault2Key)
	vk := writeFile(t, dir, "vk", key)
	for _, secret := range [][]string{{"-d", pass}, {"--volume-key-file", vk}} {
		out := filepath.Join(t.TempDir(), "out")
		r := runCmd(t, nil, append(append([]string{"fvault2", "decrypt"}, secret...), img, out)...)
		if r.code != 0 {
			t.Fatalf("xts fvault2 decrypt %v: exit %d %s", secret, r.code, r.stderr)
		}
		sum := sha256.Sum256(readFile(t, out))
		if hex.EncodeToString(sum[:]) != fvault2SHA256 {
			t.Errorf("xts fvault2 decrypt %v: SHA-256 %x, want %s", secret, sum, fvault2SHA256)
		}
	}
	out := filepath.Join(t.TempDir(), "out")
	wrong := runCmd(t, strings.NewReader("heslo124\n"), "fvault2", "decrypt", img, out)
	if wrong.code != exitPermission || !strings.Contains(wrong.stderr, "No key available") {
		t.Errorf("a wrong password: exit %d %q", wrong.code, wrong.stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a wrong password left the output: %v", err)
	}

	if _, err := exec.LookPath("nbdcopy"); err != nil {
		t.Skipf("nbdcopy is not installed (%v): serve not checked", err)
	}
	served := filepath.Join(t.TempDir(), "served")
	r := runCmd(t, nil, "serve", "--type", "fvault2", "-d", pass, "--readonly", "--socket", filepath.Join(t.TempDir(), "s"), "--run", `nbdcopy "$uri" `+served, img)
	if r.code != 0 {
		t.Fatalf("xts serve --type fvault2: exit %d %s", r.code, r.stderr)
	}
	sum := sha256.Sum256(readFile(t, served))
	if hex.EncodeToString(sum[:]) != fvault2SHA256 {
		t.Errorf("served volume: SHA-256 %x, want %s", sum, fvault2SHA256)
	}
}
