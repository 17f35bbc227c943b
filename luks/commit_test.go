package luks

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeLog is a device that records every write (and applies it).
type writeLog struct {
	*writerAtBuffer
	writes []keyslotWrite
}

func (w *writeLog) WriteAt(p []byte, off int64) (int, error) {
	w.writes = append(w.writes, keyslotWrite{uint64(off), bytes.Clone(p)})
	return w.writerAtBuffer.WriteAt(p, off)
}

// crashState is what a power loss during a series of writes can leave:
// some of the writes, or pieces of them, on the device.
type crashState struct {
	name   string
	landed []keyslotWrite
}

// crashStates returns the states a power loss during writes can leave:
// every prefix of the writes, and every prefix and suffix of one write's
// 512-byte sectors after the writes before it (for keyslot material, one
// tear).
func crashStates(writes []keyslotWrite) []crashState {
	var out []crashState
	for n := 0; n <= len(writes); n++ {
		out = append(out, crashState{fmt.Sprintf("after %d of %d writes", n, len(writes)), writes[:n]})
		if n == len(writes) {
			break
		}
		w := writes[n]
		step := 512
		if len(w.data) > 64<<10 {
			// Keyslot material: it goes to an area no keyslot uses, so
			// any tear is as good as another; one, at its middle.
			step = len(w.data) / 2 / 512 * 512
		}
		for j := step; j < len(w.data); j += step {
			head := keyslotWrite{w.off, w.data[:j]}
			tail := keyslotWrite{w.off + uint64(j), w.data[j:]}
			out = append(out,
				crashState{fmt.Sprintf("write %d: its first %d sectors", n, j/512), append(slices.Clone(writes[:n]), head)},
				crashState{fmt.Sprintf("write %d: its sectors from %d", n, j/512), append(slices.Clone(writes[:n]), tail)})
		}
	}
	return out
}

// apply copies the state's writes onto img.
func (s crashState) apply(img []byte) {
	for _, w := range s.landed {
		copy(img[w.off:], w.data)
	}
}

// undoWrites puts base's bytes back into img wherever writes went, so
// that one image serves every crash state without a copy per state.
func undoWrites(img, base []byte, writes []keyslotWrite) {
	for _, w := range writes {
		copy(img[w.off:], base[w.off:w.off+uint64(len(w.data))])
	}
}

// syncWrites makes f, which holds base except where writes go, hold img:
// it writes img's bytes at every place writes went.
func syncWrites(f *os.File, img []byte, writes []keyslotWrite) {
	for _, w := range writes {
		f.WriteAt(img[w.off:w.off+uint64(len(w.data))], int64(w.off))
	}
}

// TestAddKeyPowerLoss: a power loss at any point of AddKey (after any
// prefix of its writes, or within a write, some of its 512-byte sectors
// written and not the others) leaves an image that every old passphrase
// opens, with the package and with cryptsetup; once all writes are done
// the new passphrase opens it too.
func TestAddKeyPowerLoss(t *testing.T) {
	_, csErr := exec.LookPath("cryptsetup")
	for _, version := range []int{1, 2} {
		t.Run(fmt.Sprintf("luks%d", version), func(t *testing.T) {
			var b bytes.Buffer
			dev := &writeLog{writerAtBuffer: &writerAtBuffer{&b}}
			h, key, err := Create(dev, []byte("zero"), &CreateOptions{Version: version, KDF: fastKDF["pbkdf2"]})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := h.AddKey(dev, key, []byte("two"), 2, fastKDF["pbkdf2"]); err != nil {
				t.Fatal(err)
			}
			dev.WriteAt(make([]byte, 4096), int64(h.Segments[0].Offset))
			base := bytes.Clone(b.Bytes())
			dev.writes = nil
			if _, err := h.AddKey(dev, key, []byte("one"), 1, fastKDF["pbkdf2"]); err != nil {
				t.Fatal(err)
			}
			want := 3 // keyslot material, secondary copy, primary copy
			if version == 1 {
				want = 2 // keyslot material, phdr
			}
			if len(dev.writes) != want {
				t.Fatalf("AddKey made %d writes, want %d", len(dev.writes), want)
			}
			path := filepath.Join(t.TempDir(), "img")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			f.Write(base)
			img := bytes.Clone(base)
			for _, st := range crashStates(dev.writes) {
				st.apply(img)
				final := len(st.landed) == len(dev.writes) && strings.HasPrefix(st.name, "after")
				checkCrashState(t, st.name, img, final)
				if csErr == nil {
					syncWrites(f, img, dev.writes)
					for _, pass := range []string{"zero", "two"} {
						if !testPassphrase(t, path, "", []byte(pass), -1) {
							t.Fatalf("%s: cryptsetup refuses the old passphrase %q", st.name, pass)
						}
					}
					if final && !testPassphrase(t, path, "", []byte("one"), 1) {
						t.Fatalf("%s: cryptsetup refuses the new passphrase", st.name)
					}
				}
				undoWrites(img, base, dev.writes)
			}
			if csErr != nil {
				t.Skip("cryptsetup is not installed (Debian package cryptsetup-bin); the crash states were checked by the package only: ", csErr)
			}
		})
	}
}

