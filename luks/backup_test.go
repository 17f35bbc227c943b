package luks

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// csFormat has cryptsetup luksFormat a new image of size bytes (the
// header detached to its own file when detached) with passphrase "zero",
// cheap pbkdf2, and the extra args.
func csFormat(t *testing.T, version int, detached bool, size int64, args ...string) *csImage {
	t.Helper()
	needCryptsetup(t)
	dir := t.TempDir()
	im := &csImage{img: filepath.Join(dir, "img"), keyFile: filepath.Join(dir, "pass"), pass: []byte("zero")}
	writeFile(t, im.keyFile, im.pass)
	writeFile(t, im.img, nil)
	if err := os.Truncate(im.img, size); err != nil {
		t.Fatal(err)
	}
	cmd := append([]string{"luksFormat", "--batch-mode", "--type", fmt.Sprintf("luks%d", version), "--key-file", im.keyFile}, fastPBKDF2...)
	im.headerDev = im.img
	if detached {
		im.hdr = filepath.Join(dir, "hdr")
		im.headerDev = im.hdr
		cmd = append(cmd, "--header", im.hdr)
	}
	cs(t, append(append(cmd, args...), im.img)...)
	return im
}

// csAddKey has cryptsetup add passphrase pass in keyslot slot.
func csAddKey(t *testing.T, im *csImage, slot int, pass string) {
	t.Helper()
	nk := filepath.Join(t.TempDir(), "new")
	writeFile(t, nk, []byte(pass))
	args := append([]string{"luksAddKey", "--batch-mode", "--key-file", im.keyFile, "--key-slot", fmt.Sprint(slot)}, fastPBKDF2...)
	cs(t, append(append(args, im.hdrArgs()...), im.img, nk)...)
}

// openHeaderFile opens path for reading and writing and reads its header.
func openHeaderFile(t *testing.T, path string) (*Header, *os.File) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	h, err := ReadHeader(f)
	if err != nil {
		t.Fatal(err)
	}
	return h, f
}

// TestBackupMatchesCryptsetup: Backup writes the bytes cryptsetup
// luksHeaderBackup writes (and BackupSize is their length), for LUKS1 and
// LUKS2 images made by cryptsetup and by the package, detached headers,
// other metadata and keyslots sizes, a damaged LUKS2 primary copy and a
// LUKS1 image with stale bytes where cryptsetup's backup has zeros.
func TestBackupMatchesCryptsetup(t *testing.T) {
	needCryptsetup(t)
	garbage := func(t *testing.T, im *csImage) {
		f := openFile(t, im.headerDev)
		f.WriteAt(bytes.Repeat([]byte{0xaa}, 4096-600), 600) // between the phdr and slot 0
		h, _ := ReadHeader(f)
		end := h.luks1MaterialEnd()
		f.WriteAt(bytes.Repeat([]byte{0xbb}, int(roundUp(end, 4096)-end)+512), int64(end)) // after the last slot
	}
	damage := func(t *testing.T, im *csImage) {
		f := openFile(t, im.headerDev)
		f.WriteAt([]byte("X"), 5000) // the primary's JSON area: the secondary is in force
	}
	cases := []struct {
		name string
		make func(t *testing.T) *csImage
		edit func(t *testing.T, im *csImage)
	}{
		{"cryptsetup-luks2", func(t *testing.T) *csImage { return csFormat(t, 2, false, 20<<20) }, nil},
		{"cryptsetup-luks1", func(t *testing.T) *csImage { return csFormat(t, 1, false, 4<<20) }, nil},
		{"cryptsetup-luks1-256bit", func(t *testing.T) *csImage { return csFormat(t, 1, false, 4<<20, "--key-size", "256") }, nil},
		{"cryptsetup-luks2-detached", func(t *testing.T) *csImage { return csFormat(t, 2, true, 1<<20) }, nil},
		{"cryptsetup-luks1-detached", func(t *testing.T) *csImage { return csFormat(t, 1, true, 1<<20) }, nil},
		{"cryptsetup-luks2-64k-metadata", func(t *testing.T) *csImage {
			return csFormat(t, 2, false, 8<<20, "--luks2-metadata-size", "64k", "--luks2-keyslots-size", "2M")
		}, nil},
		{"cryptsetup-luks2-data-past-keyslots", func(t *testing.T) *csImage {
			return csFormat(t, 2, false, 8<<20, "--offset", "8192", "--luks2-keyslots-size", "1M")
		}, nil},
		{"package-luks2", func(t *testing.T) *csImage { return pkgImage(t, CreateOptions{KDF: fastKDF["pbkdf2"]}) }, nil},
		{"package-luks1", func(t *testing.T) *csImage { return pkgImage(t, CreateOptions{Version: 1, KDF: fastKDF["pbkdf2"]}) }, nil},
		{"package-luks1-detached", func(t *testing.T) *csImage {
			return pkgImage(t, CreateOptions{Version: 1, Detached: true, KDF: fastKDF["pbkdf2"]})
		}, nil},
		{"luks1-stale-bytes", func(t *testing.T) *csImage { return csFormat(t, 1, false, 4<<20) }, garbage},
		{"luks2-damaged-primary", func(t *testing.T) *csImage { return csFormat(t, 2, false, 20<<20) }, damage},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			im := c.make(t)
			if c.edit != nil {
				c.edit(t, im)
			}
			// Ours first: cryptsetup's backup repairs a damaged copy on the device.
			h, f := openHeaderFile(t, im.headerDev)
			var ours bytes.Buffer
			if err := h.Backup(f, &ours); err != nil {
				t.Fatal(err)
			}
			theirs := filepath.Join(t.TempDir(), "backup")
			cs(t, append(append([]string{"luksHeaderBackup", "--batch-mode", "--header-backup-file", theirs}, im.hdrArgs()...), im.img)...)
			want, err := os.ReadFile(theirs)
			if err != nil {
				t.Fatal(err)
			}
			if uint64(len(want)) != h.BackupSize() {
				t.Errorf("BackupSize %d, cryptsetup's backup has %d bytes", h.BackupSize(), len(want))
			}
			if c.edit != nil && h.Version == 2 {
				// cryptsetup repaired the primary copy with a new salt
				// (and so checksum) before copying it; Backup keeps the
				// good copy's salt.
				for _, b := range [][]byte{ours.Bytes(), want} {
					clear(b[offSalt : offSalt+64])
					clear(b[offCsum : offCsum+csumLen])
				}
			}
			if !bytes.Equal(ours.Bytes(), want) {
				i := 0
				for i < min(ours.Len(), len(want)) && ours.Bytes()[i] == want[i] {
					i++
				}
				t.Fatalf("the backup differs from cryptsetup's (%d and %d bytes, first difference at %d)", ours.Len(), len(want), i)
			}
			if fi, _ := os.Stat(theirs); fi.Mode().Perm() != 0o400 {
				t.Errorf("cryptsetup made its backup with mode %v (the command copies it)", fi.Mode().Perm())
			}
		})
	}
}

