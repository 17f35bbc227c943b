package luks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// shiftDisk is a device in memory of a fixed size whose writes may be
// logged; safe for the engine's parallel chunks.
type shiftDisk struct {
	mu     sync.Mutex
	b      []byte
	log    bool
	writes []keyslotWrite
}

func (d *shiftDisk) ReadAt(p []byte, off int64) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if off < 0 || off+int64(len(p)) > int64(len(d.b)) {
		return 0, fmt.Errorf("read [%d, +%d) outside the %d-byte disk", off, len(p), len(d.b))
	}
	return copy(p, d.b[off:]), nil
}

func (d *shiftDisk) WriteAt(p []byte, off int64) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if off < 0 || off+int64(len(p)) > int64(len(d.b)) {
		return 0, fmt.Errorf("write [%d, +%d) outside the %d-byte disk", off, len(p), len(d.b))
	}
	if d.log {
		d.writes = append(d.writes, keyslotWrite{uint64(off), bytes.Clone(p)})
	}
	return copy(d.b[off:], p), nil
}

func (d *shiftDisk) Size() int64 { return int64(len(d.b)) }

// shiftPlain is n bytes of reproducible plaintext.
func shiftPlain(n int, seed uint64) []byte {
	r := mrand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8)})
	b := make([]byte, n)
	r.Read(b)
	return b
}

var shiftPass = []byte("shift pass")

func shiftOptions(reduce uint64, ss int, vk []byte) ReencryptOptions {
	return ReencryptOptions{Mode: "encrypt", ReduceDeviceSize: reduce, SectorSize: ss, VolumeKey: vk, KDF: fastKDF["pbkdf2"]}
}

// volumeContent opens img with the passphrase and returns its first n
// bytes of plaintext.
func volumeContent(t testing.TB, img []byte, n int) []byte {
	t.Helper()
	v, err := Open(bytes.NewReader(img), shiftPass, &Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer v.Close()
	out := make([]byte, n)
	if _, err := v.ReadAt(out, 0); err != nil {
		t.Fatalf("reading the volume: %v", err)
	}
	return out
}

// TestEncryptInPlaceMatchesCryptsetup: an in-place encryption by the
// package and one by cryptsetup reencrypt --encrypt --reduce-device-size
// of the same plaintext with the same volume key give the same data
// offset and the same bytes from there over the data; cryptsetup takes
// the package's passphrase; both read back as the plaintext in the
// package.
func TestEncryptInPlaceMatchesCryptsetup(t *testing.T) {
	needCryptsetup(t)
	cases := []struct {
		name         string
		size, reduce uint64
		sectorSize   int
	}{
		{"8MiB reduce 1MiB", 8 << 20, 1 << 20, 0},
		{"remainder hotzone, 4096-byte sectors", 5<<20 + 64<<10, 1536 << 10, 4096},
		{"data as large as the shift", 3 << 20, 2 << 20, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			plain := shiftPlain(int(c.size), c.size)
			vk := shiftPlain(64, 7)
			kf, vkf := filepath.Join(dir, "pass"), filepath.Join(dir, "vk")
			writeFile(t, kf, shiftPass)
			writeFile(t, vkf, vk)
			theirs, ours := filepath.Join(dir, "cs.img"), filepath.Join(dir, "pkg.img")
			writeFile(t, theirs, plain)
			writeFile(t, ours, plain)
			args := append([]string{"reencrypt", "--encrypt", "--batch-mode", "--force-offline-reencrypt",
				"--reduce-device-size", strconv.FormatUint(c.reduce, 10), "--volume-key-file", vkf, "--key-size", "512", "--key-file", kf}, fastPBKDF2...)
			if c.sectorSize != 0 {
				args = append(args, "--sector-size", strconv.Itoa(c.sectorSize))
			}
			cs(t, append(args, theirs)...)
			f := openFile(t, ours)
			if err := Reencrypt(context.Background(), f, f, shiftPass, shiftOptions(c.reduce, c.sectorSize, vk)); err != nil {
				t.Fatal(err)
			}
			f.Close()
			a, _ := os.ReadFile(theirs)
			b, _ := os.ReadFile(ours)
			ha, hb := readHeaderFile(t, theirs), readHeaderFile(t, ours)
			sa, sb := ha.Segments, hb.Segments
			if len(sa) != 1 || len(sb) != 1 || sa[0].Offset != sb[0].Offset || !sb[0].Dynamic || sa[0].SectorSize != sb[0].SectorSize || sa[0].Encryption != sb[0].Encryption {
				t.Fatalf("segments: cryptsetup %+v, package %+v", sa, sb)
			}
			S, D := c.reduce/2, c.size-c.reduce
			if sb[0].Offset != S || hb.Config.KeyslotsSize != ha.Config.KeyslotsSize || len(hb.Config.Requirements) != 0 {
				t.Fatalf("data offset %d (want %d), keyslots size %d (cryptsetup %d), requirements %q", sb[0].Offset, S, hb.Config.KeyslotsSize, ha.Config.KeyslotsSize, hb.Config.Requirements)
			}
			if !bytes.Equal(a[S:S+D], b[S:S+D]) {
				t.Fatal("the encrypted data differs from cryptsetup's")
			}
			if bytes.Equal(b[S:S+D], plain[:D]) || bytes.Contains(b, plain[:4096]) {
				t.Fatal("plaintext left on the device")
			}
			if !testPassphrase(t, ours, "", shiftPass, 0) {
				t.Fatal("cryptsetup refuses the package's image")
			}
			for _, img := range [][]byte{a, b} {
				if got := volumeContent(t, img, int(D)); !bytes.Equal(got, plain[:D]) {
					t.Fatal("the volume does not read as the plaintext")
				}
			}
		})
	}
}

