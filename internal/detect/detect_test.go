package detect

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fastxts/xts/internal/fdeimages"
)

// Synthetic headers, built from the layouts Detect documents.

func luksHeader(version uint16) []byte {
	b := make([]byte, 4096)
	copy(b, "LUKS\xba\xbe")
	binary.BigEndian.PutUint16(b[6:], version)
	return b
}

func coreStorageHeader() []byte {
	b := make([]byte, 4096)
	binary.LittleEndian.PutUint16(b[8:], 1)
	binary.LittleEndian.PutUint16(b[10:], 0x0010)
	copy(b[88:], "CS")
	binary.LittleEndian.PutUint32(b[4:], 0xffffffff)
	binary.LittleEndian.PutUint32(b[0:], ^crc32.Update(0, crc32.MakeTable(crc32.Castagnoli), b[8:512]))
	return b
}

// bitLockerImage returns a boot sector of kind "win7", "vista" or "togo"
// whose FVE metadata block (at 64 KiB) has version ver.
func bitLockerImage(kind string, ver uint16) []byte {
	b := make([]byte, 128<<10)
	copy(b, "\xeb\x58\x90")
	const fve = 64 << 10
	switch kind {
	case "win7":
		copy(b[3:], "-FVE-FS-")
		copy(b[160:], bdeGUID) // not checked: encrypt-on-write volumes have another GUID
		binary.LittleEndian.PutUint64(b[176:], fve)
	case "vista":
		b[1] = 0x52
		copy(b[3:], "-FVE-FS-")
		binary.LittleEndian.PutUint64(b[56:], fve)
	case "togo":
		copy(b[3:], "MSWIN4.1")
		copy(b[424:], bdeGUID)
		binary.LittleEndian.PutUint64(b[440:], fve)
	}
	copy(b[fve:], "-FVE-FS-")
	binary.LittleEndian.PutUint16(b[fve+8:], 0x37)
	binary.LittleEndian.PutUint16(b[fve+10:], ver)
	return b
}

func mutate(b []byte, f func([]byte)) []byte {
	b = bytes.Clone(b)
	f(b)
	return b
}

func TestDetectSynthetic(t *testing.T) {
	cs := coreStorageHeader()
	for _, tc := range []struct {
		name string
		data []byte
		want Format
		err  string // substring of the error, "" for none
	}{
		{"luks1", luksHeader(1), LUKS1, ""},
		{"luks2", luksHeader(2), LUKS2, ""},
		{"luks2 header only", luksHeader(2)[:8], LUKS2, ""},
		{"luks version 3", luksHeader(3), "", "LUKS header version 3"},
		{"luks magic wrong", mutate(luksHeader(1), func(b []byte) { b[4] = 0xbb }), "", "no known header"},
		{"core storage", cs, FVault2, ""},
		{"core storage bad checksum", mutate(cs, func(b []byte) { b[300] ^= 1 }), "", "no known header"},
		{"core storage version 2", mutate(cs, func(b []byte) { b[8] = 2 }), "", "no known header"},
		{"core storage short", cs[:300], "", "no known header"},
		{"bitlocker win7", bitLockerImage("win7", 2), BitLocker, ""},
		{"bitlocker vista", bitLockerImage("vista", 1), BitLocker, ""},
		{"bitlocker to go", bitLockerImage("togo", 2), BitLockerToGo, ""},
		{"bitlocker bad version", bitLockerImage("win7", 3), "", "no known header"},
		{"bitlocker no metadata", bitLockerImage("win7", 2)[:32<<10], "", "no known header"},
		{"bitlocker bad jump", mutate(bitLockerImage("win7", 2), func(b []byte) { b[0] = 0xe9 }), "", "no known header"},
		{"bitlocker win7 with vista's jump", mutate(bitLockerImage("win7", 2), func(b []byte) { b[1] = 0x52 }), "", "no known header"},
		{"bitlocker metadata signature", mutate(bitLockerImage("win7", 2), func(b []byte) { b[64<<10] = 'x' }), "", "no known header"},
		{"fat32 (MSWIN4.1 without the GUID)", mutate(bitLockerImage("togo", 2), func(b []byte) { b[424] ^= 1 }), "", "no known header"},
		{"zeros", make([]byte, 1<<20), "", "no known header"},
		{"empty", nil, "", "no known header"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Detect(bytes.NewReader(tc.data))
			if got != tc.want {
				t.Errorf("Detect = %q, want %q", got, tc.want)
			}
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("error %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("error %v, want one containing %q", err, tc.err)
			}
			if tc.err == "no known header" && !errors.Is(err, ErrUnknown) {
				t.Errorf("error %v is not ErrUnknown", err)
			}
		})
	}
}