// TestRestoreMismatch: RestoreHeader without force refuses what
// cryptsetup luksHeaderRestore refuses (another data offset, header area
// size, LUKS1 key size) and what it asks to confirm (another UUID,
// version, sector size, no header on the device) with a
// BackupMismatchError naming the field, writing nothing; cryptsetup in
// batch mode refuses exactly the Layout ones, and with force ours
// restores the rest.
func TestRestoreMismatch(t *testing.T) {
	needCryptsetup(t)
	type mk func(t *testing.T) *csImage
	l2 := func(args ...string) mk {
		return func(t *testing.T) *csImage { return csFormat(t, 2, false, 20<<20, args...) }
	}
	l1 := func(args ...string) mk {
		return func(t *testing.T) *csImage { return csFormat(t, 1, false, 4<<20, args...) }
	}
	zeros := func(t *testing.T) *csImage {
		im := &csImage{img: filepath.Join(t.TempDir(), "zeros")}
		writeFile(t, im.img, make([]byte, 20<<20))
		im.headerDev = im.img
		return im
	}
	cases := []struct {
		name        string
		device, src mk
		field       string
	}{
		{"luks2-uuid", l2(), l2(), "UUID"},
		{"luks2-data-offset", l2(), l2("--offset", "40960"), "data offset"},
		{"luks2-keyslots-size", l2(), l2("--luks2-keyslots-size", "8M", "--offset", "32768"), "header area size"},
		{"luks2-sector-size", l2("--sector-size", "4096"), l2("--sector-size", "512"), "sector size"},
		{"luks1-key-size", l1(), l1("--key-size", "256"), "key size"},
		{"luks1-data-offset", l1(), l1("--align-payload", "8192"), "data offset"},
		{"luks1-over-luks2", l2(), l1(), "version"},
		{"no-header", zeros, l2(), "header"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dev, src := c.device(t), c.src(t)
			bak := filepath.Join(t.TempDir(), "backup")
			cs(t, "luksHeaderBackup", "--batch-mode", "--header-backup-file", bak, src.img)
			before, _ := os.ReadFile(dev.img)
			f := openFile(t, dev.img)
			b := openFile(t, bak)
			_, err := RestoreHeader(f, b, false)
			var me *BackupMismatchError
			if !errors.As(err, &me) || !errors.Is(err, ErrBackupMismatch) || me.Field != c.field {
				t.Fatalf("RestoreHeader: %v; want a mismatch of %s", err, c.field)
			}
			if after, _ := os.ReadFile(dev.img); !bytes.Equal(before, after) {
				t.Fatal("the refused restore changed the device")
			}
			// cryptsetup: -q skips the questions, not the layout checks.
			tmp := filepath.Join(t.TempDir(), "copy")
			writeFile(t, tmp, before)
			out, csErr := csRun("luksHeaderRestore", "--batch-mode", "--header-backup-file", bak, tmp)
			if (csErr != nil) != me.Layout() {
				t.Fatalf("cryptsetup restore: %v %s; our mismatch %q has Layout() %v", csErr, out, c.field, me.Layout())
			}
			if me.Layout() {
				return
			}
			nh, err := RestoreHeader(f, b, true)
			if err != nil {
				t.Fatal(err)
			}
			if nh.UUID != must(ReadHeader(b)).UUID {
				t.Fatal("the forced restore did not restore the backup's header")
			}
			got, _ := os.ReadFile(dev.img)
			want, _ := os.ReadFile(tmp)
			if !bytes.Equal(got, want) {
				t.Fatal("the forced restore wrote other bytes than cryptsetup's")
			}
			if !testPassphrase(t, dev.img, "", []byte("zero"), -1) {
				t.Fatal("cryptsetup refuses the backup's passphrase after the restore")
			}
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// plainAt is the known plaintext the power-loss tests write at the
// start of the data segment.
var plainAt = bytes.Repeat([]byte("known data 0123456789abcdef\n"), 4096/28+1)[:4096]

// powerLossCase is a header verb run on an image, with the passphrase
// sets that must open each crash state: every state opens with all the
// passphrases of one of the sets, and reads plainAt with it.
type powerLossCase struct {
	base []byte
	op   func(dev *writeLog) error
	sets [][]string
	// final is the set that must open the state after the last write.
	final int
	// csEvery: cryptsetup checks one torn state in csEvery (0: 16).
	csEvery int
}

// checkPowerLoss runs c.op on a copy of c.base and checks every crash
// state (crashStates) with the package, and with cryptsetup at the
// states between writes (and all torn ones unless -short). It returns
// the image after all the writes.
func checkPowerLoss(t *testing.T, c powerLossCase) []byte {
	t.Helper()
	dev := &writeLog{writerAtBuffer: &writerAtBuffer{bytes.NewBuffer(bytes.Clone(c.base))}}
	if err := c.op(dev); err != nil {
		t.Fatal(err)
	}
	if len(dev.writes) == 0 {
		t.Fatal("the verb wrote nothing")
	}
	final := bytes.Clone(dev.b.Bytes())
	_, csErr := exec.LookPath("cryptsetup")
	path := filepath.Join(t.TempDir(), "img")
	states := crashStates(dev.writes)
	// One image, changed where the writes go and put back after each
	// state (the file for cryptsetup too): no copy of the whole image per
	// state.
	size := len(c.base)
	for _, w := range dev.writes {
		size = max(size, int(w.off)+len(w.data))
	}
	base := append(bytes.Clone(c.base), make([]byte, size-len(c.base))...)
	img := bytes.Clone(base)
	writeFile(t, path, img)
	f := openFile(t, path)
	csChecked := 0
	seen := map[string]int{} // the state of the header in force and its keyslots -> the set that opens it
	for i, st := range states {
		st.apply(img)
		last := i == len(states)-1
		prefer := -1
		if last {
			prefer = c.final
		}
		// What opens depends only on the header in force and its
		// keyslots' bytes (the writes never reach the data): states alike
		// in those are checked once.
		k := stateKey(t, img)
		set, ok := seen[k]
		if !ok || last {
			set = openingSet(t, st.name, img, c.sets, prefer)
			seen[k] = set
		}
		if last && set != c.final {
			t.Fatalf("%s: the final state opens with set %v, want %v", st.name, c.sets[set], c.sets[c.final])
		}
		// cryptsetup (tens of milliseconds a passphrase): every state
		// between writes, and one torn state in 16 unless -short.
		between := strings.HasPrefix(st.name, "after")
		every := c.csEvery
		if every == 0 {
			every = 16
		}
		if csErr == nil && (between || !testing.Short() && i%every == 0) {
			syncWrites(f, img, dev.writes)
			for _, pass := range c.sets[set] {
				if !testPassphrase(t, path, "", []byte(pass), -1) {
					t.Fatalf("%s: cryptsetup refuses %q, which the package accepts", st.name, pass)
				}
			}
			csChecked++
		}
		undoWrites(img, base, dev.writes)
	}
	if csErr != nil {
		t.Log("cryptsetup is not installed: the crash states were checked by the package only")
	} else {
		t.Logf("cryptsetup checked %d of the %d crash states (those between writes, and unless -short one torn state in %d), the package all", csChecked, len(states), max(c.csEvery, 16))
	}
	return final
}

// stateKey sums up what opening img depends on: the header ReadHeader
// reads and the bytes of its active keyslots' areas.
func stateKey(t *testing.T, img []byte) string {
	h, err := ReadHeader(bytes.NewReader(img))
	if err != nil {
		return "unreadable: " + err.Error()
	}
	sum := sha256.New()
	fmt.Fprintf(sum, "%d %s %d %q %x\n", h.Version, h.UUID, h.Seqid, h.JSON, h.onDisk)
	for _, k := range h.Keyslots {
		if k.Active {
			end := min(uint64(len(img)), k.Area.Offset+k.Area.Size)
			sum.Write(img[min(k.Area.Offset, end):end])
		}
	}
	return string(sum.Sum(nil))
}

// openingSet returns the index of the first set (prefer's first, when
// not -1) whose passphrases all open img (each reading plainAt at the
// start of the data), failing the test if none does.
func openingSet(t *testing.T, name string, img []byte, sets [][]string, prefer int) int {
	t.Helper()
	var why []string
	order := make([]int, 0, len(sets))
	if prefer >= 0 {
		order = append(order, prefer)
	}
	for i := range sets {
		if i != prefer {
			order = append(order, i)
		}
	}
	for _, i := range order {
		set := sets[i]
		ok := true
		for _, pass := range set {
			v, err := Open(bytes.NewReader(img), []byte(pass), &Options{ReadOnly: true})
			if err != nil {
				why = append(why, fmt.Sprintf("%q: %v", pass, err))
				ok = false
				break
			}
			got := make([]byte, len(plainAt))
			_, err = v.ReadAt(got, 0)
			v.Close()
			if err != nil || !bytes.Equal(got, plainAt) {
				t.Fatalf("%s: passphrase %q opens but the data reads otherwise (%v)", name, pass, err)
			}
		}
		if ok {
			return i
		}
	}
	t.Fatalf("%s: no passphrase set opens the image: %s", name, strings.Join(why, "; "))
	return -1
}

// pkgBase makes an image in memory with passphrase "zero" in keyslot 0
// and the others of extra in the keyslots they name, and plainAt at the
// start of its data.
func pkgBase(t *testing.T, o CreateOptions, extra map[int]string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := &writerAtBuffer{&b}
	o.KDF = fastKDF["pbkdf2"]
	h, key, err := Create(w, []byte("zero"), &o)
	if err != nil {
		t.Fatal(err)
	}
	for slot, pass := range extra {
		if _, err := h.AddKey(w, key, []byte(pass), slot, fastKDF["pbkdf2"]); err != nil {
			t.Fatal(err)
		}
	}
	w.WriteAt(make([]byte, 64<<10), int64(h.Segments[0].Offset))
	v, err := NewVolume(h, key, w, int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.WriteAt(plainAt, 0); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestRestorePowerLoss: a power loss at any point of RestoreHeader
// leaves an image that opens with every passphrase of the old header or
// every passphrase of the backup (and reads the same data): LUKS2 and
// LUKS1, a backup older than a keyslot added since, a backup with a
// keyslot killed since, and (LUKS2) a backup whose keyslot lies where a
// keyslot added since lies, restored through an intermediate header.
func TestRestorePowerLoss(t *testing.T) {
	type step func(t *testing.T, dev *writerAtBuffer, h *Header, key []byte)
	add := func(slot int, pass string) step {
		return func(t *testing.T, dev *writerAtBuffer, h *Header, key []byte) {
			if _, err := h.AddKey(dev, key, []byte(pass), slot, fastKDF["pbkdf2"]); err != nil {
				t.Fatal(err)
			}
		}
	}
	kill := func(slot int) step {
		return func(t *testing.T, dev *writerAtBuffer, h *Header, key []byte) {
			nh := h.clone()
			if h.Version == 1 {
				nh.Keyslots[slot].Active = false
				nh.Digests[0].Keyslots = slicesDelete(nh.Digests[0].Keyslots, slot)
			} else {
				for i := range nh.Keyslots {
					if nh.Keyslots[i].ID == slot {
						nh.Keyslots = append(nh.Keyslots[:i], nh.Keyslots[i+1:]...)
						break
					}
				}
				nh.Digests[0].Keyslots = slicesDelete(nh.Digests[0].Keyslots, slot)
			}
			if err := h.commitSimple(dev, nh); err != nil {
				t.Fatal(err)
			}
		}
	}
	cases := []struct {
		name         string
		version      int
		before       map[int]string // keyslots besides "zero" in 0 when the backup is taken
		after        []step         // then applied to the device
		old, backup  []string
		intermediate bool
	}{
		{"luks2-key-added", 2, map[int]string{1: "one"}, []step{add(2, "two")}, []string{"zero", "one", "two"}, []string{"zero", "one"}, false},
		{"luks2-key-killed", 2, map[int]string{1: "one"}, []step{kill(1)}, []string{"zero"}, []string{"zero", "one"}, false},
		{"luks2-area-reused", 2, map[int]string{1: "one"}, []step{kill(1), add(1, "new")}, []string{"zero", "new"}, []string{"zero", "one"}, true},
		{"luks1-key-added", 1, map[int]string{1: "one"}, []step{add(2, "two")}, []string{"zero", "one", "two"}, []string{"zero", "one"}, false},
		{"luks1-key-killed", 1, map[int]string{7: "seven"}, []step{kill(7)}, []string{"zero"}, []string{"zero", "seven"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			img := pkgBase(t, CreateOptions{Version: c.version}, c.before)
			h := must(ReadHeader(bytes.NewReader(img)))
			var bak bytes.Buffer
			if err := h.Backup(bytes.NewReader(img), &bak); err != nil {
				t.Fatal(err)
			}
			dev := &writerAtBuffer{bytes.NewBuffer(img)}
			key, _, err := h.Unlock(dev, []byte("zero"), AnyKeyslot)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range c.after {
				s(t, dev, h, key)
			}
			base := bytes.Clone(dev.b.Bytes())
			writes := 0
			final := checkPowerLoss(t, powerLossCase{base: base, sets: [][]string{c.old, c.backup}, final: 1,
				op: func(d *writeLog) error {
					_, err := RestoreHeader(d, bytes.NewReader(bak.Bytes()), false)
					writes = len(d.writes)
					return err
				}})
			if !bytes.Equal(final[:bak.Len()], bak.Bytes()) {
				t.Fatal("after the restore the device's header area is not the backup")
			}
			t.Logf("%d writes", writes)
			if c.intermediate && writes < 5 {
				t.Fatalf("%d writes: the conflicting keyslot was not restored through an intermediate header", writes)
			}
		})
	}
}

func slicesDelete(s []int, v int) []int {
	var out []int
	for _, x := range s {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}

// exampleImage makes a small LUKS image file with a cheap KDF for the
// examples.
func exampleImage(version int, pass string) *os.File {
	f, err := os.CreateTemp("", "luks-example-*.img")
	if err != nil {
		panic(err)
	}
	os.Remove(f.Name()) // the open file stays usable
	h, key, err := Create(f, []byte(pass), &CreateOptions{Version: version, SectorSize: 512, KDF: KDFOptions{Type: "pbkdf2", Iterations: 1000}})
	if err != nil {
		panic(err)
	}
	clear(key)
	if err := f.Truncate(int64(h.Segments[0].Offset) + 1<<20); err != nil {
		panic(err)
	}
	return f
}

// Backing up a header and restoring it after the header was wiped.
func ExampleRestoreHeader() {
	f := exampleImage(2, "my passphrase")
	defer f.Close()
	h, err := ReadHeader(f)
	if err != nil {
		panic(err)
	}
	var backup bytes.Buffer
	if err := h.Backup(f, &backup); err != nil {
		panic(err)
	}
	fmt.Println("backup bytes:", backup.Len() == int(h.BackupSize()), h.BackupSize())

	f.WriteAt(make([]byte, 64<<10), 0) // both header copies lost
	if _, err := ReadHeader(f); err != nil {
		fmt.Println("after the wipe:", err)
	}
	// Without force, a device without a header is refused (as cryptsetup asks first).
	_, err = RestoreHeader(f, bytes.NewReader(backup.Bytes()), false)
	fmt.Println("refused:", errors.Is(err, ErrBackupMismatch))
	if _, err := RestoreHeader(f, bytes.NewReader(backup.Bytes()), true); err != nil {
		panic(err)
	}
	_, err = Open(f, []byte("my passphrase"), nil)
	fmt.Println("opens again:", err == nil)
	// Output:
	// backup bytes: true 16777216
	// after the wipe: luks: not a LUKS header (no LUKS magic)
	// refused: true
	// opens again: true
}
