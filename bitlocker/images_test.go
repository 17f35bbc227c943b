package bitlocker

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fastxts/xts/internal/fdeimages"
)

// The test images: cryptsetup's BitLocker images, unpacked once per test
// binary from ../shared/fde-images next to the module root.

var (
	imagesOnce sync.Once
	imagesDir  string
	imagesErr  error // why the images are not available
)

func TestMain(m *testing.M) {
	code := m.Run()
	if imagesDir != "" {
		os.RemoveAll(imagesDir)
	}
	os.Exit(code)
}

// images returns the directory holding the unpacked images and
// images.conf, or skips the test with the reason where they are absent.
func images(t testing.TB) string {
	t.Helper()
	imagesOnce.Do(func() {
		tmp, err := os.MkdirTemp("", "bitlocker-test-")
		if err != nil {
			imagesErr = err
			return
		}
		if err := fdeimages.Extract("bitlk-images.tar.xz", tmp); err != nil {
			os.RemoveAll(tmp)
			imagesErr = err
			return
		}
		imagesDir = filepath.Join(tmp, "bitlk-images")
	})
	if errors.Is(imagesErr, fdeimages.ErrAbsent) {
		t.Skip(imagesErr)
	} else if imagesErr != nil {
		t.Fatal(imagesErr)
	}
	return imagesDir
}

// imageConf is one section of images.conf.
type imageConf struct {
	name string
	kv   map[string]string
}

func (c imageConf) get(k string) string { return c.kv[k] }

func readConf(t testing.TB) []imageConf {
	dir := images(t)
	f, err := os.Open(filepath.Join(dir, "images.conf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []imageConf
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			out = append(out, imageConf{name: line[1 : len(line)-1], kv: map[string]string{}})
		case len(out) > 0:
			if k, v, ok := strings.Cut(line, "="); ok {
				out[len(out)-1].kv[k] = v
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) < 20 {
		t.Fatalf("images.conf has %d images", len(out))
	}
	return out
}

func openImage(t testing.TB, name string, write bool) *os.File {
	t.Helper()
	flag := os.O_RDONLY
	if write {
		flag = os.O_RDWR
	}
	f, err := os.OpenFile(filepath.Join(images(t), name+".img"), flag, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// volumeSHA256 hashes the whole decrypted volume.
func volumeSHA256(t testing.TB, v *Volume) string {
	t.Helper()
	h := sha256.New()
	n, err := io.Copy(h, io.NewSectionReader(v, 0, v.Size()))
	if err != nil {
		t.Fatal(err)
	}
	if n != v.Size() {
		t.Fatalf("read %d of %d bytes", n, v.Size())
	}
	return hex.EncodeToString(h.Sum(nil))
}