// checkCrashState checks that img opens with the old passphrases (and,
// when final, with the new one) in the package.
func checkCrashState(t *testing.T, name string, img []byte, final bool) {
	t.Helper()
	hh, err := ReadHeader(bytes.NewReader(img))
	if err != nil {
		t.Fatalf("%s: ReadHeader: %v", name, err)
	}
	for _, pass := range []string{"zero", "two"} {
		if _, _, err := hh.Unlock(bytes.NewReader(img), []byte(pass), AnyKeyslot); err != nil {
			t.Fatalf("%s: passphrase %q: %v", name, pass, err)
		}
	}
	if _, _, err := hh.Unlock(bytes.NewReader(img), []byte("one"), AnyKeyslot); final && err != nil {
		t.Fatalf("%s: the new passphrase: %v", name, err)
	}
}

// TestCommitRefusesChangedHeader: a header changed on the device since
// it was read (by this package through another Header, or by cryptsetup)
// is not overwritten: AddKey fails, the device and the caller's Header
// stay as they were.
func TestCommitRefusesChangedHeader(t *testing.T) {
	for _, version := range []int{1, 2} {
		t.Run(fmt.Sprintf("luks%d", version), func(t *testing.T) {
			im := pkgImage(t, CreateOptions{Version: version, KDF: fastKDF["pbkdf2"]})
			f, h, key := openUnlocked(t, im.img, im.pass)
			other, err := ReadHeader(f)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := other.AddKey(f, key, []byte("other"), 3, fastKDF["pbkdf2"]); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(im.img)
			snapshot := fmt.Sprintf("%+v", *h)
			_, err = h.AddKey(f, key, []byte("mine"), AnyKeyslot, fastKDF["pbkdf2"])
			if err == nil || !strings.Contains(err.Error(), "changed since it was read") {
				t.Fatalf("AddKey over a changed header: %v", err)
			}
			if after, _ := os.ReadFile(im.img); !bytes.Equal(before, after) {
				t.Fatal("the device changed")
			}
			if fmt.Sprintf("%+v", *h) != snapshot {
				t.Fatal("the failed AddKey changed the caller's Header")
			}
			// Read again, it works; then cryptsetup changes the header.
			if h, err = ReadHeader(f); err != nil {
				t.Fatal(err)
			}
			if _, err := h.AddKey(f, key, []byte("mine"), AnyKeyslot, fastKDF["pbkdf2"]); err != nil {
				t.Fatal(err)
			}
			needCryptsetup(t)
			cs(t, append(append([]string{"luksKillSlot", "--batch-mode", "--key-file", im.keyFile}, im.img), "3")...)
			if _, err := h.AddKey(f, key, []byte("late"), AnyKeyslot, fastKDF["pbkdf2"]); err == nil || !strings.Contains(err.Error(), "changed since it was read") {
				t.Fatalf("AddKey after cryptsetup luksKillSlot: %v", err)
			}
		})
	}
}

// TestDataOverlapRefusedForWriting: headers cryptsetup accepts whose data
// segment starts at 0 (as a detached header's does) open read-only on
// the device that holds them, or with the header given apart, but not
// for writing on that device.
func TestDataOverlapRefusedForWriting(t *testing.T) {
	for _, version := range []int{1, 2} {
		t.Run(fmt.Sprintf("luks%d", version), func(t *testing.T) {
			var b bytes.Buffer
			w := &writerAtBuffer{&b}
			if _, _, err := Create(w, []byte("p"), &CreateOptions{Version: version, Detached: true, KDF: fastKDF["pbkdf2"]}); err != nil {
				t.Fatal(err)
			}
			_, err := Open(w, []byte("p"), nil)
			if !errors.Is(err, ErrDataOverlapsHeader) {
				t.Fatalf("Open for writing: %v", err)
			}
			v, err := Open(w, []byte("p"), &Options{ReadOnly: true})
			if err != nil {
				t.Fatalf("Open read-only: %v", err)
			}
			v.Close()
			data := &writerAtBuffer{bytes.NewBuffer(make([]byte, 8192))}
			v, err = Open(data, []byte("p"), &Options{Header: bytes.NewReader(b.Bytes())})
			if err != nil {
				t.Fatalf("Open with a detached header: %v", err)
			}
			if _, err := v.WriteAt(make([]byte, 4096), 0); err != nil {
				t.Fatal(err)
			}
			v.Close()
		})
	}
}

