package luks

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// memImage makes an image in memory with Create and returns its bytes as
// a writable device, the header and the key.
func memImage(t testing.TB, o CreateOptions, dataSize int) (*writerAtBuffer, *Header, []byte) {
	t.Helper()
	var b bytes.Buffer
	w := &writerAtBuffer{&b}
	h, key, err := Create(w, []byte("p"), &o)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteAt(make([]byte, dataSize), int64(h.Segments[0].Offset))
	return w, h, key
}

func (w *writerAtBuffer) ReadAt(p []byte, off int64) (int, error) {
	return bytes.NewReader(w.b.Bytes()).ReadAt(p, off)
}

func (w *writerAtBuffer) Size() int64 { return int64(w.b.Len()) }

// TestVolumeModel writes and reads random ranges of volumes of every
// supported cipher and sector size against a plaintext model, then reads
// concurrently from several goroutines (run with -race), on a device in
// memory and on an image file (which Linux reads through a mapping).
func TestVolumeModel(t *testing.T) {
	for _, onFile := range []bool{false, true} {
		t.Run(map[bool]string{false: "memory", true: "file"}[onFile], func(t *testing.T) {
			testVolumeModel(t, onFile)
		})
	}
}

func testVolumeModel(t *testing.T, onFile bool) {
	for _, tc := range []struct {
		cipher string
		bits   int
		ss     int
	}{
		{"aes-xts-plain64", 512, 4096}, {"aes-xts-plain64", 256, 512}, {"aes-xts-plain", 512, 2048},
		{"aes-cbc-essiv:sha256", 256, 1024}, {"aes-cbc-plain64", 128, 4096}, {"aes-cbc-plain", 256, 512},
	} {
		t.Run(tc.cipher+"-"+itoa(tc.bits)+"-"+itoa(tc.ss), func(t *testing.T) {
			const size = 3<<20 + 8192 // above the chunk and parallel sizes
			dev, h, key := memImage(t, CreateOptions{Cipher: tc.cipher, KeyBits: tc.bits, SectorSize: tc.ss, KDF: fastKDF["pbkdf2"]}, size)
			var data io.ReaderAt = dev
			if onFile {
				data = imageFile(t, dev.b.Bytes())
			}
			// On a file, through the mapping (Options.Map).
			v, err := newVolume(h, key, data, dev.Size(), false, onFile)
			if err != nil {
				t.Fatal(err)
			}
			if mapped := v.Mapped(); onFile && runtime.GOOS == "linux" && !mapped {
				t.Fatal("an image file on Linux is not read through a mapping")
			}
			if v.Size() != size || v.SectorSize() != tc.ss {
				t.Fatalf("Size %d, SectorSize %d", v.Size(), v.SectorSize())
			}
			model := make([]byte, size)
			checkRandomWrites(t, v, model)
			var wg sync.WaitGroup
			errs := make(chan error, 8)
			for g := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := rand.New(rand.NewPCG(uint64(g), 9))
					for range 20 {
						off := r.IntN(size)
						p := make([]byte, r.IntN(size-off)+1)
						if _, err := v.ReadAt(p, int64(off)); err != nil || !bytes.Equal(p, model[off:off+len(p)]) {
							errs <- errors.New("concurrent ReadAt differs from the model")
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
			// Past the end: io.EOF with what there is.
			p := make([]byte, 100)
			if n, err := v.ReadAt(p, size-10); n != 10 || err != io.EOF {
				t.Fatalf("ReadAt across the end: %d, %v", n, err)
			}
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := v.ReadAt(p, 0); !errors.Is(err, ErrClosed) {
				t.Fatalf("ReadAt after Close: %v", err)
			}
		})
	}
}

// imageFile writes b to a new file and returns it open for reading and
// writing (closed by the test's cleanup).
func imageFile(t testing.TB, b []byte) *os.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "image")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestVolumeMappedFileShrinks: an image file cut short under a mapped
// Volume makes ReadAt fail with an error, not crash the program.
func TestVolumeMappedFileShrinks(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("image files are read through a mapping on Linux only")
	}
	const size = 4 << 20
	dev, h, key := memImage(t, CreateOptions{KDF: fastKDF["pbkdf2"]}, size)
	f := imageFile(t, dev.b.Bytes())
	v, err := newVolume(h, key, f, dev.Size(), false, true)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	p := make([]byte, 1<<20)
	if _, err := v.ReadAt(p, size-int64(len(p))); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(int64(h.Segments[0].Offset) + size/2); err != nil {
		t.Fatal(err)
	}
	if _, err := v.ReadAt(p, size-int64(len(p))); err == nil || !strings.Contains(err.Error(), "did the file shrink") {
		t.Fatalf("ReadAt past the new end of the file: %v", err)
	}
	if _, err := v.ReadAt(p, 0); err != nil {
		t.Fatalf("ReadAt inside the file after it shrank: %v", err)
	}
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// TestPlainIVWraps: aes-xts-plain's 32-bit IV wraps to 0 at 2^32 within
// one call, as dm-crypt's plain IV does; plain64's does not.
func TestPlainIVWraps(t *testing.T) {
	key := randBytes(t, 64)
	for _, spec := range []string{"aes-xts-plain", "aes-cbc-plain"} {
		k := key
		if spec == "aes-cbc-plain" {
			k = key[:32]
		}
		c, err := newSectorCipher(spec, k)
		if err != nil {
			t.Fatal(err)
		}
		buf := randBytes(t, 4*4096)
		// Sectors of 4096 bytes from IV 2^32-16: IVs 2^32-16, -8, 0, 8.
		whole := bytes.Clone(buf)
		c.encrypt(whole, whole, 4096, 1<<32-16)
		parts := bytes.Clone(buf)
		c.encrypt(parts[:2*4096], parts[:2*4096], 4096, 1<<32-16)
		c.encrypt(parts[2*4096:], parts[2*4096:], 4096, 0)
		if !bytes.Equal(whole, parts) {
			t.Fatalf("%s: one call across 2^32 differs from the wrapped IVs", spec)
		}
	}
}

// TestIVTweak: a segment's iv_tweak shifts every sector's IV (in 512-byte
// units), checked against the independent per-sector decryption, for the
// 64-bit and the wrapping 32-bit IVs.
func TestIVTweak(t *testing.T) {
	for _, tc := range []struct {
		cipher string
		tweak  uint64
	}{{"aes-xts-plain64", 1<<40 + 8}, {"aes-xts-plain", 1<<32 - 16}, {"aes-cbc-essiv:sha256", 12345 * 8}} {
		t.Run(tc.cipher, func(t *testing.T) {
			dir := t.TempDir()
			path := dir + "/img"
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			h, key, err := Create(f, []byte("p"), &CreateOptions{Cipher: tc.cipher, KDF: fastKDF["pbkdf2"]})
			if err != nil {
				t.Fatal(err)
			}
			const size = 64 << 10
			off := int64(h.Segments[0].Offset)
			ct := randBytes(t, size)
			f.WriteAt(ct, off)
			rewriteJSON(t, path, func(m map[string]any) { obj(m, "segments", "0")["iv_tweak"] = strconv.FormatUint(tc.tweak, 10) })
			v, err := Open(f, []byte("p"), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			if v.Header().Segments[0].IVTweak != tc.tweak {
				t.Fatalf("IVTweak %d", v.Header().Segments[0].IVTweak)
			}
			got := make([]byte, size)
			if _, err := v.ReadAt(got, 0); err != nil {
				t.Fatal(err)
			}
			if want := refDecryptFrom(t, tc.cipher, key, ct, 4096, tc.tweak); !bytes.Equal(got, want) {
				t.Fatal("ReadAt differs from per-sector decryption under the shifted IVs")
			}
		})
	}
}

// TestCloseWipesCipher: Close wipes the XTS round keys, not only the
// volume key: the xts.Cipher it held refuses any further use, and the
// volume key slice is zero.
func TestCloseWipesCipher(t *testing.T) {
	dev, h, key := memImage(t, CreateOptions{KDF: fastKDF["pbkdf2"]}, 1<<20)
	v, err := NewVolume(h, key, dev, dev.Size())
	if err != nil {
		t.Fatal(err)
	}
	if impl := v.sc.Implementation(); impl == "crypto/aes" {
		t.Fatalf("aes-xts-plain64 runs on %s", impl)
	}
	c, vk := v.sc, v.key
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(vk, make([]byte, len(vk))) {
		t.Error("the volume key is not zero after Close")
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "wiped") {
			t.Errorf("the volume's cipher after Close: panic %v, want a wiped xts.Cipher's", r)
		}
	}()
	buf := make([]byte, c.SectorSize())
	c.Encrypt(buf, buf, 0)
}

// countingDevice counts the writes that reach a device.
type countingDevice struct {
	*writerAtBuffer
	writes int
}

func (c *countingDevice) WriteAt(p []byte, off int64) (int, error) {
	c.writes++
	return c.writerAtBuffer.WriteAt(p, off)
}

// TestZeroLengthIO: empty reads and writes anywhere in the volume, its end
// included, succeed without touching the device, in memory and on a
// mapped file (where an empty write at the end used to slice past the
// mapping and panic).
func TestZeroLengthIO(t *testing.T) {
	const size = 2 << 20
	for _, onFile := range []bool{false, true} {
		t.Run(map[bool]string{false: "memory", true: "file"}[onFile], func(t *testing.T) {
			dev, h, key := memImage(t, CreateOptions{KDF: fastKDF["pbkdf2"]}, size)
			counted := &countingDevice{writerAtBuffer: dev}
			var data io.ReaderAt = counted
			if onFile {
				data = imageFile(t, dev.b.Bytes())
			}
			v, err := NewVolume(h, key, data, dev.Size())
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			for _, off := range []int64{0, 4095, size / 2, size - 1, size} {
				if n, err := v.WriteAt(nil, off); n != 0 || err != nil {
					t.Errorf("WriteAt(nil, %d) = %d, %v; want 0, nil", off, n, err)
				}
				if off < size {
					if n, err := v.ReadAt(nil, off); n != 0 || err != nil {
						t.Errorf("ReadAt(nil, %d) = %d, %v; want 0, nil", off, n, err)
					}
				}
			}
			if counted.writes != 0 {
				t.Errorf("empty writes reached the device %d times", counted.writes)
			}
		})
	}
}
