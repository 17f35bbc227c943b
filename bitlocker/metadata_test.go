package bitlocker

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDumpMatchesCryptsetup compares Dump with `cryptsetup bitlkDump` (run
// with TZ=UTC) for every image, line by line after the first.
func TestDumpMatchesCryptsetup(t *testing.T) {
	cs, err := exec.LookPath("cryptsetup")
	if err != nil {
		t.Skip("cryptsetup not installed (apt-get install -y cryptsetup-bin)")
	}
	t.Setenv("TZ", "UTC")
	dir := images(t)
	for _, c := range readConf(t) {
		t.Run(c.name, func(t *testing.T) {
			img := filepath.Join(dir, c.name+".img")
			cmd := exec.Command(cs, "bitlkDump", img)
			cmd.Env = append(os.Environ(), "TZ=UTC", "LC_ALL=C")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("cryptsetup bitlkDump: %v", err)
			}
			_, want, _ := strings.Cut(string(out), "\n")
			f := openImage(t, c.name, false)
			m, err := ReadMetadata(f)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := m.Dump(&b); err != nil {
				t.Fatal(err)
			}
			if got := b.String(); got != want {
				gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
				for i := range max(len(gl), len(wl)) {
					var g, w string
					if i < len(gl) {
						g = gl[i]
					}
					if i < len(wl) {
						w = wl[i]
					}
					if g != w && c.name == "bitlk-aes-xts-128-crc" && strings.HasPrefix(w, "Description:") {
						// cryptsetup before 2.7 reads the first copy without checking
						// its CRC-32: the damaged description is its.
						continue
					}
					if g != w {
						t.Errorf("line %d: %q, cryptsetup %q", i+2, g, w)
					}
				}
			}
		})
	}
}

// TestMetadataCopies: the -crc image has its first two copies damaged
// (their CRC-32 fails); the third is used and matches the intact image's.
func TestMetadataCopies(t *testing.T) {
	good, err := ReadMetadata(openImage(t, "bitlk-aes-xts-128", false))
	if err != nil {
		t.Fatal(err)
	}
	if good.Copy != 0 || good.CopyErrors != [3]error{} {
		t.Errorf("intact image: copy %d, errors %v", good.Copy, good.CopyErrors)
	}
	m, err := ReadMetadata(openImage(t, "bitlk-aes-xts-128-crc", false))
	if err != nil {
		t.Fatal(err)
	}
	if m.Copy != 2 {
		t.Errorf("copy %d used, want 2", m.Copy)
	}
	for i := 0; i < 2; i++ {
		if err := m.CopyErrors[i]; !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "CRC-32") {
			t.Errorf("copy %d: %v", i, err)
		}
	}
	if m.Description != good.Description || m.GUID != good.GUID {
		t.Errorf("copy 2 says %q %v, the intact image %q %v", m.Description, m.GUID, good.Description, good.GUID)
	}
}

// TestValidationHash: the metadata's SHA-256, stored under the VMK, is
// checked on unlock; a changed byte that the CRC does not see (changed
// after the CRC check) is caught.
func TestValidationHash(t *testing.T) {
	f := openImage(t, "bitlk-aes-xts-128-clearkey-only", false)
	m, err := ReadMetadata(f)
	if err != nil {
		t.Fatal(err)
	}
	if m.valLen == 0 {
		t.Fatal("no validation structure found")
	}
	m.block[blockHeaderSize+metaHeaderSize+20] ^= 1
	_, _, err = m.unlock(ClearKey())
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "SHA-256") {
		t.Fatalf("unlock with a changed metadata byte: %v", err)
	}
}

func TestReadMetadataErrors(t *testing.T) {
	zero := make([]byte, 1<<20)
	if _, err := ReadMetadata(bytes.NewReader(zero)); !errors.Is(err, ErrNotBitLocker) {
		t.Errorf("zeros: %v", err)
	}
	if _, err := ReadMetadata(bytes.NewReader(zero[:100])); err == nil || !strings.Contains(err.Error(), "volume header") {
		t.Errorf("100 bytes: %v", err)
	}
	// The first 64 MiB of a real image, with the metadata areas cut off.
	img, err := os.ReadFile(filepath.Join(images(t), "bitlk-aes-xts-128.img"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ReadMetadata(bytes.NewReader(img[:30<<20])); !errors.Is(err, ErrCorrupt) {
		t.Errorf("truncated image: %v", err)
	}
	// An unknown BitLocker identifier.
	bad := bytes.Clone(img[:60<<20])
	bad[160] ^= 0xff
	if _, err := ReadMetadata(bytes.NewReader(bad)); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "identifier") {
		t.Errorf("unknown identifier: %v", err)
	}
	// All three copies damaged.
	bad = bytes.Clone(img[:60<<20])
	m, err := ReadMetadata(bytes.NewReader(bad))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range m.MetadataOffsets {
		bad[o+200] ^= 1
	}
	if _, err := ReadMetadata(bytes.NewReader(bad)); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "no intact") {
		t.Errorf("three damaged copies: %v", err)
	}
	// A copy whose offsets disagree with the volume header.
	bad = bytes.Clone(img[:60<<20])
	bad[176] ^= 0x10 // the header's first offset is off its sector
	if _, err := ReadMetadata(bytes.NewReader(bad)); err == nil {
		t.Error("header offsets changed: no error")
	} else if !errors.Is(err, ErrCorrupt) {
		t.Errorf("header offsets changed: %v", err)
	}
}

// TestVistaMetadata: a Vista-style header (boot code EB 52 90, metadata at
// a cluster number, block version 1) is read and refused by Open.
func TestVistaMetadata(t *testing.T) {
	img, err := os.ReadFile(filepath.Join(images(t), "bitlk-aes-xts-128.img"))
	if err != nil {
		t.Fatal(err)
	}
	m0, err := ReadMetadata(bytes.NewReader(img))
	if err != nil {
		t.Fatal(err)
	}
	img = img[:64<<20]
	img[1] = 0x52
	img[13] = 8 // sectors per cluster
	cl := m0.MetadataOffsets[0] / (8 * 512)
	for i := 0; i < 8; i++ {
		img[56+i] = byte(cl >> (8 * i))
	}
	o := m0.MetadataOffsets[0]
	img[o+10] = 1 // block version 1
	m, err := ReadMetadata(bytes.NewReader(img))
	if err != nil {
		t.Fatal(err)
	}
	if m.Version != 1 || m.GUID != m0.GUID {
		t.Errorf("version %d, GUID %v", m.Version, m.GUID)
	}
	if _, err := Open(bytes.NewReader(img), Password("anaconda"), &Options{Metadata: m}); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "Vista") {
		t.Errorf("Open: %v", err)
	}
}
