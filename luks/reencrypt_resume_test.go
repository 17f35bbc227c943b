package luks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// loggedDev is a fixed-size device in memory that records its writes in
// log (shared by the devices of one image: each write's offset carries
// the device's tag above bit 40).
// The engine writes chunks in parallel (as io.WriterAt allows): the log
// is appended under loggedMu.
type loggedDev struct {
	b   []byte
	tag uint64
	log *[]keyslotWrite
}

const devTagShift = 40

var loggedMu sync.Mutex

func (m *loggedDev) Size() int64 { return int64(len(m.b)) }

func (m *loggedDev) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off+int64(len(p)) > int64(len(m.b)) {
		return 0, fmt.Errorf("loggedDev: read [%d, +%d) past %d", off, len(p), len(m.b))
	}
	return copy(p, m.b[off:]), nil
}

func (m *loggedDev) WriteAt(p []byte, off int64) (int, error) {
	if off < 0 || off+int64(len(p)) > int64(len(m.b)) {
		return 0, fmt.Errorf("loggedDev: write [%d, +%d) past %d", off, len(p), len(m.b))
	}
	loggedMu.Lock()
	defer loggedMu.Unlock()
	*m.log = append(*m.log, keyslotWrite{m.tag<<devTagShift | uint64(off), bytes.Clone(p)})
	return copy(m.b[off:], p), nil
}