// TestLUKS1OddSlotState: a LUKS1 slot whose state is neither enabled nor
// disabled reads as disabled (as cryptsetup reads it), is not reused by
// AddKey, and keeps its state when another slot is added.
func TestLUKS1OddSlotState(t *testing.T) {
	_, l1 := craftBase(t)
	phdrEdit(func(p *luks1Phdr) { p.slots[2].state = 7 })(t, l1)
	dev := &writerAtBuffer{bytes.NewBuffer(l1)}
	h, err := ReadHeader(dev)
	if err != nil {
		t.Fatal(err)
	}
	if k, _ := h.Keyslot(2); k.Active {
		t.Fatal("slot 2 reads as enabled")
	}
	key, _, err := h.Unlock(dev, []byte("zero"), AnyKeyslot)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.AddKey(dev, key, []byte("x"), 2, fastKDF["pbkdf2"]); err == nil || !strings.Contains(err.Error(), "neither enabled nor disabled") {
		t.Fatalf("AddKey to slot 2: %v", err)
	}
	id, err := h.AddKey(dev, key, []byte("x"), AnyKeyslot, fastKDF["pbkdf2"])
	if err != nil || id != 3 {
		t.Fatalf("AddKey: slot %d, %v; want 3", id, err)
	}
	if st := decodeLUKS1(dev.b.Bytes()[:luks1HeaderSize]).slots[2].state; st != 7 {
		t.Fatalf("slot 2's state became %#x", st)
	}
}

// TestEncoderKeepsUnknownMembers: AddKey rewrites the JSON through the
// one encoder, which keeps what the Header does not model: unknown
// members at every level, a token's own members, keyslots of other
// types' members; cryptsetup still reads the result.
func TestEncoderKeepsUnknownMembers(t *testing.T) {
	l2, _ := craftBase(t)
	jsonEdit(func(m map[string]any) {
		m["x-top"] = "a"
		obj(m, "config")["x-config"] = []any{"b"}
		obj(m, "segments", "0")["x-segment"] = map[string]any{"c": 1}
		obj(m, "digests", "0")["x-digest"] = true
		obj(m, "keyslots", "1")["x-keyslot"] = "d"
		obj(m, "tokens")["4"] = map[string]any{"type": "x-token", "keyslots": []any{"1"}, "x-member": "e"}
	})(t, l2)
	dev := &writerAtBuffer{bytes.NewBuffer(l2)}
	h, err := ReadHeader(dev)
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := h.Unlock(dev, []byte("one"), AnyKeyslot)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.AddKey(dev, key, []byte("three"), 3, fastKDF["pbkdf2"]); err != nil {
		t.Fatal(err)
	}
	back, err := ReadHeader(dev)
	if err != nil {
		t.Fatal(err)
	}
	js := string(back.JSON)
	for _, want := range []string{`"x-top":"a"`, `"x-config":["b"]`, `"x-segment":{"c":1}`, `"x-digest":true`, `"x-keyslot":"d"`, `"x-member":"e"`, `"keyslots":["0","1","3"]`} {
		if !strings.Contains(js, want) {
			t.Errorf("the JSON lost %s:\n%s", want, js)
		}
	}
	needCryptsetup(t)
	path := filepath.Join(t.TempDir(), "img")
	writeFile(t, path, dev.b.Bytes())
	if !testPassphrase(t, path, "", []byte("three"), 3) || !testPassphrase(t, path, "", []byte("zero"), 0) {
		t.Fatal("cryptsetup refuses a passphrase")
	}
}

// TestCommitQuickCheck: after a commit, the next one's check that the
// header is unchanged compares the copies it wrote; a change by another
// writer is still refused, and a byte changed where no reader looks (the
// secondary copy's JSON padding) still passes the full check.
func TestCommitQuickCheck(t *testing.T) {
	im := pkgImage(t, CreateOptions{Version: 2, KDF: fastKDF["pbkdf2"]})
	f, h, key := openUnlocked(t, im.img, im.pass)
	if _, err := h.AddKey(f, key, []byte("one"), 1, fastKDF["pbkdf2"]); err != nil {
		t.Fatal(err)
	}
	if h.wrote[0] == nil || h.wrote[1] == nil {
		t.Fatal("the committed header does not keep the copies it wrote")
	}
	// The secondary copy's last byte is JSON padding (NUL).
	end := int64(2*h.HeaderSize - 1)
	if _, err := f.WriteAt([]byte{0}, end); err != nil {
		t.Fatal(err)
	}
	if _, err := h.AddKey(f, key, []byte("two"), 2, fastKDF["pbkdf2"]); err != nil {
		t.Fatalf("AddKey after a commit: %v", err)
	}
	if _, err := f.WriteAt([]byte{' '}, end); err != nil {
		t.Fatal(err)
	}
	if _, err := h.AddKey(f, key, []byte("three"), 3, fastKDF["pbkdf2"]); err != nil {
		t.Fatalf("AddKey with the secondary copy's padding changed: %v", err)
	}
	other, err := ReadHeader(f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.AddKey(f, key, []byte("other"), 4, fastKDF["pbkdf2"]); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(im.img)
	if _, err := h.AddKey(f, key, []byte("late"), 5, fastKDF["pbkdf2"]); err == nil || !strings.Contains(err.Error(), "changed since it was read") {
		t.Fatalf("AddKey over another writer's commit: %v", err)
	}
	if after, _ := os.ReadFile(im.img); !bytes.Equal(before, after) {
		t.Fatal("the refused AddKey changed the device")
	}
}
