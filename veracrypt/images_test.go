package veracrypt

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// imagesDir unpacks cryptsetup's TCRYPT test images into a temporary
// folder and returns it, or skips when ../shared/fde-images is absent.
func imagesDir(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("../shared/fde-images not found (no module root)")
		}
		dir = parent
	}
	archive := filepath.Join(dir, "..", "shared", "fde-images", "tcrypt-images.tar.xz")
	if _, err := os.Stat(archive); err != nil {
		t.Skip("../shared/fde-images not found")
	}
	out := t.TempDir()
	cmd := exec.Command("tar", "-xJf", archive, "-C", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("cannot unpack %s: %v: %s", archive, err, b)
	}
	return filepath.Join(out, "tcrypt-images")
}

// image is one test image and what opening it should give.
type image struct {
	name      string
	password  []byte
	keyfiles  bool
	pim       int
	prf       string
	mode      string // "xts", "lrw", "cbc"
	cipher    string
	hidden    bool
	system    bool
	truecrypt bool
}

// parseImage reads an image's parameters from its name, as cryptsetup's
// test script does: PREFIX-PRF-MODE-CIPHER[-hidden].
func parseImage(name string) (image, bool) {
	im := image{name: name, password: []byte("aaaaaaaaaaaa")}
	parts := strings.Split(name, "-")
	if len(parts) < 4 {
		return im, false
	}
	prefix := parts[0]
	im.prf, im.mode = parts[1], parts[2]
	rest := parts[3:]
	if rest[len(rest)-1] == "hidden" {
		im.hidden = true
		rest = rest[:len(rest)-1]
	}
	im.cipher = strings.Join(rest, "-")
	switch {
	case strings.HasPrefix(prefix, "sys_"):
		im.system = true
	case strings.HasPrefix(prefix, "tck_"):
		im.keyfiles, im.truecrypt = true, true
	case strings.HasPrefix(prefix, "tc_"):
		im.truecrypt = true
	case strings.HasPrefix(prefix, "vck_"):
		im.keyfiles = true
		switch {
		case strings.Contains(prefix, "_nopw"):
			im.password = nil
		case strings.Contains(prefix, "_pw72"):
			im.password = []byte("aaaaaaaaaaaabbbbbbbbbbbbccccccccccccddddddddddddeeeeeeeeeeeeffffffffffff")
		}
	case strings.HasPrefix(prefix, "vcpim_"):
		f := strings.Split(prefix, "_")
		n, err := strconv.Atoi(f[len(f)-1])
		if err != nil {
			return im, false
		}
		im.pim = n
		im.password = []byte("cccccccccccccccccccc")
	}
	return im, true
}

// fsSerial returns the FAT volume serial (FAT12/16 or FAT32 boot sector)
// of a decrypted volume's first sector, and whether it has one.
func fsSerial(boot []byte) (uint32, bool) {
	if len(boot) < 512 || boot[510] != 0x55 || boot[511] != 0xaa {
		return 0, false
	}
	if bytes.HasPrefix(boot[0x52:], []byte("FAT32")) {
		return binary.LittleEndian.Uint32(boot[0x43:]), true
	}
	if bytes.HasPrefix(boot[0x36:], []byte("FAT")) {
		return binary.LittleEndian.Uint32(boot[0x27:]), true
	}
	return 0, false
}

func TestImagesQuick(t *testing.T) {
	dir := imagesDir(t)
	for _, n := range []string{"vc_1-sha512-xts-aes", "tc_5-sha512-xts-aes"} {
		f, err := os.Open(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		im, _ := parseImage(n)
		start := time.Now()
		v, err := Open(f, im.password, &Options{PRF: im.prf})
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		h := v.Header()
		t.Logf("%s: %s %s v%d min %#x start %d len %d size %d hidden %d ss %d flags %d (%v)", n, h.PRF, h.Cipher, h.Version, h.MinProgramVersion, h.EncryptedAreaStart, h.EncryptedAreaLength, h.VolumeSize, h.HiddenVolumeSize, h.SectorSize, h.Flags, time.Since(start))
		boot := make([]byte, 512)
		if _, err := v.ReadAt(boot, 0); err != nil {
			t.Fatal(err)
		}
		s, ok := fsSerial(boot)
		t.Logf("serial %#x %v % x", s, ok, boot[:64])
		v.Close()
		f.Close()
	}
}
