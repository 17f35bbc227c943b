package luks

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The passphrases of the key-verb test images: keyslots 0, 1 and 2, and
// (images cryptsetup made, LUKS2) an unbound keyslot 5 with a token
// naming keyslot 1.
var keyPasses = []string{"zero", "one", "two"}

const (
	unboundPass = "unbound"
	newPass     = "changed"
)

// allPasses is every passphrase a key-verb test asks about.
var allPasses = append(slices.Clone(keyPasses), unboundPass, newPass)

// keyTemplate makes an image with keyslots 0, 1 and 2 for keyPasses:
// with cryptsetup (luksFormat and luksAddKey; LUKS2 also gets the
// unbound keyslot 5 and a token naming keyslot 1) or with the package.
func keyTemplate(t *testing.T, version int, byCryptsetup bool) string {
	t.Helper()
	dir := t.TempDir()
	img := filepath.Join(dir, "template")
	if byCryptsetup {
		needCryptsetup(t)
		size := int64(4 << 20)
		if version == 2 {
			size = 17 << 20
		}
		writeFile(t, img, nil)
		if err := os.Truncate(img, size); err != nil {
			t.Fatal(err)
		}
		cs(t, append(append([]string{"luksFormat", "--batch-mode", "--type", "luks" + strconv.Itoa(version), "--key-file", passFile(t, dir, "zero")}, fastPBKDF2...), img)...)
		for i, p := range keyPasses[1:] {
			cs(t, append(append([]string{"luksAddKey", "--batch-mode", "-S", strconv.Itoa(i + 1), "--key-file", passFile(t, dir, "zero")}, fastPBKDF2...), img, passFile(t, dir, p))...)
		}
		if version == 2 {
			cs(t, append(append([]string{"luksAddKey", "--batch-mode", "--unbound", "-s", "256", "-S", "5", "--key-file", passFile(t, dir, "zero")}, fastPBKDF2...), img, passFile(t, dir, unboundPass))...)
			tok := filepath.Join(dir, "token.json")
			writeFile(t, tok, []byte(`{"type":"test-token","keyslots":["1"],"note":"kept"}`))
			cs(t, "token", "import", "--batch-mode", "--json-file", tok, "--token-id", "3", img)
		}
		return img
	}
	f, err := os.Create(img)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, key, err := Create(f, []byte("zero"), &CreateOptions{Version: version, KDF: fastKDF["pbkdf2"]})
	if err != nil {
		t.Fatal(err)
	}
	defer clear(key)
	for i, p := range keyPasses[1:] {
		if _, err := h.AddKey(f, key, []byte(p), i+1, fastKDF["pbkdf2"]); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Truncate(int64(h.Segments[0].Offset) + 64<<10); err != nil {
		t.Fatal(err)
	}
	return img
}

// passFile returns a file in dir holding pass.
func passFile(t testing.TB, dir, pass string) string {
	t.Helper()
	p := filepath.Join(dir, "pass-"+pass)
	if _, err := os.Stat(p); err != nil {
		writeFile(t, p, []byte(pass))
	}
	return p
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, to, b)
}

// pkgOpens maps each passphrase to the keyslot it opens in the package,
// counting, as cryptsetup open does, only keyslots bound to the data
// segment; -1 for none.
func pkgOpens(t *testing.T, path string, passes []string) map[string]int {
	t.Helper()
	f := openFile(t, path)
	h, err := ReadHeader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string]int{}
	for _, p := range passes {
		out[p] = -1
		key, id, err := h.Unlock(f, []byte(p), AnyKeyslot)
		clear(key)
		switch {
		case err == nil && h.Bound(id):
			out[p] = id
		case err != nil && !errors.Is(err, ErrNoKey):
			t.Fatalf("%s: Unlock(%q): %v", path, p, err)
		}
	}
	return out
}

var unlockedRE = regexp.MustCompile(`Key slot (\d+) unlocked`)

// csOpens is pkgOpens by cryptsetup open --test-passphrase.
func csOpens(t *testing.T, path string, passes []string) map[string]int {
	t.Helper()
	return csOpensArgs(t, t.TempDir(), passes, []string{path})
}