// shiftSample keeps every state that ends after whole writes and a
// deterministic sample of the torn ones: at most about limit in all.
func shiftSample(states []crashState, limit int) []crashState {
	var whole, torn []crashState
	for _, s := range states {
		if strings.HasPrefix(s.name, "after") {
			whole = append(whole, s)
		} else {
			torn = append(torn, s)
		}
	}
	step := max(1, len(torn)/max(1, limit-len(whole)))
	for i := 0; i < len(torn); i += step {
		whole = append(whole, torn[i])
	}
	return whole
}

// TestEncryptInPlacePowerLoss: a power loss at any point of an in-place
// encryption (after any prefix of its writes, or within a write, some
// 512-byte sectors of it written) loses no data. Either the image has a
// header, and ResumeReencrypt (and, for a few states, cryptsetup
// reencrypt --resume-only) ends with the plaintext in the volume; or it
// has none, which happens only in the known window before the first
// header copy is whole, with the data in place, the first S bytes there
// or whole in their copy at the end.
func TestEncryptInPlacePowerLoss(t *testing.T) {
	const size, reduce = 4 << 20, 1 << 20
	const S, D = reduce / 2, size - reduce
	plain := shiftPlain(size, 1)
	disk := &shiftDisk{b: bytes.Clone(plain), log: true}
	if err := Reencrypt(context.Background(), disk, disk, shiftPass, shiftOptions(reduce, 0, nil)); err != nil {
		t.Fatal(err)
	}
	if got := volumeContent(t, disk.b, D); !bytes.Equal(got, plain[:D]) {
		t.Fatal("the volume does not read as the plaintext")
	}
	writes := disk.writes
	// The first header copy to land whole is the secondary, the third write.
	if len(writes) < 4 || writes[0].off != size-S || writes[2].off != luks2MetadataSize || len(writes[2].data) != luks2MetadataSize {
		t.Fatalf("the writes do not start with the copy, the keyslots area, the secondary copy: %d writes", len(writes))
	}
	states := crashStates(writes)
	limit := 160
	if testing.Short() {
		limit = 50
	}
	sample := shiftSample(states, limit)
	t.Logf("%d writes, %d crash states, %d checked", len(writes), len(states), len(sample))
	_, csErr := exec.LookPath("cryptsetup")
	csEvery, withHeader := len(sample)/5, 0
	for _, st := range sample {
		img := bytes.Clone(plain)
		st.apply(img)
		if _, err := ReadHeader(bytes.NewReader(img)); err != nil {
			if len(st.landed) > 3 {
				t.Fatalf("%s: no header after the first header copy landed: %v", st.name, err)
			}
			firstWhole := bytes.Equal(img[:S], plain[:S]) || bytes.Equal(img[size-S:], plain[:S])
			if !firstWhole || !bytes.Equal(img[S:D], plain[S:D]) {
				t.Fatalf("%s: no header, and the data is not whole in place (its first %d bytes there or in the copy)", st.name, S)
			}
			continue
		}
		withHeader++
		if csErr == nil && csEvery > 0 && withHeader%csEvery == 1 {
			shiftCryptsetupResume(t, st.name, img, plain[:D])
		}
		d := &shiftDisk{b: img}
		if h, _ := ReadHeader(d); len(h.Config.Requirements) > 0 {
			if err := ResumeReencrypt(context.Background(), d, d, shiftPass, ReencryptOptions{}); err != nil {
				t.Fatalf("%s: ResumeReencrypt: %v", st.name, err)
			}
		}
		if got := volumeContent(t, d.b, D); !bytes.Equal(got, plain[:D]) {
			t.Fatalf("%s: the volume does not read as the plaintext after the resume", st.name)
		}
	}
	if csErr != nil {
		t.Log("cryptsetup not installed: the crash states were resumed by the package only")
	}
}

