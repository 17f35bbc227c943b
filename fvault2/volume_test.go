package fvault2

import (
	"bytes"
	"crypto/aes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/xts"
)

func openSmallVolume(t *testing.T, f io.ReaderAt, o *Options) *Volume {
	t.Helper()
	v, err := Open(f, []byte(smallPassword), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}

func sha256Of(t *testing.T, r io.Reader) string {
	t.Helper()
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestOpenSmall opens the image with its password and checks the volume
// key, the geometry, the SHA-256 of the whole decrypted volume and (with
// blkid) its file system's UUID.
func TestOpenSmall(t *testing.T) {
	f := openSmall(t)
	v := openSmallVolume(t, f, nil)
	if got := hex.EncodeToString(v.VolumeKey()); got != smallVolumeKey {
		t.Errorf("volume key %s, want %s", got, smallVolumeKey)
	}
	if v.Size() != smallLVSize || v.SectorSize() != 512 {
		t.Errorf("size %d, sector size %d; want %d, 512", v.Size(), v.SectorSize(), int64(smallLVSize))
	}
	if got := sha256Of(t, io.NewSectionReader(v, 0, v.Size())); got != smallSHA256 {
		t.Fatalf("SHA-256 of the volume %s, want %s", got, smallSHA256)
	}
	// Reads at the end: io.EOF as os.File gives it.
	buf := make([]byte, 1024)
	if n, err := v.ReadAt(buf, v.Size()-512); n != 512 || err != io.EOF {
		t.Errorf("ReadAt across the end: %d, %v; want 512, io.EOF", n, err)
	}

	blkid, err := exec.LookPath("blkid")
	if err != nil {
		t.Skip("blkid not found: the file system UUID is not checked")
	}
	out := filepath.Join(t.TempDir(), "lv")
	of, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(of, io.NewSectionReader(v, 0, v.Size())); err != nil {
		t.Fatal(err)
	}
	of.Close()
	uuid, err := exec.Command(blkid, "-p", "-o", "value", "-s", "UUID", out).Output()
	if err != nil {
		t.Fatalf("blkid: %v", err)
	}
	if got := strings.TrimSpace(string(uuid)); got != "de124d8a-2164-394e-924f-8e28db0a09cb" {
		t.Errorf("file system UUID %q, want de124d8a-2164-394e-924f-8e28db0a09cb", got)
	}
}

func TestOpenWrongPassword(t *testing.T) {
	f := openSmall(t)
	for _, pw := range []string{"", "heslo12", "heslo1234", "Heslo123"} {
		v, err := Open(f, []byte(pw), nil)
		if !errors.Is(err, ErrWrongPassword) || v != nil {
			t.Errorf("password %q: %v, %v; want ErrWrongPassword", pw, v, err)
		}
	}
}

func TestOpenWithKey(t *testing.T) {
	f := openSmall(t)
	key := unhex(t, smallVolumeKey)
	first := func(v *Volume) string {
		return sha256Of(t, io.NewSectionReader(v, 0, 1<<20))
	}
	want := first(openSmallVolume(t, f, nil))
	for _, k := range [][]byte{key, key[:16]} {
		v, err := OpenWithKey(f, k, &Options{ReadOnly: true})
		if err != nil {
			t.Fatalf("%d-byte key: %v", len(k), err)
		}
		if got := first(v); got != want || !v.ReadOnly() || !bytes.Equal(v.VolumeKey(), key) {
			t.Errorf("%d-byte key: first MiB %s (want %s), read-only %v, key %x", len(k), got, want, v.ReadOnly(), v.VolumeKey())
		}
		v.Close()
	}
	bad := bytes.Clone(key)
	bad[31] ^= 1
	for _, k := range [][]byte{bad, key[:31], nil} {
		if v, err := OpenWithKey(f, k, nil); err == nil {
			v.Close()
			t.Errorf("key %x opened the volume", k)
		}
	}
}

func TestCloseAndReadOnly(t *testing.T) {
	path := smallImage(t)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v := openSmallVolume(t, f, &Options{ReadOnly: true})
	if _, err := v.WriteAt(make([]byte, 512), 0); err == nil {
		t.Error("WriteAt on a read-only volume succeeded")
	}
	v.Close()
	if _, err := v.ReadAt(make([]byte, 512), 0); !errors.Is(err, ErrClosed) {
		t.Errorf("ReadAt after Close: %v, want ErrClosed", err)
	}
	if k := v.VolumeKey(); k != nil {
		t.Errorf("VolumeKey after Close: %x", k)
	}
	if err := v.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestWriteRoundTrip writes random ranges through the volume and checks
// that reads (and a fresh Open) give them back, that the sectors on disk
// are AES-XTS under x/crypto's implementation with the sector number from
// the logical volume's start as the tweak, and that no byte outside the
// logical volume changed.
func TestWriteRoundTrip(t *testing.T) {
	path := smallImage(t)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := ReadHeader(f)
	if err != nil {
		t.Fatal(err)
	}
	devSize, _ := f.Seek(0, io.SeekEnd)
	before := sha256Of(t, io.NewSectionReader(f, 0, h.LVOffset))
	after := sha256Of(t, io.NewSectionReader(f, h.LVOffset+h.LVSize, devSize-h.LVOffset-h.LVSize))

	v := openSmallVolume(t, f, nil)
	model := make([]byte, v.Size())
	if _, err := v.ReadAt(model, 0); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	size := v.Size()
	writes := 200
	if testing.Short() {
		writes = 40 // CI's -race step; the volume layer's own tests cover more
	}
	for i := range writes {
		var off, n int64
		switch i % 4 {
		case 0: // small, anywhere
			n = 1 + rng.Int64N(1500)
		case 1: // whole sectors
			n = 512 * (1 + rng.Int64N(64))
		case 2: // large, crossing chunks
			n = 1 + rng.Int64N(1<<20+4096)
		case 3: // at the ends
			n = 1 + rng.Int64N(4096)
		}
		off = rng.Int64N(size - n + 1)
		if i%4 == 1 {
			off &^= 511
		}
		if i%4 == 3 && i%8 == 3 {
			off = size - n
		} else if i%4 == 3 {
			off = 0
		}
		p := make([]byte, n)
		for j := 0; j < len(p); j += 8 {
			var w [8]byte
			binary.LittleEndian.PutUint64(w[:], rng.Uint64())
			copy(p[j:], w[:])
		}
		if m, err := v.WriteAt(p, off); m != len(p) || err != nil {
			t.Fatalf("WriteAt(%d bytes, %d): %d, %v", n, off, m, err)
		}
		copy(model[off:], p)
		if i%25 == 0 {
			q := make([]byte, n+100)
			m, _ := v.ReadAt(q, off-min(off, 50))
			lo := off - min(off, 50)
			if !bytes.Equal(q[:m], model[lo:lo+int64(m)]) {
				t.Fatalf("read back after write %d differs", i)
			}
		}
	}
	if _, err := v.WriteAt([]byte{1}, size); err == nil {
		t.Error("WriteAt past the end succeeded")
	}
	if err := v.Flush(); err != nil {
		t.Fatal(err)
	}
	v.Close()

	// A fresh Open reads the model back.
	w := openSmallVolume(t, f, &Options{ReadOnly: true})
	got := make([]byte, size)
	if _, err := w.ReadAt(got, 0); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, model) {
		t.Fatal("the volume after the writes differs from the model")
	}
	// The ciphertext on disk is x/crypto's AES-XTS, tweak = 512-byte
	// sector number from the logical volume's start.
	c, err := xts.NewCipher(aes.NewCipher, unhex(t, smallVolumeKey))
	if err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, 512)
	plain := make([]byte, 512)
	for _, s := range []int64{0, 1, 7, rng.Int64N(size / 512), size/512 - 1} {
		if _, err := f.ReadAt(raw, h.LVOffset+512*s); err != nil {
			t.Fatal(err)
		}
		c.Decrypt(plain, raw, uint64(s))
		if !bytes.Equal(plain, model[512*s:512*s+512]) {
			t.Errorf("sector %d on disk is not AES-XTS of the model with tweak %d", s, s)
		}
	}
	// Nothing outside the logical volume changed.
	if got := sha256Of(t, io.NewSectionReader(f, 0, h.LVOffset)); got != before {
		t.Error("bytes before the logical volume changed")
	}
	if got := sha256Of(t, io.NewSectionReader(f, h.LVOffset+h.LVSize, devSize-h.LVOffset-h.LVSize)); got != after {
		t.Error("bytes after the logical volume changed")
	}
}
