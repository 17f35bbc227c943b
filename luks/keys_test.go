package luks

import (
	"bytes"
	"errors"
	"fmt"
	"os"
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
	out := map[string]int{}
	dir := t.TempDir()
	for _, p := range passes {
		o, err := csRun("open", "--test-passphrase", "--batch-mode", "-v", "--key-file", passFile(t, dir, p), path)
		out[p] = -1
		if err != nil {
			// With an unbound keyslot tried last, cryptsetup says "No
			// usable keyslot is available." instead.
			if !strings.Contains(o, "No key available") && !strings.Contains(o, "No usable keyslot is available") {
				t.Fatalf("cryptsetup open --test-passphrase %s with %q: %v\n%s", path, p, err, o)
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
