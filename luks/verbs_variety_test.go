package luks

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The verb-variety tests run every key and header verb on images
// cryptsetup made in many layouts (header and keyslots sizes, data
// offsets, sector and key sizes, ciphers, KDFs, many keyslots, labels,
// tokens, unbound keyslots, detached headers, a damaged header copy), and
// cryptsetup's own verb on a copy of each, and compare.

// variant is one image layout made by cryptsetup luksFormat: passphrase
// "zero" in keyslot 0, "one" in keyslot 1 and the others of extra in
// theirs (luksAddKey, cheap pbkdf2 unless kdf says otherwise), then
// setup.
type variant struct {
	name     string
	version  int
	detached bool
	size     int64
	args     []string // luksFormat flags, after cheap pbkdf2 ones
	kdf      []string // KDF flags of every keyslot (nil: cheap pbkdf2)
	extra    map[int]string
	setup    func(t *testing.T, im *varImage)
	short    bool // one of the few run under -short
	// verbs, when set, are the only verbs run (layouts that differ in
	// the cipher, hash or KDF only: the verbs that read or write key
	// material or convert it).
	verbs []string
	// refuse maps a verb to the part of the package's error where it
	// refuses, as documented, what cryptsetup does on this layout.
	refuse map[string]string
}

const luks2Size = 17 << 20 // the default 16 MiB data offset and 1 MiB of data