// csOpensArgs is csOpens of the image that args (the device, after
// --header HDR for a detached header) name, its key files made in dir.
func csOpensArgs(t *testing.T, dir string, passes, args []string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, p := range passes {
		o, err := csRun(append([]string{"open", "--test-passphrase", "--batch-mode", "-v", "--key-file", passFile(t, dir, p)}, args...)...)
		out[p] = -1
		if err != nil {
			// With an unbound keyslot tried last, cryptsetup says "No
			// usable keyslot is available." instead.
			if !strings.Contains(o, "No key available") && !strings.Contains(o, "No usable keyslot is available") {
				t.Fatalf("cryptsetup open --test-passphrase %v with %q: %v\n%s", args, p, err, o)
			}
			continue
		}
		m := unlockedRE.FindStringSubmatch(o)
		if m == nil {
			t.Fatalf("cryptsetup open --test-passphrase -v: no keyslot named:\n%s", o)
		}
		out[p], _ = strconv.Atoi(m[1])
	}
	return out
}

// keyState is what the key-verb tests compare between the package's and
// cryptsetup's results: keyslot ids in use, digests with their keyslots
// and segments, tokens with their keyslots.
func keyState(t *testing.T, path string) string {
	t.Helper()
	f := openFile(t, path)
	h, err := ReadHeader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var b strings.Builder
	fmt.Fprint(&b, "keyslots")
	for _, k := range h.Keyslots {
		if k.Active {
			fmt.Fprintf(&b, " %d", k.ID)
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

// areaSectors returns the 512-byte sectors of keyslot id's key material.
func areaSectors(t *testing.T, path string, id int) (off int64, sectors [][]byte) {
	t.Helper()
	f := openFile(t, path)
	h, err := ReadHeader(f)
	if err != nil {
		t.Fatal(err)
	}
	k, ok := h.Keyslot(id)
	if !ok {
		t.Fatalf("no keyslot %d", id)
	}
	b := make([]byte, roundUp(uint64(k.KeySize)*uint64(k.AF.Stripes), 512))
	if _, err := f.ReadAt(b, int64(k.Area.Offset)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(b); i += 512 {
		sectors = append(sectors, b[i:i+512])
	}
	return int64(k.Area.Offset), sectors
}

// checkWiped checks that no 512-byte sector of the material that was at
// off is still there.
func checkWiped(t *testing.T, path string, off int64, was [][]byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range was {
		at := off + int64(i)*512
		if bytes.Equal(b[at:at+512], s) {
			t.Fatalf("sector %d of the removed keyslot's material (at %d) is still there", i, at)
		}
	}
}

// keyVerb is one key verb, done by the package and by cryptsetup.
type keyVerb struct {
	name string
	pkg  func(h *Header, f *os.File) (int, error)
	cs   func(kf func(pass string) string, img string) []string // cryptsetup's arguments; kf names a key file
	// gone are the keyslots whose material must be wiped; want maps each
	// passphrase to the keyslot it opens afterwards (-1: none) in the
	// package's result, csWant in cryptsetup's where it differs.
	gone   []int
	want   map[string]int
	csWant map[string]int
	id     int  // what the package's verb returns
	luks2  bool // only on images with the unbound keyslot
}

func keyVerbs(version int) []keyVerb {
	changed := 1 // LUKS2: the keyslot keeps its id; LUKS1: the lowest free one
	if version == 1 {
		changed = 3
	}
	return []keyVerb{
		{name: "kill-slot", id: 1,
			pkg: func(h *Header, f *os.File) (int, error) { return 1, h.KillSlot(f, 1) },
			cs: func(kf func(string) string, img string) []string {
				return []string{"luksKillSlot", "--batch-mode", img, "1"}
			},
			gone: []int{1}, want: map[string]int{"zero": 0, "one": -1, "two": 2}},
		{name: "remove-key", id: 2,
			pkg: func(h *Header, f *os.File) (int, error) { return h.RemoveKey(f, []byte("two")) },
			cs: func(kf func(string) string, img string) []string {
				return []string{"luksRemoveKey", "--batch-mode", "--key-file", kf("two"), img}
			},
			gone: []int{2}, want: map[string]int{"zero": 0, "one": 1, "two": -1}},
		{name: "change-key", id: changed,
			pkg: func(h *Header, f *os.File) (int, error) {
				return h.ChangeKey(f, []byte("one"), []byte(newPass), AnyKeyslot, fastKDF["pbkdf2"])
			},
			cs: func(kf func(string) string, img string) []string {
				return append([]string{"luksChangeKey", "--batch-mode", "--key-file", kf("one"), img, kf(newPass)}, fastPBKDF2...)
			},
			gone: []int{1}, want: map[string]int{"zero": 0, "one": -1, "two": 2, newPass: changed}},
		{name: "change-key-slot-0", id: changed - 1 + boolInt(version == 1),
			pkg: func(h *Header, f *os.File) (int, error) {
				return h.ChangeKey(f, []byte("zero"), []byte(newPass), 0, fastKDF["pbkdf2"])
			},
			cs: func(kf func(string) string, img string) []string {
				return append([]string{"luksChangeKey", "--batch-mode", "-S", "0", "--key-file", kf("zero"), img, kf(newPass)}, fastPBKDF2...)
			},
			// LUKS1: cryptsetup rewrites slot 0 in place; the package
			// puts the new key in slot 3.
			gone: []int{0}, want: map[string]int{"zero": -1, "one": 1, "two": 2, newPass: map[int]int{1: 3, 2: 0}[version]},
			csWant: map[string]int{"zero": -1, "one": 1, "two": 2, newPass: 0}},
		{name: "erase", id: -1,
			pkg:  func(h *Header, f *os.File) (int, error) { return -1, h.Erase(f) },
			cs:   func(kf func(string) string, img string) []string { return []string{"luksErase", "--batch-mode", img} },
			gone: []int{0, 1, 2}, want: map[string]int{"zero": -1, "one": -1, "two": -1}},
		{name: "kill-unbound", id: 5, luks2: true,
			pkg: func(h *Header, f *os.File) (int, error) { return 5, h.KillSlot(f, 5) },
			cs: func(kf func(string) string, img string) []string {
				return []string{"luksKillSlot", "--batch-mode", img, "5"}
			},
			gone: []int{5}, want: map[string]int{"zero": 0, "one": 1, "two": 2}},
		{name: "change-unbound", id: 5, luks2: true,
			pkg: func(h *Header, f *os.File) (int, error) {
				return h.ChangeKey(f, []byte(unboundPass), []byte(newPass), AnyKeyslot, fastKDF["pbkdf2"])
			},
			cs: func(kf func(string) string, img string) []string {
				return append([]string{"luksChangeKey", "--batch-mode", "--key-file", kf(unboundPass), img, kf(newPass)}, fastPBKDF2...)
			},
			gone: []int{5}, want: map[string]int{"zero": 0, "one": 1, "two": 2}},
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestKeyVerbsMatchCryptsetup runs each key verb with the package on one
// copy of an image and with cryptsetup on another (LUKS1 and LUKS2,
// images cryptsetup made and images the package made): cryptsetup and
// the package agree about which passphrase opens which keyslot in the
// package's result, cryptsetup's own result has the same keyslots,
// digests and tokens (and the same passphrases open, but where the
// package is documented to differ), and every sector of a removed
// keyslot's material is overwritten.
func TestKeyVerbsMatchCryptsetup(t *testing.T) {
	needCryptsetup(t)
	type source struct {
		name         string
		version      int
		byCryptsetup bool
	}
	sources := []source{{"cryptsetup-luks2", 2, true}, {"cryptsetup-luks1", 1, true}, {"package-luks2", 2, false}, {"package-luks1", 1, false}}
	if testing.Short() {
		t.Log("-short: images cryptsetup made only (the package's own images in the full run)")
		sources = sources[:2]
	}
	for _, src := range sources {
		t.Run(src.name, func(t *testing.T) {
			template := keyTemplate(t, src.version, src.byCryptsetup)
			for _, v := range keyVerbs(src.version) {
				if v.luks2 && !(src.version == 2 && src.byCryptsetup) {
					continue
				}
				t.Run(v.name, func(t *testing.T) {
					dir := t.TempDir()
					ours, theirs := filepath.Join(dir, "ours"), filepath.Join(dir, "theirs")
					copyFile(t, template, ours)
					copyFile(t, template, theirs)
					type material struct {
						off     int64
						sectors [][]byte
					}
					var old []material
					for _, id := range v.gone {
						off, s := areaSectors(t, ours, id)
						old = append(old, material{off, s})
					}
					f, err := os.OpenFile(ours, os.O_RDWR, 0)
					if err != nil {
						t.Fatal(err)
					}
					h, err := ReadHeader(f)
					if err != nil {
						t.Fatal(err)
					}
					id, err := v.pkg(h, f)
					f.Close()
					if err != nil || id != v.id {
						t.Fatalf("package: keyslot %d, %v; want %d", id, err, v.id)
					}
					kf := func(p string) string { return passFile(t, dir, p) }
					if out, err := csRun(v.cs(kf, theirs)...); err != nil {
						t.Fatalf("cryptsetup %v: %v\n%s", v.cs(kf, theirs), err, out)
					}
					cs(t, "luksDump", ours)
					if got, want := keyState(t, ours), keyState(t, theirs); got != want && v.csWant == nil {
						t.Fatalf("the package leaves\n  %s\ncryptsetup\n  %s", got, want)
					}
					pkg, csOurs, csTheirs := pkgOpens(t, ours, allPasses), csOpens(t, ours, allPasses), csOpens(t, theirs, allPasses)
					for _, p := range allPasses {
						want, ok := v.want[p]
						if !ok {
							want = -1
						}
						csWant := want
						if w, ok := v.csWant[p]; ok {
							csWant = w
						}
						if pkg[p] != want || csOurs[p] != want || csTheirs[p] != csWant {
							t.Errorf("passphrase %q opens keyslot %d in the package, %d in cryptsetup; %d in cryptsetup's own result; want %d (cryptsetup's %d)",
								p, pkg[p], csOurs[p], csTheirs[p], want, csWant)
						}
					}
					for _, m := range old {
						checkWiped(t, ours, m.off, m.sectors)
					}
					if v.luks2 && v.name == "change-unbound" {
						g := openFile(t, ours)
						hh, _ := ReadHeader(g)
						if _, got, err := hh.Unlock(g, []byte(newPass), 5); err != nil || got != 5 || hh.Bound(5) {
							t.Fatalf("the changed unbound keyslot: %d, %v, bound %v", got, err, hh.Bound(5))
						}
					}
				})
			}
		})
	}
}

// powerLossVerb is a key verb on the in-memory image of
// TestKeyVerbsPowerLoss (keyslots 0, 1, 2 for keyPasses) and what its
// writes do, phase by phase: after dropAt writes the removed passphrase
// no longer opens, after addAt the new one opens.
type powerLossVerb struct {
	name          string
	do            func(h *Header, dev ReadWriterAt) error
	removed       []string
	writes        [3]int // LUKS1, LUKS2 (index by version)
	dropAt, addAt [3]int
	newSlot       [3]int
}

var powerLossVerbs = []powerLossVerb{
	{name: "kill-slot", removed: []string{"one"}, writes: [3]int{1: 2, 2: 3}, dropAt: [3]int{1: 1, 2: 1},
		do: func(h *Header, dev ReadWriterAt) error { return h.KillSlot(dev, 1) }},
	{name: "remove-key", removed: []string{"two"}, writes: [3]int{1: 2, 2: 3}, dropAt: [3]int{1: 1, 2: 1},
		do: func(h *Header, dev ReadWriterAt) error { _, err := h.RemoveKey(dev, []byte("two")); return err }},
	// change-key: keyslot material, then LUKS2 both header copies or
	// LUKS1 a header that adds the slot and one that drops the old.
	{name: "change-key", removed: []string{"one"}, writes: [3]int{1: 4, 2: 4}, dropAt: [3]int{1: 3, 2: 2}, addAt: [3]int{1: 2, 2: 2},
		newSlot: [3]int{1: 3, 2: 1},
		do: func(h *Header, dev ReadWriterAt) error {
			_, err := h.ChangeKey(dev, []byte("one"), []byte(newPass), AnyKeyslot, fastKDF["pbkdf2"])
			return err
		}},
	{name: "erase", removed: keyPasses, writes: [3]int{1: 4, 2: 5}, dropAt: [3]int{1: 1, 2: 1},
		do: func(h *Header, dev ReadWriterAt) error { return h.Erase(dev) }},
}

// TestKeyVerbsPowerLoss: a power loss at any point of a key verb (after
// any prefix of its writes, or within a write, some of its 512-byte
// sectors written and not the others) leaves an image whose header reads
// and that every passphrase not being removed opens, in its own keyslot;
// for change-key the old or the new passphrase opens at every point.
// Phase by phase (after whole writes): the removed passphrase opens until
// the header without it is written and never after; the new one opens
// from the header that adds it on. cryptsetup agrees at every phase.
func TestKeyVerbsPowerLoss(t *testing.T) {
	_, csErr := exec.LookPath("cryptsetup")
	for _, version := range []int{1, 2} {
		for _, v := range powerLossVerbs {
			t.Run(fmt.Sprintf("luks%d/%s", version, v.name), func(t *testing.T) {
				var b bytes.Buffer
				dev := &writeLog{writerAtBuffer: &writerAtBuffer{&b}}
				h, key, err := Create(dev, []byte("zero"), &CreateOptions{Version: version, KDF: fastKDF["pbkdf2"]})
				if err != nil {
					t.Fatal(err)
				}
				for i, p := range keyPasses[1:] {
					if _, err := h.AddKey(dev, key, []byte(p), i+1, fastKDF["pbkdf2"]); err != nil {
						t.Fatal(err)
					}
				}
				dev.WriteAt(make([]byte, 4096), int64(h.Segments[0].Offset))
				base := bytes.Clone(b.Bytes())
				dev.writes = nil
				if err := v.do(h, dev); err != nil {
					t.Fatal(err)
				}
				if len(dev.writes) != v.writes[version] {
					t.Fatalf("%d writes, want %d", len(dev.writes), v.writes[version])
				}
				path := filepath.Join(t.TempDir(), "img")
				f, err := os.Create(path)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				f.Write(base)
				img := bytes.Clone(base)
				memo := map[string]map[string]int{}
				for _, st := range crashStates(dev.writes) {
					st.apply(img)
					n, whole := len(st.landed), strings.HasPrefix(st.name, "after")
					want := map[string]int{}
					for i, p := range keyPasses {
						want[p] = i
						if slices.Contains(v.removed, p) && n >= v.dropAt[version] {
							want[p] = -1
						}
					}
					want[newPass] = -1
					if v.addAt[version] > 0 && n >= v.addAt[version] {
						want[newPass] = v.newSlot[version]
					}
					// A tear inside a header write leaves the keyslot
					// areas as the writes before it left them: the
					// result is known once that header has been seen.
					hh, err := ReadHeader(bytes.NewReader(img))
					if err != nil {
						t.Fatalf("%s: ReadHeader: %v", st.name, err)
					}
					memoKey := fmt.Sprint(n, whole, hh.Seqid, string(hh.JSON), hh.onDisk)
					headerWrite := n < len(dev.writes) && (dev.writes[n].off == 0 || version == 2 && dev.writes[n].off == hh.HeaderSize)
					got, seen := memo[memoKey]
					if !seen || !headerWrite {
						got = memOpens(t, st.name, img, whole, v.removed, v.newSlot[version])
						memo[memoKey] = got
					}
					for p, w := range want {
						g, asked := got[p]
						if !asked {
							continue
						}
						if whole && g != w || !whole && !slices.Contains(v.removed, p) && p != newPass && g != w {
							t.Fatalf("%s: passphrase %q opens keyslot %d, want %d", st.name, p, g, w)
						}
					}
					if v.addAt[version] > 0 && got["one"] < 0 && got[newPass] < 0 {
						t.Fatalf("%s: neither the old nor the new passphrase opens", st.name)
					}
					if whole && csErr == nil && !testing.Short() {
						syncWrites(f, img, dev.writes)
						if cso := csOpens(t, path, allPasses[:len(keyPasses)]); !mapsEqual(cso, want, keyPasses) {
							t.Fatalf("%s: cryptsetup opens %v, want %v", st.name, cso, want)
						}
					}
					undoWrites(img, base, dev.writes)
				}
			})
		}
	}
	if testing.Short() {
		t.Log("-short: the phases checked by the package only (cryptsetup too in the full run)")
	}
}

func mapsEqual(a, b map[string]int, keys []string) bool {
	for _, k := range keys {
		if a[k] != b[k] {
			return false
		}
	}
	return true
}

// memOpens reads the header of img and maps passphrases to the keyslot
// each opens (-1: none): every passphrase when all is set, else those not
// in removed, each tried in its own keyslot only (fast), and, for
// change-key, "one" in keyslot 1 and the new one in newSlot.
func memOpens(t *testing.T, name string, img []byte, all bool, removed []string, newSlot int) map[string]int {
	t.Helper()
	r := bytes.NewReader(img)
	h, err := ReadHeader(r)
	if err != nil {
		t.Fatalf("%s: ReadHeader: %v", name, err)
	}
	out := map[string]int{}
	try := func(p string, slot int) {
		key, id, err := h.Unlock(r, []byte(p), slot)
		clear(key)
		out[p] = id
		if err != nil && !errors.Is(err, ErrNoKey) && !strings.Contains(err.Error(), "not active") {
			t.Fatalf("%s: Unlock(%q): %v", name, p, err)
		}
	}
	for i, p := range keyPasses {
		switch {
		case all:
			try(p, AnyKeyslot)
		case !slices.Contains(removed, p):
			try(p, i)
		}
	}
	switch {
	case all:
		try(newPass, AnyKeyslot)
	case newSlot > 0:
		try(newPass, newSlot)
		try("one", 1)
	}
	return out
}

// TestKeyVerbRefusals: a key verb that is refused writes nothing: the
// image bytes and the caller's Header stay as they were.
func TestKeyVerbRefusals(t *testing.T) {
	l2, l1 := craftBase(t)
	full := func(t *testing.T, img []byte) { // LUKS1 with all 8 slots in use
		dev := &writerAtBuffer{bytes.NewBuffer(img)}
		h, err := ReadHeader(dev)
		if err != nil {
			t.Fatal(err)
		}
		key, _, err := h.Unlock(dev, []byte("zero"), 0)
		if err != nil {
			t.Fatal(err)
		}
		for i := 2; i < 8; i++ {
			if _, err := h.AddKey(dev, key, []byte("more"), i, fastKDF["pbkdf2"]); err != nil {
				t.Fatal(err)
			}
		}
	}
	stale := func(h *Header, dev ReadWriterAt) error { // another Header changes the image first
		other, err := ReadHeader(dev)
		if err != nil {
			return err
		}
		if err := other.KillSlot(dev, 1); err != nil {
			return err
		}
		return h.KillSlot(dev, 0)
	}
	change := func(old string, slot int) func(h *Header, dev ReadWriterAt) error {
		return func(h *Header, dev ReadWriterAt) error {
			_, err := h.ChangeKey(dev, []byte(old), []byte(newPass), slot, fastKDF["pbkdf2"])
			return err
		}
	}
	kill := func(id int) func(h *Header, dev ReadWriterAt) error {
		return func(h *Header, dev ReadWriterAt) error { return h.KillSlot(dev, id) }
	}
	remove := func(pass string) func(h *Header, dev ReadWriterAt) error {
		return func(h *Header, dev ReadWriterAt) error { _, err := h.RemoveKey(dev, []byte(pass)); return err }
	}
	cases := []struct {
		name    string
		img     []byte
		edit    func(t *testing.T, img []byte)
		verb    func(h *Header, dev ReadWriterAt) error
		is      error
		message string
	}{
		{"luks2-kill-inactive", l2, nil, kill(5), ErrInactiveKeyslot, "keyslot 5"},
		{"luks1-kill-inactive", l1, nil, kill(5), ErrInactiveKeyslot, "keyslot 5"},
		{"luks2-kill-32", l2, nil, kill(32), nil, "out of range (0 to 31)"},
		{"luks1-kill-8", l1, nil, kill(8), nil, "out of range (0 to 7)"},
		{"luks2-kill-negative", l2, nil, kill(-1), nil, "out of range"},
		{"luks2-remove-wrong", l2, nil, remove("wrong"), ErrNoKey, ""},
		{"luks1-remove-wrong", l1, nil, remove("wrong"), ErrNoKey, ""},
		{"luks2-change-wrong", l2, nil, change("wrong", AnyKeyslot), ErrNoKey, ""},
		{"luks1-change-wrong", l1, nil, change("wrong", AnyKeyslot), ErrNoKey, ""},
		{"luks2-change-other-slot", l2, nil, change("one", 0), ErrNoKey, ""},
		{"luks2-change-inactive", l2, nil, change("one", 4), ErrInactiveKeyslot, ""},
		{"luks1-change-inactive", l1, nil, change("one", 4), ErrInactiveKeyslot, ""},
		{"luks1-kill-odd-state", l1, phdrEdit(func(p *luks1Phdr) { p.slots[1].state = 7 }), kill(1), nil, "neither enabled nor disabled"},
		{"luks1-change-odd-state", l1, phdrEdit(func(p *luks1Phdr) { p.slots[1].state = 7 }), change("one", 1), nil, "neither enabled nor disabled"},
		{"luks1-change-no-free-slot", l1, full, change("one", AnyKeyslot), nil, "no free LUKS1 keyslot"},
		{"luks2-change-no-room", smallLUKS2(t), nil, change("p", AnyKeyslot), nil, "no room for the new keyslot"},
		{"luks2-requirement", l2, jsonEdit(set(p("config", "requirements"), map[string]any{"mandatory": []any{"x-future"}})), kill(1), ErrUnsupported, "x-future"},
		{"luks2-requirement-erase", l2, jsonEdit(set(p("config", "requirements"), map[string]any{"mandatory": []any{"x-future"}})), func(h *Header, dev ReadWriterAt) error { return h.Erase(dev) }, ErrUnsupported, ""},
		{"luks2-stale-header", l2, nil, stale, nil, "changed since it was read"},
		{"luks1-stale-header", l1, nil, stale, nil, "changed since it was read"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			img := bytes.Clone(tc.img)
			if tc.edit != nil {
				tc.edit(t, img)
			}
			dev := &writerAtBuffer{bytes.NewBuffer(img)}
			h, err := ReadHeader(dev)
			if err != nil {
				t.Fatal(err)
			}
			before, snapshot := bytes.Clone(img), fmt.Sprintf("%+v", *h)
			err = tc.verb(h, dev)
			if strings.HasSuffix(tc.name, "stale-header") {
				// The other Header's change is on the image; h's must not be.
				before = nil
				if after, rerr := ReadHeader(dev); rerr != nil || keyIDs(after) != "[0]" {
					t.Fatalf("after the refusal: keyslots %s, %v; want [0]", keyIDs(after), rerr)
				}
			}
			if err == nil || tc.is != nil && !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.message) {
				t.Fatalf("got %v; want %v %q", err, tc.is, tc.message)
			}
			if before != nil && !bytes.Equal(dev.b.Bytes(), before) {
				t.Fatal("the refused verb changed the image")
			}
			if fmt.Sprintf("%+v", *h) != snapshot {
				t.Fatal("the refused verb changed the caller's Header")
			}
		})
	}
}

func keyIDs(h *Header) string {
	ids := []int{}
	if h == nil {
		return "none"
	}
	for _, k := range h.Keyslots {
		if k.Active {
			ids = append(ids, k.ID)
		}
	}
	return fmt.Sprint(ids)
}

// TestEraseLUKS1OddSlot: luksErase of a LUKS1 image with a slot whose
// state is neither enabled nor disabled leaves the same header as
// cryptsetup's own luksErase (that slot's state and fields kept, every
// other slot disabled with zero iterations and salt); the package also
// wipes that slot's key material.
func TestEraseLUKS1OddSlot(t *testing.T) {
	_, l1 := craftBase(t)
	phdrEdit(func(p *luks1Phdr) { p.slots[1].state = 7 })(t, l1)
	dev := &writerAtBuffer{bytes.NewBuffer(bytes.Clone(l1))}
	h, err := ReadHeader(dev)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Erase(dev); err != nil {
		t.Fatal(err)
	}
	out := dev.b.Bytes()
	p := decodeLUKS1(out)
	for i, s := range p.slots {
		want := uint32(l1SlotInactive)
		if i == 1 {
			want = 7
		}
		if s.state != want || i != 1 && (s.iterations != 0 || s.salt != [32]byte{}) {
			t.Fatalf("slot %d: state %#x, %d iterations", i, s.state, s.iterations)
		}
	}
	k, _ := h.Keyslot(1)
	for off := k.Area.Offset; off < k.Area.Offset+k.Area.Size; off += 512 {
		if bytes.Equal(out[off:off+512], l1[off:off+512]) {
			t.Fatalf("the odd slot's material at %d is still there", off)
		}
	}
	needCryptsetup(t)
	path := filepath.Join(t.TempDir(), "img")
	writeFile(t, path, l1)
	cs(t, "luksErase", "--batch-mode", path)
	theirs, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(theirs[:luks1HeaderSize], out[:luks1HeaderSize]) {
		t.Fatal("the header differs from cryptsetup's luksErase result")
	}
}