func readFile(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// csReencrypt runs cryptsetup reencrypt (offline) on the image.
func (im *reencImage) csReencrypt(t testing.TB, args ...string) {
	t.Helper()
	a := append([]string{"reencrypt", "--force-offline-reencrypt", "--batch-mode", "--key-file", im.keyFile}, fastPBKDF2...)
	a = append(append(a, args...), im.hdrArgs()...)
	cs(t, append(a, im.img)...)
}

// csResume has cryptsetup finish a reencryption: repair (the recovery
// of a recorded hotzone; cryptsetup refuses --resume-only without it),
// then reencrypt --resume-only.
func (im *reencImage) csResume(t testing.TB) {
	t.Helper()
	a := append([]string{"repair", "--batch-mode", "--key-file", im.keyFile}, im.hdrArgs()...)
	cs(t, append(a, im.img)...)
	h := readHeaderFile(t, im.hdrDev())
	if _, ok := h.Reencryption(); !ok {
		return // the repair finished the last hotzone and the reencryption
	}
	if st, err := parseReencrypt(h); err == nil {
		if p, err := st.progress(uint64(len(readFile(t, im.img)))); err == nil && !p.Hot && p.Done(st.direction == "forward") == p.Length {
			// cryptsetup 2.6.1 --resume-only of a reencryption whose data
			// is all done (one final segment, before the final header)
			// processes the whole device again and destroys it: its own
			// state, killed there, too (checked by hand, rotation and
			// decrypt). The package finishes this one.
			t.Log("cryptsetup would redo an all-done reencryption: resumed by the package")
			f, err := os.OpenFile(im.hdrDev(), os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			d, err := os.OpenFile(im.img, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if err := ResumeReencrypt(context.Background(), d, f, im.pass, ReencryptOptions{}); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	im.csReencrypt(t, "--resume-only")
}

func csModeArgs(c reencCase) []string {
	a := []string{"--resilience", c.resilience, "--hotzone-size", "256k"}
	switch c.mode {
	case "encrypt":
		a = append(a, "--encrypt")
	case "decrypt":
		a = append(a, "--decrypt")
	}
	return a
}

// TestReencryptResumeInterop: cryptsetup --init-only images finished by
// ResumeReencrypt, and InitReencrypt images finished by cryptsetup
// reencrypt --resume-only.
func TestReencryptResumeInterop(t *testing.T) {
	for _, c := range reencCases() {
		if strings.Contains(c.name, "512to4096") {
			continue // the same path as the plain rotation here
		}
		t.Run("cryptsetup-init/"+c.name, func(t *testing.T) {
			im := c.image(t, 2<<20)
			im.csReencrypt(t, append(csModeArgs(c), "--init-only")...)
			data, hdr := im.open(t)
			h := readHeaderFile(t, im.hdrDev())
			if r, ok := h.Reencryption(); !ok || r.Mode != c.mode || r.Resilience != c.resilience {
				t.Fatalf("Reencryption() = %+v, %v", r, ok)
			}
			if err := ResumeReencrypt(context.Background(), data, hdr, im.pass, c.options()); err != nil {
				t.Fatal(err)
			}
			im.checkContent(t)
		})
		t.Run("package-init/"+c.name, func(t *testing.T) {
			im := c.image(t, 2<<20)
			data, hdr := im.open(t)
			if _, err := InitReencrypt(data, hdr, im.pass, c.options()); err != nil {
				t.Fatal(err)
			}
			data.Close()
			hdr.Close()
			im.csResume(t)
			im.checkContent(t)
		})
	}
}

// csStraced runs cryptsetup reencrypt (the case's mode and resilience)
// under strace, the signal sig delivered at the entry of its n-th write
// (write or pwrite64, any descriptor; n 0: none), and returns how many
// writes it made.
func (im *reencImage) csStraced(t testing.TB, c reencCase, sig string, n int) int {
	t.Helper()
	trace := filepath.Join(im.dir, "trace")
	a := []string{"-f", "-o", trace, "-e", "trace=write,pwrite64"}
	if n > 0 {
		a = append(a, "-e", "inject=write,pwrite64:signal="+sig+":when="+strconv.Itoa(n))
	}
	a = append(append(a, "cryptsetup", "reencrypt", "--force-offline-reencrypt", "--batch-mode", "--key-file", im.keyFile), fastPBKDF2...)
	a = append(append(append(a, csModeArgs(c)...), im.hdrArgs()...), im.img)
	out, err := exec.Command("strace", a...).CombinedOutput()
	if n == 0 && err != nil {
		t.Fatalf("strace cryptsetup: %v\n%s", err, out)
	}
	tr, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	writes := 0
	for _, l := range strings.Split(string(tr), "\n") {
		if (strings.Contains(l, " write(") || strings.Contains(l, " pwrite64(")) && !strings.Contains(l, "resumed>") {
			writes++
		}
	}
	return writes
}

// killPoints returns k write numbers spread over [1, total], at varied
// places of the per-hotzone write cycle (the spacing is not a multiple
// of it).
func killPoints(total, k int) []int {
	stride := max(1, total/(k+1))
	if stride%2 == 0 {
		stride++ // cycles of whole header commits (3 writes) and pairs
	}
	var out []int
	for i := 1; i <= k; i++ {
		n := (i*stride + 3*i) % total
		if n == 0 {
			n = total
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestReencryptCryptsetupKilled: cryptsetup reencrypt of every mode
// (rotation, detached encrypt and decrypt) and resilience, SIGKILLed at
// the entry of chosen writes (strace fault injection; none resilience,
// which survives no crash, is interrupted with SIGTERM and SIGINT, which
// cryptsetup handles), then resumed by the package without a cryptsetup
// repair: every state ends with the plaintext. REENC_ALL_KILLS=1 tries
// every write.
func TestReencryptCryptsetupKilled(t *testing.T) {
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace is not installed: ", err)
	}
	k := 4
	if testing.Short() {
		t.Log("-short: one kill point per case")
		k = 1
	}
	for _, c := range reencCases() {
		if strings.Contains(c.name, "512to4096") {
			continue // the rotation's states again
		}
		sigs := []string{"SIGKILL"}
		if c.resilience == "none" {
			sigs = []string{"SIGTERM", "SIGINT"}
		}
		t.Run(c.name, func(t *testing.T) {
			im := c.image(t, 2<<20)
			origImg := readFile(t, im.img)
			var origHdr []byte
			if c.mode != "encrypt" && im.hdr != "" {
				origHdr = readFile(t, im.hdr)
			}
			restore := func() {
				writeFile(t, im.img, origImg)
				if origHdr != nil {
					writeFile(t, im.hdr, origHdr)
				} else if im.hdr != "" {
					os.Remove(im.hdr)
				}
			}
			total := im.csStraced(t, c, "", 0)
			points := killPoints(total, k)
			if os.Getenv("REENC_ALL_KILLS") != "" {
				points = nil
				for n := 1; n <= total; n++ {
					points = append(points, n)
				}
			}
			t.Logf("%d writes; killed at %v", total, points)
			for i, n := range points {
				sig := sigs[i%len(sigs)]
				t.Run(fmt.Sprintf("%s-write%d", sig, n), func(t *testing.T) {
					restore()
					im.csStraced(t, c, sig, n)
					checkKilledState(t, im, c, false, nil)
				})
			}
		})
	}
}

// checkKilledState resumes what an interrupted reencryption left (by
// the package, with no repair; useCS: by cryptsetup, repair then
// --resume-only) and checks the plaintext: with cryptsetup's key dump
// and passphrase test, or (keys not nil: the old and new volume keys)
// by the header parsed and the data decrypted with the key the
// passphrase opens, one of keys, by the root xts package.
func checkKilledState(t *testing.T, im *reencImage, c reencCase, useCS bool, keys [][]byte) {
	t.Helper()
	h, err := func() (*Header, error) {
		f, err := os.Open(im.hdrDev())
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return ReadHeader(f)
	}()
	if err != nil || (c.mode == "encrypt" && len(h.Keyslots) == 0) {
		// Encrypt: killed while it made the header; the data is not
		// yet touched.
		if c.mode != "encrypt" {
			t.Fatal(err)
		}
		if !bytes.Equal(readFile(t, im.img), im.plain) {
			t.Fatal("killed before its header was made, the data changed")
		}
		return
	}
	r, ok := h.Reencryption()
	if !ok && c.mode == "encrypt" && bytes.Equal(readFile(t, im.img), im.plain) {
		// Killed after it wrote the new header (a keyslot, a crypt
		// segment) and before it recorded the reencryption in it: the
		// data is still all plaintext.
		return
	}
	if ok && useCS {
		im.csResume(t)
	} else if ok {
		data, hdr := im.open(t)
		if err := ResumeReencrypt(context.Background(), data, hdr, im.pass, c.options()); err != nil {
			t.Fatalf("resume of %+v: %v\n%s", r, err, h.JSON)
		}
	}
	if keys == nil || useCS {
		im.checkContent(t)
		return
	}
	h = readHeaderFile(t, im.hdrDev())
	if r, ok := h.Reencryption(); ok {
		t.Fatalf("the reencryption is still recorded: %+v", r)
	}
	seg := h.Segments[0]
	data := readFile(t, im.img)[seg.Offset:][:len(im.plain)]
	if seg.Type == "linear" {
		if !bytes.Equal(data, im.plain) {
			t.Fatal("the decrypted image does not hold the plaintext")
		}
		return
	}
	_, hdr := im.open(t)
	key, _, err := h.Unlock(hdr, im.pass, AnyKeyslot)
	if err != nil || !slices.ContainsFunc(keys, func(k []byte) bool { return bytes.Equal(k, key) }) {
		t.Fatalf("the passphrase opens %x, %v; want the old or new volume key", key, err)
	}
	if !bytes.Equal(xtsCrypt(t, key, data, seg.SectorSize, true), im.plain) {
		t.Fatal("the image does not decrypt to the plaintext")
	}
}

// TestReencryptPowerLoss: the package's writes recorded; the image at
// crash states (prefixes of the writes, torn sectors; sampled
// deterministically; REENC_ALL_STATES=1: all of them) resumed by the
// package, some by cryptsetup (after its repair); every one ends with
// the plaintext intact. Every mode with checksum and journal
// resilience (none survives no crash; datashift has its own test).
func TestReencryptPowerLoss(t *testing.T) {
	var cases []reencCase
	for _, c := range reencCases() {
		if c.resilience != "none" && !strings.Contains(c.name, "512to4096") {
			cases = append(cases, c)
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			im := c.image(t, 1<<20)
			orig := readFile(t, im.img)
			var log []keyslotWrite
			data := &loggedDev{b: bytes.Clone(orig), log: &log}
			hdr, origHdr := data, orig
			if c.mode == "encrypt" {
				origHdr = make([]byte, luks2HeaderArea) // Create makes the header there
			} else if c.detached {
				origHdr = readFile(t, im.hdr)
			}
			if c.detached {
				hdr = &loggedDev{b: bytes.Clone(origHdr), tag: 1, log: &log}
			}
			var oldKey []byte
			if c.mode != "encrypt" {
				oldKey = im.key(t)
			}
			o := c.options()
			if c.mode != "decrypt" {
				o.VolumeKey = randBytes(t, 64)
			}
			if err := Reencrypt(context.Background(), data, hdr, im.pass, o); err != nil {
				t.Fatal(err)
			}
			states := crashStates(log)
			step := max(1, len(states)/30)
			if testing.Short() {
				t.Log("-short: fewer crash states")
				step = max(1, len(states)/9)
			}
			all := os.Getenv("REENC_ALL_STATES") != ""
			if all {
				step = 1 // and no cryptsetup resume: minutes
			}
			t.Logf("%d writes, %d crash states, every %d-th tried", len(log), len(states), step)

			for i := 0; i < len(states); i += step {
				s := states[i]
				img, himg := bytes.Clone(orig), bytes.Clone(origHdr)
				for _, w := range s.landed {
					dst := img
					if w.off>>devTagShift == 1 {
						dst = himg
					}
					copy(dst[w.off&(1<<devTagShift-1):], w.data)
				}
				writeFile(t, im.img, img)
				if c.detached {
					writeFile(t, im.hdr, himg)
				}
				// Every twelfth state resumed by cryptsetup (its
				// reencrypt takes a second: it benchmarks PBKDF2 for
				// its digest), every third checked with cryptsetup's
				// key dump.
				useCS, keys := (i/step)%12 == 5 && !all, [][]byte{oldKey, o.VolumeKey}
				if (i/step)%3 == 0 && !all {
					keys = nil
				}
				t.Run(s.name, func(t *testing.T) { checkKilledState(t, im, c, useCS, keys) })
			}
		})
	}
}

// TestReencryptCancel: a cancelled context stops after the hotzone in
// flight with the progress recorded; resuming finishes.
func TestReencryptCancel(t *testing.T) {
	c := reencCase{name: "rotate-checksum", mode: "reencrypt", resilience: "checksum"}
	im := c.image(t, 2<<20)
	data, hdr := im.open(t)
	ctx, cancel := context.WithCancel(context.Background())
	o := c.options()
	o.Progress = func(done, total uint64) {
		if done >= 512<<10 {
			cancel()
		}
	}
	err := Reencrypt(ctx, data, hdr, im.pass, o)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Reencrypt with a cancelled context: %v", err)
	}
	h := readHeaderFile(t, im.img)
	r, ok := h.Reencryption()
	if !ok || r.Done < 512<<10 || r.Done >= 2<<20 {
		t.Fatalf("after the cancel: %+v, %v", r, ok)
	}
	if _, err := Open(data, im.pass, nil); err == nil || !strings.Contains(err.Error(), "resume") {
		t.Fatalf("Open of an image in reencryption: %v", err)
	}
	if err := ResumeReencrypt(context.Background(), data, hdr, im.pass, c.options()); err != nil {
		t.Fatal(err)
	}
	im.checkContent(t)
}

// TestReencryptMetadataRefused: garbage, truncated or inconsistent
// reencryption metadata is refused (ErrReencryptMetadata or ErrCorrupt)
// and nothing is written.
func TestReencryptMetadataRefused(t *testing.T) {
	c := reencCase{name: "rotate-checksum", mode: "reencrypt", resilience: "checksum"}
	im := c.image(t, 1<<20)
	im.csReencrypt(t, "--init-only")
	orig := readFile(t, im.img)
	h := readHeaderFile(t, im.img)
	rk := -1
	for _, k := range h.Keyslots {
		if k.Type == "reencrypt" {
			rk = k.ID
		}
	}
	edit := func(f func(h *Header)) func(h *Header) { return f }
	for _, tc := range []struct {
		name string
		f    func(h *Header)
	}{
		{"wrong-digest", edit(func(h *Header) {
			for i := range h.Digests {
				if len(h.Digests[i].Keyslots) == 1 && h.Digests[i].Keyslots[0] == rk {
					h.Digests[i].Value[0] ^= 1
				}
			}
		})},
		{"no-verification-digest", edit(func(h *Header) {
			for i := range h.Digests {
				if h.Digests[i].Keyslots[0] == rk {
					h.Digests = append(h.Digests[:i], h.Digests[i+1:]...)
					break
				}
			}
			for i := range h.Keyslots {
				if h.Keyslots[i].ID == rk {
					h.Keyslots = append(h.Keyslots[:i], h.Keyslots[i+1:]...)
					break
				}
			}
		})},
		{"unknown-resilience", edit(func(h *Header) { k, _ := h.Keyslot(rk); k.Area.Type = "mirror" })},
		{"unknown-mode", edit(func(h *Header) { k, _ := h.Keyslot(rk); k.Mode = "shuffle" })},
		{"unknown-direction", edit(func(h *Header) { k, _ := h.Keyslot(rk); k.Direction = "sideways" })},
		{"checksum-hash", edit(func(h *Header) { k, _ := h.Keyslot(rk); k.Area.Hash = "md4" })},
		{"checksum-block", edit(func(h *Header) { k, _ := h.Keyslot(rk); k.Area.SectorSize = 1000 })},
		{"area-changed", edit(func(h *Header) { k, _ := h.Keyslot(rk); k.Area.Size -= 4096 })},
		{"missing-backup-final", edit(func(h *Header) {
			h.Segments = h.Segments[:2]
			for i := range h.Digests {
				h.Digests[i].Segments = removeInt(h.Digests[i].Segments, 2)
			}
		})},
		{"backup-cipher-changed", edit(func(h *Header) { h.Segments[2].Encryption = "aes-cbc-plain64" })},
		{"hotzone-out-of-range", edit(func(h *Header) {
			s := h.Segments[0]
			s.Dynamic, s.Size = false, 64<<20
			s.Flags = []string{flagInReencryption}
			h.Segments[0] = s
			for i := range h.Digests {
				if len(h.Digests[i].Segments) > 0 && !containsInt(h.Digests[i].Segments, 0) {
					h.Digests[i].Segments = append(h.Digests[i].Segments, 0)
				}
			}
		})},
		{"segment-iv-tweak", edit(func(h *Header) { h.Segments[0].IVTweak = 8 })},
		{"direction-order", edit(func(h *Header) {
			k, _ := h.Keyslot(rk)
			k.Direction = "backward"
			h.Segments[0].Flags = []string{"in-reencryption"}
		})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeFile(t, im.img, orig)
			nh := readHeaderFile(t, im.img).clone()
			for i := range nh.Keyslots {
				k := nh.Keyslots[i]
				nh.Keyslots[i] = k
			}
			for i := range nh.Digests {
				nh.Digests[i].Value = bytes.Clone(nh.Digests[i].Value)
			}
			tc.f(nh)
			d, hd := im.open(t)
			old := readHeaderFile(t, im.img)
			if _, err := commit(hd, old, nh, nil); err != nil {
				// The header itself is refused: as good, when ReadHeader
				// would refuse it too.
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("commit: %v", err)
				}
				return
			}
			before := readFile(t, im.img)
			err := ResumeReencrypt(context.Background(), d, hd, im.pass, c.options())
			if !errors.Is(err, ErrReencryptMetadata) && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("ResumeReencrypt: %v, want ErrReencryptMetadata", err)
			}
			if !bytes.Equal(before, readFile(t, im.img)) {
				t.Fatal("the refused resume wrote to the image")
			}
		})
	}
}

func removeInt(l []int, v int) []int {
	var out []int
	for _, x := range l {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}

func containsInt(l []int, v int) bool {
	for _, x := range l {
		if x == v {
			return true
		}
	}
	return false
}

// TestReencryptLUKS1Refused: LUKS1 is refused with a hint to convert.
func TestReencryptLUKS1Refused(t *testing.T) {
	needCryptsetup(t)
	dir := t.TempDir()
	img, kf := dir+"/img", dir+"/pass"
	writeFile(t, kf, []byte("pass"))
	writeFile(t, img, make([]byte, 3<<20))
	cs(t, append([]string{"luksFormat", "--batch-mode", "--type", "luks1", "--key-file", kf}, append(fastPBKDF2, img)...)...)
	f, err := os.OpenFile(img, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = InitReencrypt(f, f, []byte("pass"), ReencryptOptions{Keyslot: AnyKeyslot})
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "convert") {
		t.Fatalf("LUKS1: %v", err)
	}
}

// BenchmarkReencrypt: volume-key rotation of a 256 MiB image file
// (in /dev/shm where there is one, so that the disk does not set the
// pace), checksum resilience, the default hotzone.
func BenchmarkReencrypt(b *testing.B) {
	const size = 256 << 20
	dir := b.TempDir()
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		dir = "/dev/shm"
	}
	f, err := os.CreateTemp(dir, "xts-reencrypt-bench-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close(); os.Remove(f.Name()) })
	if err := f.Truncate(size + 16<<20); err != nil {
		b.Fatal(err)
	}
	if _, _, err := Create(f, []byte("bench"), &CreateOptions{KDF: reencKDF}); err != nil {
		b.Fatal(err)
	}
	hdr := make([]byte, 16<<20)
	if _, err := f.ReadAt(hdr, 0); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	for b.Loop() {
		if _, err := f.WriteAt(hdr, 0); err != nil {
			b.Fatal(err)
		}
		o := ReencryptOptions{Keyslot: AnyKeyslot, KDF: reencKDF}
		if err := Reencrypt(context.Background(), f, f, []byte("bench"), o); err != nil {
			b.Fatal(err)
		}
	}
}
