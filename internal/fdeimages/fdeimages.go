// Package fdeimages finds and unpacks, for tests, cryptsetup's test images
// of other disk formats (VeraCrypt/TrueCrypt, BitLocker, FileVault 2). They
// are kept out of the repository (cryptsetup is GPL-2.0), in
// ../shared/fde-images beside the module root; a test that needs them
// skips, saying so, where that folder is absent.
package fdeimages

import (
	"errors"
	"fmt"
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

// ErrAbsent is the error Extract returns, wrapped with the reason, where
// the folder, the archive or tar is absent: tests skip on it.
var ErrAbsent = errors.New("fdeimages: test images not available")

// Extract extracts archive (a name in Dir, such as "bitlk-images.tar.xz"),
// or only its members where any are named (such as
// "tcrypt-images/tc_5-sha512-xts-serpent"), into the existing directory
// dir. Where the folder, the archive or tar is absent it returns an error
// that wraps ErrAbsent and says which.
func Extract(archive, dir string, members ...string) error {
	src := Dir()
	if src == "" {
		return fmt.Errorf("%w: ../shared/fde-images not found", ErrAbsent)
	}
	path := filepath.Join(src, archive)
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("%w: ../shared/fde-images/%s not found", ErrAbsent, archive)
	}
	if _, err := exec.LookPath("tar"); err != nil {
		return fmt.Errorf("%w: tar not found: cannot unpack %s", ErrAbsent, archive)
	}
	args := append([]string{"-xJf", path, "-C", dir, "--"}, members...)
	if out, err := exec.Command("tar", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("fdeimages: unpacking %s: %v\n%s", archive, err, out)
	}
	return nil
}

// Unpack extracts archive, or only the members named, into a new temporary
// directory of t (see Extract) and returns that directory. It skips the
// test, with the reason, when the folder, the archive or tar is absent,
// and fails it when tar fails.
func Unpack(t testing.TB, archive string, members ...string) string {
	t.Helper()
	dir := t.TempDir()
	if err := Extract(archive, dir, members...); errors.Is(err, ErrAbsent) {
		t.Skip(err)
	} else if err != nil {
		t.Fatal(err)
	}
	return dir
}