// shiftCryptsetupResume resumes img with cryptsetup and checks the
// volume reads as plain.
func shiftCryptsetupResume(t *testing.T, name string, img, plain []byte) {
	t.Helper()
	dir := t.TempDir()
	p, kf := filepath.Join(dir, "img"), filepath.Join(dir, "pass")
	writeFile(t, p, img)
	writeFile(t, kf, shiftPass)
	h := readHeaderFile(t, p)
	if len(h.Config.Requirements) > 0 && h.Segments[0].Dynamic {
		// All hotzones done, the backups still listed: cryptsetup 2.6.1
		// resumes this state of its own runs neither ("Failed to set
		// device segments for next reencryption hotzone").
		t.Logf("%s: the last state before the final header, which cryptsetup does not resume", name)
		return
	}
	if len(h.Config.Requirements) > 0 {
		// cryptsetup resumes a state with a hotzone recorded (its own
		// too) only after repair has recovered the hotzone.
		resume := []string{"reencrypt", "--resume-only", "--force-offline-reencrypt", "--batch-mode", "--key-file", kf, p}
		if out, err := csRun(resume...); err != nil {
			if !strings.Contains(out, "Run repair first") {
				t.Fatalf("%s: cryptsetup %q: %v\n%s", name, resume, err, out)
			}
			cs(t, "repair", "--batch-mode", "--key-file", kf, p)
			if h := readHeaderFile(t, p); len(h.Config.Requirements) > 0 {
				cs(t, resume...)
			} else {
				t.Logf("%s: cryptsetup repair finished the encryption", name)
			}
		}
	}
	b, _ := os.ReadFile(p)
	if got := volumeContent(t, b, len(plain)); !bytes.Equal(got, plain) {
		t.Fatalf("%s: the volume does not read as the plaintext after cryptsetup's resume", name)
	}
}