type failReader struct{}

func (failReader) ReadAt([]byte, int64) (int, error) { return 0, errors.New("device gone") }

func TestDetectReadError(t *testing.T) {
	f, err := Detect(failReader{})
	if f != "" || err == nil || !strings.Contains(err.Error(), "device gone") || errors.Is(err, ErrUnknown) {
		t.Fatalf("Detect = %q, %v; want the read error", f, err)
	}
}

func detectFile(t *testing.T, path string) (Format, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return Detect(f)
}

// TestDetectImages runs Detect on cryptsetup's BitLocker (all of them:
// the To Go ones by name) and FileVault 2 test images.
func TestDetectImages(t *testing.T) {
	t.Run("bitlk", func(t *testing.T) {
		imgs, _ := filepath.Glob(filepath.Join(fdeimages.Unpack(t, "bitlk-images.tar.xz"), "*", "*.img"))
		if len(imgs) < 20 {
			t.Fatalf("%d BitLocker images, want at least 20", len(imgs))
		}
		for _, img := range imgs {
			want := BitLocker
			if strings.Contains(filepath.Base(img), "togo") {
				want = BitLockerToGo
			}
			if got, err := detectFile(t, img); got != want || err != nil {
				t.Errorf("%s: %q, %v; want %q", filepath.Base(img), got, err, want)
			}
		}
	})
	t.Run("fvault2", func(t *testing.T) {
		img := filepath.Join(fdeimages.Unpack(t, "fvault2-images.tar.xz"), "fvault2-images", "small")
		if got, err := detectFile(t, img); got != FVault2 || err != nil {
			t.Errorf("small: %q, %v; want %q", got, err, FVault2)
		}
	})
	t.Run("tcrypt", func(t *testing.T) {
		// VeraCrypt and TrueCrypt volumes have no header to see.
		imgs, _ := filepath.Glob(filepath.Join(fdeimages.Unpack(t, "tcrypt-images.tar.xz"), "*", "[tv]c*"))
		if len(imgs) == 0 {
			t.Fatal("no tcrypt images")
		}
		for _, img := range imgs {
			if got, err := detectFile(t, img); got != "" || !errors.Is(err, ErrUnknown) {
				t.Errorf("%s: %q, %v; want ErrUnknown", filepath.Base(img), got, err)
			}
		}
	})
}

// TestDetectCryptsetupLUKS formats LUKS1 and LUKS2 images with cryptsetup.
func TestDetectCryptsetupLUKS(t *testing.T) {
	cs, err := exec.LookPath("cryptsetup")
	if err != nil {
		t.Skip("cryptsetup not found (apt-get install cryptsetup-bin): no LUKS images to detect")
	}
	dir := t.TempDir()
	kf := filepath.Join(dir, "key")
	if err := os.WriteFile(kf, []byte("password"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		typ  string
		want Format
	}{{"luks1", LUKS1}, {"luks2", LUKS2}} {
		img := filepath.Join(dir, tc.typ+".img")
		if err := os.WriteFile(img, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(img, 20<<20); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(cs, "luksFormat", "--type", tc.typ, "-q", "--batch-mode", "--pbkdf", "pbkdf2",
			"--pbkdf-force-iterations", "1000", "--key-file", kf, img).CombinedOutput()
		if err != nil {
			t.Fatalf("cryptsetup luksFormat --type %s: %v\n%s", tc.typ, err, out)
		}
		if got, err := detectFile(t, img); got != tc.want || err != nil {
			t.Errorf("%s: %q, %v; want %q", tc.typ, got, err, tc.want)
		}
	}
}

func FuzzDetect(f *testing.F) {
	f.Add(luksHeader(2)[:64])
	f.Add(coreStorageHeader()[:512])
	f.Add(bitLockerImage("win7", 2)[:512])
	f.Add(bitLockerImage("togo", 2)[:512])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Detect(bytes.NewReader(data))
		if (got == "") == (err == nil) {
			t.Fatalf("Detect = %q, %v: want a format or an error", got, err)
		}
	})
}

var _ io.ReaderAt = failReader{}
