// Package fdeimages finds and unpacks, for tests, cryptsetup's test images
// of other disk formats (VeraCrypt/TrueCrypt, BitLocker, FileVault 2). They
// are kept out of the repository (cryptsetup is GPL-2.0), in
// ../shared/fde-images beside the module root; a test that needs them
// skips, saying so, where that folder is absent.
package fdeimages

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Dir returns ../shared/fde-images as seen from the module root (found by
// walking up from the working directory to go.mod), or "" when absent.
func Dir() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	d := filepath.Join(dir, "..", "shared", "fde-images")
	if _, err := os.Stat(d); err != nil {
		return ""
	}
	return d
}

// Unpack extracts archive (a name in Dir, such as "bitlk-images.tar.xz"),
// or only its members where any are named (such as
// "tcrypt-images/tc_5-sha512-xts-serpent"), into a new temporary directory
// of t and returns that directory. It skips the test, with the reason,
// when the folder, the archive or tar is absent.
func Unpack(t testing.TB, archive string, members ...string) string {
	t.Helper()
	src := Dir()
	if src == "" {
		t.Skip("../shared/fde-images not found")
	}
	path := filepath.Join(src, archive)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("../shared/fde-images/%s not found", archive)
	}
	if _, err := exec.LookPath("tar"); err != nil {
		t.Skipf("tar not found: cannot unpack %s", archive)
	}
	dir := t.TempDir()
	if out, err := exec.Command("tar", append([]string{"-xJf", path, "-C", dir, "--"}, members...)...).CombinedOutput(); err != nil {
		t.Fatalf("unpacking %s: %v\n%s", archive, err, out)
	}
	return dir
}