func variants() []variant {
	argon2id := []string{"--pbkdf", "argon2id", "--pbkdf-memory", "32", "--pbkdf-force-iterations", "4", "--pbkdf-parallel", "1"}
	argon2i := []string{"--pbkdf", "argon2i", "--pbkdf-memory", "32", "--pbkdf-force-iterations", "4", "--pbkdf-parallel", "1"}
	l2, l1 := []string{"--type", "luks2"}, []string{"--type", "luks1"}
	keyVerbs := []string{"kill-slot", "change-key", "header-backup", "convert"}
	with := func(base []string, more ...string) []string { return append(slices.Clone(base), more...) }
	return []variant{
		{name: "l2-meta64k", version: 2, size: luks2Size, args: with(l2, "--luks2-metadata-size", "64k")},
		{name: "l2-meta1m", version: 2, size: luks2Size, args: with(l2, "--luks2-metadata-size", "1m", "--sector-size", "512")},
		{name: "l2-keyslots-small-odd", version: 2, size: 2 << 20, args: with(l2, "--luks2-keyslots-size", "532k", "-s", "256", "--sector-size", "512")},
		// Room for two keyslots only: cryptsetup rewrites a keyslot in
		// place to change its passphrase, or restores over it; the
		// package refuses (a power loss then could lose the passphrase).
		{name: "l2-keyslots-tight", version: 2, size: 2 << 20, args: with(l2, "--luks2-keyslots-size", "260k", "-s", "256", "--offset", "584"),
			refuse: map[string]string{"change-key": "no room for the new keyslot", "change-key-slot": "no room for the new keyslot",
				"header-restore": "no free room to restore it"}},
		{name: "l2-offset", version: 2, size: 8 << 20, args: with(l2, "--offset", "12344", "--sector-size", "512")},
		{name: "l2-sector-4096", verbs: keyVerbs, version: 2, size: luks2Size, args: with(l2, "--sector-size", "4096")},
		{name: "l2-argon2i", verbs: keyVerbs, version: 2, size: luks2Size, args: l2, kdf: argon2i},
		{name: "l2-argon2id", verbs: keyVerbs, version: 2, size: luks2Size, args: l2, kdf: argon2id},
		{name: "l2-many-keyslots", version: 2, size: luks2Size, args: with(l2, "--sector-size", "512"),
			extra: map[int]string{2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 17: "seventeen", 31: "thirty-one"}},
		{name: "l2-label-subsystem", version: 2, size: luks2Size, args: with(l2, "--label", "my label", "--subsystem", "sub")},
		{name: "l2-token", version: 2, size: luks2Size, args: l2, setup: func(t *testing.T, im *varImage) {
			tok := filepath.Join(im.dir, "token.json")
			writeFile(t, tok, []byte(`{"type":"x-test","keyslots":["1"],"x":"kept"}`))
			cs(t, append([]string{"token", "import", "--batch-mode", "--json-file", tok, "--token-id", "2"}, im.csArgs()...)...)
		}},
		{name: "l2-unbound", version: 2, size: luks2Size, args: with(l2, "--sector-size", "512"), setup: func(t *testing.T, im *varImage) {
			cs(t, append(append(append([]string{"luksAddKey", "--batch-mode", "--unbound", "-s", "256", "-S", "4", "--key-file", im.passFile("zero")}, fastPBKDF2...), im.csArgs()...), im.passFile(unboundPass))...)
			im.unbound = true
		}},
		// Keyslot 1 of priority ignore: tried only when named.
		{name: "l2-priority-ignore", version: 2, size: luks2Size, args: with(l2, "--sector-size", "512"), setup: func(t *testing.T, im *varImage) {
			cs(t, append([]string{"config", "--batch-mode", "--priority", "ignore", "-S", "1"}, im.csArgs()...)...)
			im.passes["one"] = -1 // cryptsetup open without --key-slot does not try it
		}},
		{name: "l2-detached", version: 2, detached: true, size: 1 << 20, args: with(l2, "--sector-size", "512"), short: true},
		{name: "l2-secondary-damaged", version: 2, size: luks2Size, args: with(l2, "--sector-size", "512"), setup: func(t *testing.T, im *varImage) {
			im.damage(t, 16384+4096+100) // the secondary copy's JSON
		}, short: true},
		{name: "l2-primary-damaged", version: 2, size: luks2Size, args: with(l2, "--sector-size", "512"), setup: func(t *testing.T, im *varImage) {
			im.damage(t, 4096+100) // the primary copy's JSON
		}},
		// The primary's binary header damaged (a byte of its padding,
		// under the checksum), 64 KiB copies: the secondary is found at
		// 64 KiB.
		{name: "l2-meta64k-primary-damaged", version: 2, size: luks2Size, args: with(l2, "--luks2-metadata-size", "64k", "--sector-size", "512"),
			setup: func(t *testing.T, im *varImage) { im.damage(t, 300) }},
		{name: "l2-cbc-essiv", verbs: keyVerbs, version: 2, size: luks2Size, args: with(l2, "-c", "aes-cbc-essiv:sha256", "-s", "256", "--sector-size", "512")},
		// Keyslots encrypted otherwise than the data.
		{name: "l2-keyslot-cipher", verbs: keyVerbs, version: 2, size: luks2Size, args: with(l2, "--keyslot-cipher", "aes-cbc-essiv:sha256", "--keyslot-key-size", "128", "--sector-size", "512")},
		{name: "l2-xts-plain-256", verbs: keyVerbs, version: 2, size: luks2Size, args: with(l2, "-c", "aes-xts-plain", "-s", "256", "--sector-size", "512")},
		{name: "l2-xts-plain-512", verbs: keyVerbs, version: 2, size: luks2Size, args: with(l2, "-c", "aes-xts-plain", "-s", "512")},
		{name: "l1-align-1", version: 1, size: 3 << 20, args: with(l1, "--align-payload", "1"), extra: map[int]string{7: "seven"}},
		{name: "l1-align-odd", version: 1, size: 4 << 20, args: with(l1, "--align-payload", "4103", "-s", "256")},
		{name: "l1-256", verbs: keyVerbs, version: 1, size: 4 << 20, args: with(l1, "-s", "256")},
		{name: "l1-512", verbs: keyVerbs, version: 1, size: 4 << 20, args: with(l1, "-s", "512")},
		{name: "l1-cbc-essiv", verbs: keyVerbs, version: 1, size: 4 << 20, args: with(l1, "-c", "aes-cbc-essiv:sha256", "-s", "256")},
		{name: "l1-sha1", verbs: keyVerbs, version: 1, size: 4 << 20, args: with(l1, "--hash", "sha1")},
		{name: "l1-sha512", verbs: keyVerbs, version: 1, size: 4 << 20, args: with(l1, "--hash", "sha512")},
		{name: "l1-all-slots", version: 1, size: 4 << 20, args: with(l1, "-s", "256"),
			extra: map[int]string{2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven"}, short: true},
		// Eight 512-bit slots fill the space up to the data: cryptsetup
		// shifts them all in place to convert; the package refuses.
		{name: "l1-all-slots-512", version: 1, size: 4 << 20, args: with(l1, "-s", "512"),
			extra:  map[int]string{2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven"},
			refuse: map[string]string{"convert": "no free room before the data"}},
		{name: "l1-detached", version: 1, detached: true, size: 1 << 20, args: l1},
		// Eight 512-bit slots in a detached header: converting moves slot
		// 0's material past the last one's (the header file grows).
		{name: "l1-detached-all-slots", version: 1, detached: true, size: 1 << 20, args: l1,
			extra:  map[int]string{2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven"},
			refuse: map[string]string{"change-key": "no free LUKS1 keyslot"}},
	}
}

// varImage is a variant's image: a sparse snapshot of its files, copied
// for each verb.
type varImage struct {
	v        variant
	dir      string
	img, hdr string // paths of the snapshot's files; hdr "" unless detached
	passes   map[string]int
	unbound  bool
	imgSnap  *snapshot
	hdrSnap  *snapshot
	tb       testing.TB
	bak      string // the header backup, for restores
}

func (im *varImage) headerDev() string {
	if im.hdr != "" {
		return im.hdr
	}
	return im.img
}

// csArgs are cryptsetup's arguments naming the image (and its header).
func (im *varImage) csArgs() []string {
	if im.hdr != "" {
		return []string{"--header", im.hdr, im.img}
	}
	return []string{im.img}
}

func (im *varImage) passFile(pass string) string { return passFile(im.tb, im.dir, pass) }

// damage flips a byte of the header file at off.
func (im *varImage) damage(t *testing.T, off int64) {
	f := openFile(t, im.headerDev())
	b := []byte{0}
	f.ReadAt(b, off)
	b[0] ^= 0x5a
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

// snapshot is a file's size and its runs of 4096-byte blocks that are
// not zero (by offset).
type snapshot struct {
	size   int64
	blocks map[int64][]byte
}

func takeSnapshot(t testing.TB, path string) *snapshot {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := &snapshot{size: int64(len(b)), blocks: map[int64][]byte{}}
	zero := make([]byte, 4096)
	run := -1 // start of the current run of blocks that are not zero
	for off := 0; off <= len(b); off += 4096 {
		if off < len(b) && !bytes.Equal(b[off:min(len(b), off+4096)], zero[:min(len(b), off+4096)-off]) {
			if run < 0 {
				run = off
			}
			continue
		}
		if run >= 0 {
			s.blocks[int64(run)] = b[run:min(len(b), off)]
			run = -1
		}
	}
	return s
}

// write makes path a sparse copy of the snapshot.
func (s *snapshot) write(t testing.TB, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(s.size); err != nil {
		t.Fatal(err)
	}
	for off, b := range s.blocks {
		if _, err := f.WriteAt(b, off); err != nil {
			t.Fatal(err)
		}
	}
}

// same reports whether path holds the snapshot's bytes.
func (s *snapshot) same(t testing.TB, path string) bool {
	t.Helper()
	o := takeSnapshot(t, path)
	if o.size != s.size || len(o.blocks) != len(s.blocks) {
		return false
	}
	for off, b := range s.blocks {
		if !bytes.Equal(o.blocks[off], b) {
			return false
		}
	}
	return true
}

// makeVariant has cryptsetup make the variant's image and snapshots it.
func makeVariant(t *testing.T, v variant) *varImage {
	t.Helper()
	dir := t.TempDir()
	im := &varImage{v: v, dir: dir, img: filepath.Join(dir, "img"), passes: map[string]int{"zero": 0, "one": 1}, tb: t}
	writeFile(t, im.img, nil)
	if err := os.Truncate(im.img, v.size); err != nil {
		t.Fatal(err)
	}
	kdf := v.kdf
	if kdf == nil {
		kdf = fastPBKDF2
	}
	format := append(append([]string{"luksFormat", "--batch-mode", "--key-file", im.passFile("zero")}, kdf...), v.args...)
	if v.detached {
		im.hdr = filepath.Join(dir, "hdr")
	}
	cs(t, append(format, im.csArgs()...)...)
	for slot, pass := range v.extra {
		im.passes[pass] = slot
	}
	add := func(slot int, pass string) {
		cs(t, append(append(append([]string{"luksAddKey", "--batch-mode", "-S", strconv.Itoa(slot), "--key-file", im.passFile("zero")}, kdf...), im.csArgs()...), im.passFile(pass))...)
	}
	add(1, "one")
	for slot, pass := range v.extra {
		add(slot, pass)
	}
	if v.setup != nil {
		v.setup(t, im)
	}
	im.imgSnap = takeSnapshot(t, im.img)
	if im.hdr != "" {
		im.hdrSnap = takeSnapshot(t, im.hdr)
	}
	return im
}

// copyTo makes a copy of the image in a new directory and returns it.
func (im *varImage) copyTo(t *testing.T) *varImage {
	t.Helper()
	c := *im
	c.dir = t.TempDir()
	c.img = filepath.Join(c.dir, "img")
	im.imgSnap.write(t, c.img)
	if im.hdr != "" {
		c.hdr = filepath.Join(c.dir, "hdr")
		im.hdrSnap.write(t, c.hdr)
	}
	c.tb = t
	return &c
}

// unchanged reports whether the copy c still holds im's bytes.
func (im *varImage) unchanged(t *testing.T, c *varImage) bool {
	return im.imgSnap.same(t, c.img) && (im.hdr == "" || im.hdrSnap.same(t, c.hdr))
}

// passList is the passphrases a variant's verbs ask about: those of
// keyslots 0, 1 and the highest (every keyslot's with all), a new one,
// one added before a restore, a wrong one and the unbound keyslot's.
func (im *varImage) passList(all bool) []string {
	var out []string
	top, hi := "", -1
	for p, s := range im.passes {
		if all || s <= 1 {
			out = append(out, p)
		}
		if s > hi {
			top, hi = p, s
		}
	}
	if !slices.Contains(out, top) {
		out = append(out, top)
	}
	slices.Sort(out)
	out = append(out, newPass, "late", "nope")
	if im.unbound {
		out = append(out, unboundPass)
	}
	return out
}

// csSubset is the passphrases cryptsetup is asked about after a verb
// (each costs a process): up to three whose keyslot the verb changes, and the
// one that opened the lowest keyslot before and still opens.
func csSubset(passes []string, before, want map[string]int) []string {
	var out []string
	keep, low := "", -1
	for _, p := range passes {
		switch {
		case want[p] != before[p] && len(out) < 3:
			out = append(out, p)
		case want[p] >= 0 && (low < 0 || want[p] < low):
			keep, low = p, want[p]
		}
	}
	if keep != "" {
		out = append(out, keep)
	}
	return out
}

// opens maps each passphrase to the keyslot it opens in the package, as
// cryptsetup open does (keyslots bound to the data segment only), -1 for
// none; "unreadable" when the header does not read.
func (c *varImage) opens(t *testing.T, passes []string) (map[string]int, *Header) {
	t.Helper()
	f := openFile(t, c.headerDev())
	h, err := ReadHeader(f)
	if err != nil {
		t.Fatalf("%s: ReadHeader: %v", c.headerDev(), err)
	}
	out := map[string]int{}
	for _, p := range passes {
		out[p] = -1
		// The keyslot the passphrase was put in first (one Unlock, not
		// one per keyslot); then every keyslot.
		key, id, err := []byte(nil), -1, ErrNoKey
		if s, ok := c.passes[p]; ok && s >= 0 {
			if k, _ := h.Keyslot(s); k != nil && k.Active && k.Priority != PriorityIgnore && h.Bound(s) {
				key, id, err = h.Unlock(f, []byte(p), s)
			}
		}
		if err != nil {
			key, id, err = h.Unlock(f, []byte(p), AnyKeyslot)
		}
		clear(key)
		switch {
		case err == nil && h.Bound(id):
			out[p] = id
		case err != nil && !errors.Is(err, ErrNoKey):
			t.Fatalf("%s: Unlock(%q): %v", c.headerDev(), p, err)
		}
	}
	return out, h
}

// csOpens is opens by cryptsetup open --test-passphrase.
func (c *varImage) csOpens(t *testing.T, passes []string) map[string]int {
	t.Helper()
	return csOpensArgs(t, c.dir, passes, c.csArgs())
}

// varVerb is one verb run by the package and by cryptsetup on copies of
// a variant's image.
type varVerb struct {
	name string
	// prep, when set, changes the package's copy first (with
	// cryptsetup), which cryptsetup's copy then copies.
	prep func(t *testing.T, im, c *varImage)
	pkg  func(t *testing.T, im, c *varImage, h *Header, f *os.File) error
	cs   func(t *testing.T, im, c *varImage) []string
	// want is what opens afterwards, from what opened before.
	want func(im *varImage, before map[string]int) map[string]int
	// refuses, when not "", is the part of our error where the package
	// refuses what cryptsetup does on this variant (a choice the
	// package documents); "" where both must do the same.
	refuses func(im *varImage) string
	// more: the package may succeed where cryptsetup refuses.
	more bool
	// same compares the two results beyond what opens.
	same func(t *testing.T, ours, theirs *varImage)
}

func without(m map[string]int, passes ...string) map[string]int {
	out := maps2(m)
	for _, p := range passes {
		out[p] = -1
	}
	return out
}

func maps2(m map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func lowestFree(im *varImage) int {
	for id := 0; ; id++ {
		used := false
		for _, s := range im.passes {
			used = used || s == id
		}
		if !used {
			return id
		}
	}
}

// varState sums up a header as the verbs' comparisons need: keyslot ids,
// digests' keyslots and segments, tokens' keyslots, UUID, label,
// subsystem, version, priorities.
func varState(t *testing.T, c *varImage) string {
	t.Helper()
	h, err := ReadHeader(openFile(t, c.headerDev()))
	if err != nil {
		t.Fatalf("%s: %v", c.headerDev(), err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "LUKS%d uuid %s label %q subsystem %q keyslots", h.Version, h.UUID, h.Label, h.Subsystem)
	for _, k := range h.Keyslots {
		if k.Active {
			fmt.Fprintf(&b, " %d/%d/%s-%d/%s-%s", k.ID, k.Priority, k.Area.Encryption, k.Area.KeySize, k.AF.Hash, k.KDF.Type)
		}
	}
	for _, d := range h.Digests {
		fmt.Fprintf(&b, "; digest %d keyslots %v segments %v", d.ID, d.Keyslots, d.Segments)
	}
	for _, tk := range h.Tokens {
		fmt.Fprintf(&b, "; token %d keyslots %v", tk.ID, tk.Keyslots)
	}
	return b.String()
}

func sameState(t *testing.T, ours, theirs *varImage) {
	t.Helper()
	if a, b := varState(t, ours), varState(t, theirs); a != b {
		t.Errorf("the package's result: %s\ncryptsetup's:          %s", a, b)
	}
}

const testUUID = "0b7e5d8c-59a4-4f61-9c33-1f2e3d4c5b6a"

// backupOf is the header backup restore uses: cryptsetup's of the
// image, or (a damaged header copy) the raw bytes, damage and all, as a
// copy made with dd would hold them.
func (im *varImage) backupOf(t *testing.T) string {
	t.Helper()
	bak := filepath.Join(im.dir, "backup")
	if _, err := os.Stat(bak); err == nil {
		return bak
	}
	c := im.copyTo(t)
	if strings.Contains(im.v.name, "damaged") {
		h, err := ReadHeader(openFile(t, c.headerDev()))
		if err != nil {
			t.Fatal(err)
		}
		b := make([]byte, h.BackupSize())
		openFile(t, c.headerDev()).ReadAt(b, 0)
		writeFile(t, bak, b)
		return bak
	}
	cs(t, append([]string{"luksHeaderBackup", "--batch-mode", "--header-backup-file", bak}, c.csArgs()...)...)
	return bak
}

// changeKey is the change-key verb from "one" to newPass, with the
// keyslot named (slot 1) or not (AnyKeyslot).
func changeKey(name string, slot int) varVerb {
	return varVerb{name: name,
		pkg: func(t *testing.T, im, c *varImage, h *Header, f *os.File) error {
			_, err := h.ChangeKey(f, []byte("one"), []byte(newPass), slot, fastKDF["pbkdf2"])
			return err
		},
		cs: func(t *testing.T, im, c *varImage) []string {
			a := append([]string{"luksChangeKey", "--batch-mode", "--key-file", c.passFile("one")}, fastPBKDF2...)
			if slot != AnyKeyslot {
				a = append(a, "-S", strconv.Itoa(slot))
			}
			return append(append(a, c.csArgs()...), c.passFile(newPass))
		},
		want: func(im *varImage, before map[string]int) map[string]int {
			w := without(before, "one")
			w[newPass] = 1
			switch {
			case im.v.version == 1:
				w[newPass] = lowestFree(im)
			case slot != AnyKeyslot && before["one"] < 0:
				w[newPass] = -1 // keyslot 1 keeps its priority ignore
			}
			return w
		},
		refuses: func(im *varImage) string {
			if im.v.version == 1 && lowestFree(im) > 7 {
				return "no free LUKS1 keyslot"
			}
			return ""
		},
		same: func(t *testing.T, ours, theirs *varImage) {
			if ours.v.version == 2 {
				sameState(t, ours, theirs)
			}
		}}
}

func varVerbs() []varVerb {
	kill1 := func(im *varImage, before map[string]int) map[string]int { return without(before, "one") }
	unchanged := func(im *varImage, before map[string]int) map[string]int { return before }
	// oneOpens: as before, but keyslot 1 is tried without being named.
	oneOpens := func(im *varImage, before map[string]int) map[string]int {
		w := maps2(before)
		w["one"] = 1
		return w
	}
	return []varVerb{
		{name: "kill-slot",
			pkg: func(t *testing.T, im, c *varImage, h *Header, f *os.File) error { return h.KillSlot(f, 1) },
			cs: func(t *testing.T, im, c *varImage) []string {
				return append(append([]string{"luksKillSlot", "--batch-mode"}, c.csArgs()...), "1")
			},
			want: kill1, same: sameState},
		{name: "remove-key",
			pkg: func(t *testing.T, im, c *varImage, h *Header, f *os.File) error {
				id, err := h.RemoveKey(f, []byte("one"))
				if err == nil && id != 1 {
					t.Errorf("RemoveKey removed keyslot %d, want 1", id)
				}
				return err
			},
			cs: func(t *testing.T, im, c *varImage) []string {
				return append([]string{"luksRemoveKey", "--batch-mode", "--key-file", c.passFile("one")}, c.csArgs()...)
			},
			want: kill1, same: sameState},
		changeKey("change-key", AnyKeyslot),
		changeKey("change-key-slot", 1),
		{name: "erase",
			pkg: func(t *testing.T, im, c *varImage, h *Header, f *os.File) error { return h.Erase(f) },
			cs: func(t *testing.T, im, c *varImage) []string {
				return append([]string{"luksErase", "--batch-mode"}, c.csArgs()...)
			},
			want: func(im *varImage, before map[string]int) map[string]int {
				w := maps2(before)
				for p := range w {
					w[p] = -1
				}
				return w
			}, same: sameState},
		{name: "header-backup",
			pkg: func(t *testing.T, im, c *varImage, h *Header, f *os.File) error {
				out, err := os.Create(filepath.Join(c.dir, "backup"))
				if err != nil {
					t.Fatal(err)
				}
				defer out.Close()
				return h.Backup(f, out)
			},
			cs: func(t *testing.T, im, c *varImage) []string {
				return append([]string{"luksHeaderBackup", "--batch-mode", "--header-backup-file", filepath.Join(c.dir, "backup")}, c.csArgs()...)
			},
			want: unchanged,
			same: func(t *testing.T, ours, theirs *varImage) {
				a, _ := os.ReadFile(filepath.Join(ours.dir, "backup"))
				b, _ := os.ReadFile(filepath.Join(theirs.dir, "backup"))
				if ours.v.damaged() {
					// cryptsetup repairs the damaged copy with a new
					// random salt (and so checksum): compare the rest.
					mask(a, ours.v)
					mask(b, ours.v)
				}
				if !bytes.Equal(a, b) {
					t.Errorf("the backup differs from cryptsetup's (%d bytes, cryptsetup's %d; first difference at %d)", len(a), len(b), firstDiff(a, b))
				}
				if !ours.v.damaged() && !ours.unchangedFrom(t, theirs) {
					t.Error("the backup changed the image")
				}
			}},
		{name: "header-restore",
			prep: func(t *testing.T, im, c *varImage) {
				im.backupOf(t)
				cs(t, append(append([]string{"luksKillSlot", "--batch-mode"}, c.csArgs()...), "1")...)
				cs(t, append(append(append([]string{"luksAddKey", "--batch-mode", "-S", "1", "--key-file", c.passFile("zero")}, fastPBKDF2...), c.csArgs()...), c.passFile("late"))...)
			},
			pkg: func(t *testing.T, im, c *varImage, h *Header, f *os.File) error {
				_, err := RestoreHeader(f, openFile(t, im.backupOf(t)), false)
				return err
			},
			cs: func(t *testing.T, im, c *varImage) []string {
				return append([]string{"luksHeaderRestore", "--batch-mode", "--header-backup-file", im.backupOf(t)}, c.csArgs()...)
			},
			want: unchanged,
			refuses: func(im *varImage) string {
				if im.v.version == 1 {
					return "LUKS1 keyslots cannot move"
				}
				return ""
			},
			same: func(t *testing.T, ours, theirs *varImage) {
				sameState(t, ours, theirs)
			}},
		{name: "uuid",
			pkg: func(t *testing.T, im, c *varImage, h *Header, f *os.File) error { return h.SetUUID(f, testUUID) },
			cs: func(t *testing.T, im, c *varImage) []string {
				return append([]string{"luksUUID", "--batch-mode", "--uuid", testUUID}, c.csArgs()...)
			},
			want: unchanged, same: sameState},
		{name: "label",
			pkg: func(t *testing.T, im, c *varImage, h *Header, f *os.File) error {
				return h.SetLabel(f, "new label", "")
			},
			cs: func(t *testing.T, im, c *varImage) []string {
				return append([]string{"config", "--batch-mode", "--label", "new label"}, c.csArgs()...)
			},
			want: unchanged, same: sameState},
		{name: "priority",
			pkg: func(t *testing.T, im, c *varImage, h *Header, f *os.File) error {
				return h.SetPriority(f, 1, PriorityPrefer)
			},
			cs: func(t *testing.T, im, c *varImage) []string {
				return append([]string{"config", "--batch-mode", "--priority", "prefer", "-S", "1"}, c.csArgs()...)
			},
			want: oneOpens, same: sameState},
		{name: "convert",
			pkg: func(t *testing.T, im, c *varImage, h *Header, f *os.File) error { return h.Convert(f, 3-h.Version) },
			cs: func(t *testing.T, im, c *varImage) []string {
				return append([]string{"convert", "--batch-mode", "--type", fmt.Sprintf("luks%d", 3-im.v.version)}, c.csArgs()...)
			},
			want: oneOpens, more: true, // LUKS1 has no priorities
			same: func(t *testing.T, ours, theirs *varImage) {
				a, b := varState(t, ours), varState(t, theirs)
				if a != b {
					t.Errorf("the package's result: %s\ncryptsetup's:          %s", a, b)
				}
			}},
	}
}

func (v variant) damaged() bool { return strings.Contains(v.name, "damaged") }

func (c *varImage) unchangedFrom(t *testing.T, o *varImage) bool {
	a, _ := os.ReadFile(c.headerDev())
	b, _ := os.ReadFile(o.headerDev())
	return bytes.Equal(a, b)
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// copiesValid says which LUKS2 header copies of c read as valid.
func copiesValid(t *testing.T, c *varImage) string {
	f := openFile(t, c.headerDev())
	h, err := ReadHeader(f)
	if err != nil || h.Version != 2 {
		return "not LUKS2"
	}
	_, e1 := readCopy(f, 0, magic1)
	_, e2 := readCopy(f, h.HeaderSize, magic2)
	return fmt.Sprintf("primary valid %v, secondary valid %v", e1 == nil, e2 == nil)
}

// TestVerbsOnVariants runs every key and header verb, with the package
// and with cryptsetup, on copies of images cryptsetup made in many
// layouts (variants): no panic; where both succeed, the same passphrases
// open the same keyslots in both results (by the package), cryptsetup
// agrees about the package's result, and the results compare the same
// (keyslots, digests, tokens, UUID, label, priorities; backups byte for
// byte); where the package refuses, nothing was written, and cryptsetup
// refuses too unless the package documents the refusal (refuses); the
// package succeeds where cryptsetup refuses only for convert.
func TestVerbsOnVariants(t *testing.T) {
	needCryptsetup(t)
	vs := variants()
	if testing.Short() {
		var few []variant
		for _, v := range vs {
			if v.short {
				few = append(few, v)
			}
		}
		t.Logf("-short: %d of the %d variants (the full run has them all)", len(few), len(vs))
		vs = few
	}
	for _, v := range vs {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel() // mostly waiting for cryptsetup processes
			im := makeVariant(t, v)
			before, _ := im.copyTo(t).opens(t, im.passList(true))
			for p, s := range im.passes {
				if before[p] != s {
					t.Fatalf("before any verb %q opens keyslot %d, want %d", p, before[p], s)
				}
			}
			passes := im.passList(false)
			for _, vb := range varVerbs() {
				switch {
				case v.verbs != nil && !slices.Contains(v.verbs, vb.name):
					continue
				case vb.name == "change-key-slot" && v.version == 1:
					continue // LUKS1: the package does as change-key does (the lowest free slot)
				case (vb.name == "label" || vb.name == "priority") && v.version == 1 && v.name != "l1-256":
					continue // refused on every LUKS1 header: checked on one
				}
				t.Run(vb.name, func(t *testing.T) { runVarVerb(t, im, vb, passes, before) })
			}
		})
	}
}

func runVarVerb(t *testing.T, im *varImage, vb varVerb, passes []string, before map[string]int) {
	ours, theirs := im.copyTo(t), im.copyTo(t)
	base := im
	if vb.prep != nil {
		vb.prep(t, im, ours)
		base = &varImage{v: im.v, img: ours.img, hdr: ours.hdr, imgSnap: takeSnapshot(t, ours.img)}
		base.imgSnap.write(t, theirs.img)
		if ours.hdr != "" {
			base.hdrSnap = takeSnapshot(t, ours.hdr)
			base.hdrSnap.write(t, theirs.hdr)
		}
	}
	h, f := openHeaderFile(t, ours.headerDev())
	ourErr := vb.pkg(t, im, ours, h, f)
	// Which header copies are valid, before cryptsetup (which repairs a
	// damaged copy whenever it opens an image) touches the result.
	oursCopies := copiesValid(t, ours)
	out, csErr := csRun(vb.cs(t, im, theirs)...)
	if ourErr == nil && csErr == nil && vb.name != "header-backup" { // Backup does not repair the device, cryptsetup's does
		if theirsCopies := copiesValid(t, theirs); oursCopies != theirsCopies {
			t.Errorf("afterwards the header copies are %s, cryptsetup's %s", oursCopies, theirsCopies)
		}
	}
	reason := im.v.refuse[vb.name]
	if vb.refuses != nil && reason == "" {
		reason = vb.refuses(im)
	}
	switch {
	case ourErr != nil:
		if !base.unchanged(t, ours) {
			t.Errorf("the package refused (%v) but changed the image", ourErr)
		}
		if csErr == nil && (reason == "" || !strings.Contains(ourErr.Error(), reason)) {
			t.Errorf("the package refuses what cryptsetup does: %v", ourErr)
		}
		if !strings.HasPrefix(ourErr.Error(), "luks: ") {
			t.Errorf("error without the luks: prefix: %v", ourErr)
		}
		t.Logf("refused: %v (cryptsetup: %v)", ourErr, csErr)
		return
	case csErr != nil && !vb.more:
		t.Errorf("the package does what cryptsetup refuses (%v: %s)", csErr, strings.TrimSpace(out))
	case csErr != nil:
		t.Logf("cryptsetup refuses (%s); the package does it", strings.TrimSpace(out))
	}
	if reason != "" && csErr == nil {
		t.Errorf("the package was expected to refuse (%s) but did it", reason)
	}
	got, _ := ours.opens(t, passes)
	want := vb.want(im, before)
	for _, p := range passes {
		if got[p] != want[p] {
			t.Errorf("afterwards %q opens keyslot %d in the package, want %d", p, got[p], want[p])
		}
	}
	var sub []string // the image is unchanged after a backup
	if vb.name != "header-backup" {
		sub = csSubset(passes, before, want)
	}
	csGot := ours.csOpens(t, sub)
	for _, p := range sub {
		if csGot[p] != got[p] {
			t.Errorf("afterwards %q opens keyslot %d in cryptsetup, %d in the package", p, csGot[p], got[p])
		}
	}
	if csErr != nil {
		return
	}
	theirsGot, _ := theirs.opens(t, passes)
	for _, p := range passes {
		if (theirsGot[p] >= 0) != (got[p] >= 0) || im.v.version == 2 && theirsGot[p] != got[p] {
			t.Errorf("%q opens keyslot %d in the package's result, %d in cryptsetup's", p, got[p], theirsGot[p])
		}
	}
	if vb.same != nil {
		vb.same(t, ours, theirs)
	}
}

// mask zeroes the salt and checksum of both LUKS2 header copies in a
// backup of v's layout.
func mask(b []byte, v variant) {
	h, err := ReadHeader(bytes.NewReader(b))
	if err != nil {
		return
	}
	for _, off := range []uint64{0, h.HeaderSize} {
		if off+binHeaderSize <= uint64(len(b)) {
			clear(b[off+offSalt : off+offSalt+64])
			clear(b[off+offCsum : off+offCsum+csumLen])
		}
	}
}

// TestConvertRefusesBeforeWriting: a LUKS1 header whose conversion needs
// slot 0's material moved but whose result LUKS2 cannot describe (slot
// 7's material ends in the last, partial 4096-byte block before the
// data, which the LUKS2 keyslots area cannot cover) is refused before
// anything is written: the bytes stay as they were. (Convert used to
// swap slot 0's place first and find out afterwards.)
func TestConvertRefusesBeforeWriting(t *testing.T) {
	img := pkgBase(t, CreateOptions{Version: 1}, map[int]string{7: "seven"})
	h := must(ReadHeader(bytes.NewReader(img)))
	k7, _ := h.Keyslot(7)
	end := k7.Area.Offset + k7.Area.Size
	if end%keyslotAlign == 0 {
		end += luks1SectorSize
	}
	phdrEdit(func(p *luks1Phdr) { p.payloadOffset = uint32(end / luks1SectorSize) })(t, img)
	before := bytes.Clone(img)
	dev := &writerAtBuffer{bytes.NewBuffer(img)}
	h, err := ReadHeader(dev)
	if err != nil {
		t.Fatal(err)
	}
	err = h.Convert(dev, 2)
	if err == nil {
		t.Fatal("Convert made a LUKS2 header of a layout it cannot describe")
	}
	if !bytes.Equal(dev.b.Bytes(), before) {
		t.Fatalf("Convert refused (%v) after writing", err)
	}
	t.Log(err)
}

// TestConvertMovePowerLoss: converting a LUKS1 header with every slot in
// use (256-bit keys: room after slot 7's material) moves slot 0's
// material to that room in one phdr write; a power loss at any point of
// the conversion leaves an image every passphrase opens.
func TestConvertMovePowerLoss(t *testing.T) {
	extra := map[int]string{}
	passes := []string{"zero"}
	for i := 1; i < l1NumKeyslots; i++ {
		extra[i] = fmt.Sprint("pass-", i)
		passes = append(passes, extra[i])
	}
	if testing.Short() {
		// Slots 6 and 7, free, have their entries in the phdr's second
		// sector: slot 0 cannot swap with them and moves all the same.
		t.Log("-short: slots 0 to 5 in use instead of all eight (fewer unlocks per crash state)")
		delete(extra, 6)
		delete(extra, 7)
		passes = passes[:6]
	}
	base := pkgBase(t, CreateOptions{Version: 1, KeyBits: 256}, extra)
	final := checkPowerLoss(t, powerLossCase{base: base, sets: [][]string{passes}, final: 0,
		op: func(d *writeLog) error { return must(ReadHeader(d)).Convert(d, 2) }})
	h := must(ReadHeader(bytes.NewReader(final)))
	k0, _ := h.Keyslot(0)
	if h.Version != 2 || k0.Area.Offset < 2*luks2MetadataSize {
		t.Fatalf("version %d, keyslot 0 at %d", h.Version, k0.Area.Offset)
	}
}

// TestVerbsPowerLossOnVariants: convert, header-restore and change-key
// on unusual cryptsetup layouts (64 KiB and 1 MiB header copies, a data
// offset not the default, keyslot 31, LUKS1 payload alignment 1 and
// 512-bit keys, a damaged primary or secondary copy): a power loss after any prefix of the writes, or within
// one (torn 512-byte sectors), leaves an image that opens with every
// passphrase before the verb or every one after it, in the package (every
// state) and in cryptsetup (every state between writes, one torn state
// in 64 unless -short).
func TestVerbsPowerLossOnVariants(t *testing.T) {
	needCryptsetup(t)
	byName := map[string]variant{}
	for _, v := range variants() {
		byName[v.name] = v
	}
	changeFrom := func(old string) func(im *varImage, d *writeLog) error {
		return func(im *varImage, d *writeLog) error {
			_, err := must(ReadHeader(d)).ChangeKey(d, []byte(old), []byte(newPass), AnyKeyslot, fastKDF["pbkdf2"])
			return err
		}
	}
	convert := func(im *varImage, d *writeLog) error { h := must(ReadHeader(d)); return h.Convert(d, 3-h.Version) }
	restore := func(im *varImage, d *writeLog) error {
		_, err := RestoreHeader(d, openFile(t, im.bak), false)
		return err
	}
	// Before a restore, cryptsetup kills keyslot 1 and adds "late"
	// there (LUKS2: its area is where the backup's keyslot 1 lies), or
	// (LUKS1, a damaged copy: damaged again after cryptsetup repaired
	// it) adds "late" to keyslot 2.
	cases := []struct {
		variant, verb string
		op            func(im *varImage, d *writeLog) error
		sets          [][]string
		short         bool
	}{
		{"l2-meta64k", "change-key", changeFrom("one"), [][]string{{"zero", "one"}, {"zero", newPass}}, true},
		{"l2-meta1m", "convert", convert, [][]string{{"zero", "one"}}, false},
		{"l2-meta1m", "header-restore", restore, [][]string{{"zero", "late"}, {"zero", "one"}}, false},
		{"l2-offset", "header-restore", restore, [][]string{{"zero", "late"}, {"zero", "one"}}, false},
		{"l2-many-keyslots", "change-key", changeFrom("thirty-one"), [][]string{{"zero", "thirty-one"}, {"zero", newPass}}, false},
		{"l1-align-1", "convert", convert, [][]string{{"zero", "one", "seven"}}, true},
		{"l1-512", "header-restore", restore, [][]string{{"zero", "one", "late"}, {"zero", "one"}}, false},
		// A damaged copy is repaired (both copies made current) first.
		{"l2-secondary-damaged", "convert", convert, [][]string{{"zero", "one"}}, false},
		{"l2-primary-damaged", "convert", convert, [][]string{{"zero", "one"}}, false},
		{"l2-primary-damaged", "change-key", changeFrom("one"), [][]string{{"zero", "one"}, {"zero", newPass}}, false},
		{"l2-primary-damaged", "header-restore", restore, [][]string{{"zero", "one", "late"}, {"zero", "one"}}, false},
	}
	if testing.Short() {
		t.Log("-short: two of the cases (l2-meta64k change-key, l1-align-1 convert); the full run has all of them")
	}
	for _, c := range cases {
		if testing.Short() && !c.short {
			continue
		}
		t.Run(c.variant+"/"+c.verb, func(t *testing.T) {
			t.Parallel()
			im := makeVariant(t, byName[c.variant])
			w := im.copyTo(t)
			if c.verb == "header-restore" {
				im.bak = im.backupOf(t)
				args := w.csArgs()
				if c.variant[:2] == "l2" && !im.v.damaged() {
					cs(t, append(append([]string{"luksKillSlot", "--batch-mode"}, args...), "1")...)
					cs(t, append(append(append([]string{"luksAddKey", "--batch-mode", "-S", "1", "--key-file", w.passFile("zero")}, fastPBKDF2...), args...), w.passFile("late"))...)
				} else {
					cs(t, append(append(append([]string{"luksAddKey", "--batch-mode", "-S", "2", "--key-file", w.passFile("zero")}, fastPBKDF2...), args...), w.passFile("late"))...)
				}
				if im.v.damaged() {
					im.v.setup(t, w) // cryptsetup repaired it: damage it again
				}
			}
			f := openFile(t, w.img)
			v, err := Open(f, []byte("zero"), nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := v.WriteAt(plainAt, 0); err != nil {
				t.Fatal(err)
			}
			v.Close()
			base, err := os.ReadFile(w.img)
			if err != nil {
				t.Fatal(err)
			}
			final := len(c.sets) - 1
			checkPowerLoss(t, powerLossCase{base: base, sets: c.sets, final: final, csEvery: 64,
				op: func(d *writeLog) error { return c.op(im, d) }})
		})
	}
}

// TestRestoreRefusesBeforeWriting: a restore refused because a keyslot
// of the backup lies where the device's header has another one (LUKS1:
// keyslots cannot move; LUKS2 with room for two keyslots: no free place
// for an intermediate header) writes nothing, although another keyslot
// of the backup (killed on the device since, its area wiped) lies where
// the device keeps nothing. (RestoreHeader used to write that one
// first, then refuse.) With force it restores, and the backup's
// passphrases open.
func TestRestoreRefusesBeforeWriting(t *testing.T) {
	needCryptsetup(t)
	byName := map[string]variant{}
	for _, v := range variants() {
		byName[v.name] = v
	}
	for _, name := range []string{"l1-256", "l2-keyslots-tight"} {
		t.Run(name, func(t *testing.T) {
			im := makeVariant(t, byName[name])
			bak := im.backupOf(t)
			c := im.copyTo(t)
			add := func(slot int, auth, pass string) {
				cs(t, append(append(append([]string{"luksAddKey", "--batch-mode", "-S", strconv.Itoa(slot), "--key-file", c.passFile(auth)}, fastPBKDF2...), c.csArgs()...), c.passFile(pass))...)
			}
			kill := func(slot int) {
				cs(t, append(append([]string{"luksKillSlot", "--batch-mode"}, c.csArgs()...), strconv.Itoa(slot))...)
			}
			// The device afterwards: keyslot 0 killed (its area wiped),
			// keyslot 1's area holding another keyslot.
			if im.v.version == 1 {
				add(2, "zero", "late")
				kill(0)
				kill(1)
				add(1, "late", newPass) // slot 1's place again
			} else {
				kill(1)
				add(2, "zero", "late") // in keyslot 1's area, the only free one
				kill(0)
			}
			before := takeSnapshot(t, c.img)
			f := openFile(t, c.headerDev())
			_, err := RestoreHeader(f, openFile(t, bak), false)
			if err == nil || !strings.Contains(err.Error(), "with force") {
				t.Fatalf("RestoreHeader: %v", err)
			}
			if !before.same(t, c.img) {
				t.Fatalf("RestoreHeader refused (%v) after writing", err)
			}
			if _, err := RestoreHeader(f, openFile(t, bak), true); err != nil {
				t.Fatalf("RestoreHeader with force: %v", err)
			}
			got, _ := c.opens(t, []string{"zero", "one", "late", newPass})
			if got["zero"] != 0 || got["one"] != 1 || got["late"] != -1 || got[newPass] != -1 {
				t.Fatalf("after the forced restore: %v", got)
			}
		})
	}
}
