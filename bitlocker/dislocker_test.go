package bitlocker

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// dislockerDecrypt runs `dislocker-file -V img <secret> out` and returns
// the SHA-256 of its output; ok is false (with the reason logged) when
// dislocker cannot open the image.
func dislockerDecrypt(t *testing.T, img string, secretArgs ...string) (sum string, ok bool) {
	t.Helper()
	bin, err := exec.LookPath("dislocker-file")
	if err != nil {
		t.Skip("dislocker-file not installed (apt-get install -y dislocker)")
	}
	out := filepath.Join(t.TempDir(), "dislocker.out")
	args := append([]string{"-q", "-V", img}, secretArgs...)
	args = append(args, out)
	cmd := exec.Command(bin, args...)
	msg, err := cmd.CombinedOutput()
	if err != nil {
		t.Logf("dislocker-file cannot open %s: %v %s", filepath.Base(img), err, strings.TrimSpace(string(msg)))
		return "", false
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// TestDislocker: for every image dislocker-file opens, our decrypted bytes
// equal its output.
func TestDislocker(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: dislocker-file decrypts whole images")
	}
	if _, err := exec.LookPath("dislocker-file"); err != nil {
		t.Skip("dislocker-file not installed (apt-get install -y dislocker)")
	}
	dir := images(t)
	var mu sync.Mutex
	opened := 0
	t.Cleanup(func() {
		if opened < 10 && !t.Failed() {
			t.Errorf("dislocker-file opened only %d images", opened)
		}
	})
	for _, c := range readConf(t) {
		if _, bad := refused[c.name]; bad {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var args []string
			var s Secret
			switch {
			case c.get("PW") != "":
				args, s = []string{"-u" + c.get("PW")}, Password(c.get("PW"))
			case c.get("RP") != "":
				args, s = []string{"-p" + c.get("RP")}, RecoveryPassword(c.get("RP"))
			default:
				args, s = []string{"-c"}, ClearKey()
			}
			want, ok := dislockerDecrypt(t, filepath.Join(dir, c.name+".img"), args...)
			if !ok {
				t.Skip("dislocker-file cannot open this image")
			}
			mu.Lock()
			opened++
			mu.Unlock()
			v, err := Open(openImage(t, c.name, false), s, &Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			if got := volumeSHA256(t, v); got != want {
				t.Errorf("SHA-256 %s, dislocker-file's %s", got, want)
			}
		})
	}
}