// TestEncryptInPlaceResumesCryptsetup: cryptsetup reencrypt --encrypt
// --reduce-device-size killed (SIGKILL by strace's fault injection)
// before each of a series of its writes to the image leaves either the
// plaintext with no header (killed before the header) or a state that
// ResumeReencrypt finishes, the volume then holding the plaintext.
func TestEncryptInPlaceResumesCryptsetup(t *testing.T) {
	needCryptsetup(t)
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace is not installed: ", err)
	}
	const size, reduce = 4 << 20, 1 << 20
	const S, D = reduce / 2, size - reduce
	dir := t.TempDir()
	plain := shiftPlain(size, 2)
	kf, img := filepath.Join(dir, "pass"), filepath.Join(dir, "img")
	writeFile(t, kf, shiftPass)
	kills := []int{1, 2, 3, 4, 6, 8, 9, 11, 16, 23, 40, 47, 49, 50, 51, 52}
	if testing.Short() {
		kills = []int{2, 3, 9, 40, 51}
		t.Log("-short: 5 of the kill points")
	}
	sawResume := 0
	for _, n := range kills {
		writeFile(t, img, plain)
		args := append([]string{"-f", "-o", "/dev/null", "-P", img, "-e", "trace=write,pwrite64",
			"-e", fmt.Sprintf("inject=write,pwrite64:signal=SIGKILL:when=%d", n),
			"cryptsetup", "reencrypt", "--encrypt", "--batch-mode", "--force-offline-reencrypt",
			"--reduce-device-size", strconv.Itoa(reduce), "--key-file", kf}, fastPBKDF2...)
		out, err := exec.Command("strace", append(args, img)...).CombinedOutput()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("strace: %v\n%s", err, out)
		}
		b, _ := os.ReadFile(img)
		h, herr := ReadHeader(bytes.NewReader(b))
		if herr != nil {
			if !bytes.Equal(b[:size-S], plain[:size-S]) {
				t.Fatalf("killed at write %d: no header and the plaintext changed", n)
			}
			continue
		}
		f := openFile(t, img)
		if len(h.Config.Requirements) > 0 {
			sawResume++
			if err := ResumeReencrypt(context.Background(), f, f, shiftPass, ReencryptOptions{}); err != nil {
				t.Fatalf("killed at write %d: ResumeReencrypt: %v", n, err)
			}
		}
		f.Close()
		b, _ = os.ReadFile(img)
		if got := volumeContent(t, b, D); !bytes.Equal(got, plain[:D]) {
			t.Fatalf("killed at write %d: the volume does not read as the plaintext", n)
		}
	}
	if sawResume == 0 {
		t.Fatal("no kill point left a reencryption to resume")
	}
}

// TestEncryptInPlaceGarbage: datashift metadata that is not a state of
// an in-place encryption, or fails the verification digest, or a device
// of another size, is refused with ErrReencryptMetadata and nothing is
// written.
func TestEncryptInPlaceGarbage(t *testing.T) {
	const size, reduce = 2 << 20, 1 << 20
	plain := shiftPlain(size, 3)
	disk := &shiftDisk{b: bytes.Clone(plain)}
	if _, err := InitReencrypt(disk, disk, shiftPass, shiftOptions(reduce, 0, nil)); err != nil {
		t.Fatal(err)
	}
	base := disk.b
	seg := func(m map[string]any, id string) map[string]any { return obj(m, "segments", id) }
	cases := []struct {
		name string
		edit func(m map[string]any)
		grow int
	}{
		{"shift size", func(m map[string]any) { obj(m, "keyslots", "1", "area")["shift_size"] = "1048576" }, 0},
		{"moved segment offset", func(m map[string]any) {
			seg(m, "0")["offset"] = "1048576"
			seg(m, "2")["offset"] = "1048576"
		}, 0},
		{"plain segment size", func(m map[string]any) { seg(m, "1")["size"] = "4096" }, 0},
		{"hotzone flag on a linear segment", func(m map[string]any) { seg(m, "1")["flags"] = []any{"in-reencryption"} }, 0},
		{"final iv_tweak", func(m map[string]any) { seg(m, "4")["iv_tweak"] = "8" }, 0},
		{"mode", func(m map[string]any) { obj(m, "keyslots", "1")["mode"] = "decrypt" }, 0},
		{"direction", func(m map[string]any) { obj(m, "keyslots", "1")["direction"] = "forward" }, 0},
		{"verification digest", func(m map[string]any) {
			obj(m, "digests", "1")["salt"] = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
		}, 0},
		{"no moved segment", func(m map[string]any) {
			delete(obj(m, "segments"), "2")
			s := obj(m, "segments")
			s["2"], s["3"] = s["3"], s["4"]
			delete(s, "4")
			obj(m, "digests", "0")["segments"] = []any{"3"}
		}, 0},
		{"device grown", nil, 1 << 20},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			img := bytes.Clone(base)
			if c.edit != nil {
				jsonEdit(c.edit)(t, img)
			}
			img = append(img, make([]byte, c.grow)...)
			if _, err := ReadHeader(bytes.NewReader(img)); err != nil {
				t.Fatalf("the edit makes the header unreadable: %v", err)
			}
			before := bytes.Clone(img)
			d := &shiftDisk{b: img}
			err := ResumeReencrypt(context.Background(), d, d, shiftPass, ReencryptOptions{})
			if !errors.Is(err, ErrReencryptMetadata) {
				t.Fatalf("ResumeReencrypt: %v, want ErrReencryptMetadata", err)
			}
			if !bytes.Equal(d.b, before) {
				t.Fatal("the refused resume wrote to the device")
			}
		})
	}
}

