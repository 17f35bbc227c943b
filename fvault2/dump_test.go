package fvault2

import (
	"bytes"
	"encoding/hex"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDumpMatchesCryptsetup compares Dump with `cryptsetup fvault2Dump`
// (and --dump-volume-key), byte for byte.
func TestDumpMatchesCryptsetup(t *testing.T) {
	img := smallImage(t)
	cs, err := exec.LookPath("cryptsetup")
	if err != nil {
		t.Skip("cryptsetup not found (apt-get install cryptsetup-bin): no oracle for the dump")
	}
	f := openSmall(t)
	h, err := ReadHeader(f)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := hex.DecodeString(smallVolumeKey)
	for _, withKey := range []bool{false, true} {
		args := []string{"fvault2Dump", filepath.Base(img)}
		var vk []byte
		if withKey {
			args = append(args, "--dump-volume-key", "--batch-mode")
			vk = key
		}
		cmd := exec.Command(cs, args...)
		cmd.Dir = filepath.Dir(img)
		cmd.Stdin = strings.NewReader(smallPassword + "\n")
		want, err := cmd.Output()
		if err != nil {
			t.Fatalf("cryptsetup %v: %v", args, err)
		}
		var got bytes.Buffer
		if err := h.Dump(&got, filepath.Base(img), vk); err != nil {
			t.Fatal(err)
		}
		if got.String() != string(want) {
			t.Errorf("dump (volume key %v):\n%s\ncryptsetup:\n%s", withKey, got.String(), want)
		}
	}
}