// TestEncryptInPlaceRefusals: options an in-place encryption cannot
// take are refused before anything is written.
func TestEncryptInPlaceRefusals(t *testing.T) {
	cases := []struct {
		name   string
		size   int
		o      ReencryptOptions
		detach bool
		want   string
	}{
		{"reduce not sectors", 4 << 20, shiftOptions(1<<20+100, 0, nil), false, "multiple of 512"},
		{"shift not 4096", 4 << 20, shiftOptions(1<<20+1024, 0, nil), false, "multiple of 4096"},
		{"too small", 2 << 20, shiftOptions(2<<20, 0, nil), false, "too small"},
		{"no room for the keyslots", 4 << 20, shiftOptions(512<<10, 0, nil), false, "no room"},
		{"mode", 4 << 20, ReencryptOptions{Mode: "decrypt", ReduceDeviceSize: 1 << 20}, false, "Mode"},
		{"detached", 4 << 20, shiftOptions(1<<20, 0, nil), true, "detached"},
		{"already LUKS", 0, shiftOptions(1<<20, 0, nil), false, "already holds a LUKS header"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var d *shiftDisk
			if c.size == 0 {
				var b bytes.Buffer
				if _, _, err := Create(&writerAtBuffer{&b}, shiftPass, &CreateOptions{KDF: fastKDF["pbkdf2"]}); err != nil {
					t.Fatal(err)
				}
				d = &shiftDisk{b: append(b.Bytes(), make([]byte, 4<<20)...)}
			} else {
				d = &shiftDisk{b: shiftPlain(c.size, 4)}
			}
			before := bytes.Clone(d.b)
			var hdr ReadWriterAt = d
			if c.detach {
				hdr = &shiftDisk{b: make([]byte, 16<<20)}
			}
			_, err := InitReencrypt(d, hdr, shiftPass, c.o)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("InitReencrypt: %v, want an error saying %q", err, c.want)
			}
			if !bytes.Equal(d.b, before) {
				t.Fatal("the refused encryption wrote to the device")
			}
		})
	}
}

// TestEncryptInPlaceCancel: a cancelled context stops the encryption
// after a hotzone with the progress recorded; resuming finishes it.
func TestEncryptInPlaceCancel(t *testing.T) {
	const size, reduce = 4 << 20, 1 << 20
	plain := shiftPlain(size, 5)
	d := &shiftDisk{b: bytes.Clone(plain)}
	ctx, cancel := context.WithCancel(context.Background())
	o := shiftOptions(reduce, 0, nil)
	var calls []uint64
	o.Progress = func(done, total uint64) {
		calls = append(calls, done)
		if len(calls) == 2 {
			cancel()
		}
	}
	err := Reencrypt(ctx, d, d, shiftPass, o)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Reencrypt: %v, want context.Canceled", err)
	}
	h, err := ReadHeader(d)
	if err != nil {
		t.Fatal(err)
	}
	r, ok := h.Reencryption()
	if !ok || r.Resilience != "datashift" || r.Mode != "encrypt" {
		t.Fatalf("after the stop: %+v, %v", r, ok)
	}
	if !slices.Equal(calls, []uint64{1 << 19, 1 << 20}) {
		t.Fatalf("progress %v", calls)
	}
	if err := ResumeReencrypt(context.Background(), d, d, shiftPass, ReencryptOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := volumeContent(t, d.b, size-reduce); !bytes.Equal(got, plain[:size-reduce]) {
		t.Fatal("the volume does not read as the plaintext")
	}
}

// BenchmarkEncryptInPlace: in-place encryption of a 64 MiB image file
// (reduce 8 MiB: 4 MiB hotzones).
func BenchmarkEncryptInPlace(b *testing.B) {
	const size, reduce = 64 << 20, 8 << 20
	plain := shiftPlain(size, 6)
	p := filepath.Join(b.TempDir(), "img")
	b.SetBytes(size - reduce)
	for b.Loop() {
		b.StopTimer()
		writeFile(b, p, plain)
		f := openFile(b, p)
		b.StartTimer()
		if err := Reencrypt(context.Background(), f, f, shiftPass, shiftOptions(reduce, 0, nil)); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}
