package luks

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
)

// fuzzKDF is the cheapest keyslot KDF: the fuzz target runs many verbs.
var fuzzKDF = KDFOptions{Type: "pbkdf2", Iterations: 1}

// keyFuzzBase is a small image of each version for FuzzKeyVerbs, with
// keyslots 0 and 1 (passphrases "p0", "p1") and room for two more
// (LUKS2: the keyslots area holds four), its volume key and size.
type keyFuzzBase struct {
	img []byte
	key []byte
}

var keyFuzzBases = sync.OnceValues(func() (map[int]keyFuzzBase, error) {
	out := map[int]keyFuzzBase{}
	for _, version := range []int{1, 2} {
		var b bytes.Buffer
		w := &writerAtBuffer{&b}
		h, key, err := Create(w, []byte("p0"), &CreateOptions{Version: version, KeyBits: 256, KDF: fuzzKDF})
		if err != nil {
			return nil, err
		}
		if version == 2 { // the keyslots area shrunk to four areas, the data right after
			nh := h.clone()
			nh.Config.KeyslotsSize = 4 * h.Keyslots[0].Area.Size
			nh.Segments[0].Offset = 2*h.HeaderSize + nh.Config.KeyslotsSize
			if h, err = commit(w, h, nh, nil); err != nil {
				return nil, err
			}
		}
		if _, err := h.AddKey(w, key, []byte("p1"), 1, fuzzKDF); err != nil {
			return nil, err
		}
		w.WriteAt(make([]byte, 4096), int64(h.Segments[0].Offset))
		out[version] = keyFuzzBase{bytes.Clone(b.Bytes()[:h.Segments[0].Offset+4096]), key}
	}
	return out, nil
})

// FuzzKeyVerbs runs a sequence of key verbs (kill-slot, remove-key,
// change-key, add-key, erase; slot numbers and passphrases chosen by the
// input, in range or not, right or wrong) on a small LUKS1 or LUKS2
// image and checks after each that the header still reads, that the
// caller's Header is what ReadHeader reads, that the keyslots in use are
// those a model of the verbs expects (a verb succeeds exactly when the
// model says it may, and a refused one changes no byte), and at the end
// that every passphrase of the model opens its keyslot. A refused verb
// writes nothing.
func FuzzKeyVerbs(f *testing.F) {
	for _, seed := range [][]byte{
		{0, 0, 1}, {1, 0, 0, 1, 1}, {0, 2, 1, 2, 0, 3, 0}, {1, 3, 0, 0, 1, 2, 5, 4, 0},
		{0, 0, 0, 0, 1, 0, 1, 2, 33, 4, 0, 3, 0, 3, 0}, {1, 2, 0, 2, 0, 2, 0, 2, 0},
	} {
		f.Add(seed)
	}
	if _, err := keyFuzzBases(); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(fuzzKeyVerbsOne)
}

// fuzzKeyVerbsOne is FuzzKeyVerbs's body for one input.
func fuzzKeyVerbsOne(t *testing.T, data []byte) {
	bases, _ := keyFuzzBases()
	{
		if len(data) == 0 {
			return
		}
		version := 1 + int(data[0]&1)
		base := bases[version]
		dev := &recorder{writerAtBuffer: &writerAtBuffer{bytes.NewBuffer(bytes.Clone(base.img))}}
		h, err := ReadHeader(dev)
		if err != nil {
			t.Fatal(err)
		}
		model := map[int]string{0: "p0", 1: "p1"}
		passes := func() []string { return slices.Sorted(maps.Values(model)) }
		fresh := 0
		maxSlots := 8 // LUKS1; LUKS2 by the keyslots area's room
		if version == 2 {
			maxSlots = 4
		}
		ops := data[1:]
		for i := 0; i+1 < len(ops) && i < 10; i += 2 {
			op, arg := ops[i]%5, int(ops[i+1])
			dev.writes = dev.writes[:0]
			var (
				err   error
				ok    bool // the model's verdict: the verb may succeed
				apply func(id int)
				id    int
				what  string
			)
			pick := func() string { // a passphrase of the model, or a wrong one
				if p := passes(); arg%4 < len(p) {
					return p[arg%4]
				}
				return "wrong"
			}
			slotOf := func(pass string) int {
				for id, p := range model {
					if p == pass {
						return id
					}
				}
				return -1
			}
			switch op {
			case 0:
				id = arg%36 - 2
				what = fmt.Sprint("kill-slot ", id)
				_, ok = model[id]
				err = h.KillSlot(dev, id)
				apply = func(int) { delete(model, id) }
			case 1:
				pass := pick()
				what = "remove-key " + pass
				ok = slotOf(pass) >= 0
				id, err = h.RemoveKey(dev, []byte(pass))
				apply = func(got int) {
					if got != slotOf(pass) {
						t.Fatalf("%s removed keyslot %d, the model has it in %d", what, got, slotOf(pass))
					}
					delete(model, got)
				}
			case 2:
				pass := pick()
				fresh++
				np := fmt.Sprint("n", fresh)
				slot := AnyKeyslot
				if arg&0x80 != 0 {
					slot = arg % 8
				}
				what = fmt.Sprintf("change-key %s -> %s (slot %d)", pass, np, slot)
				old := slotOf(pass)
				// A free LUKS1 slot, or room beside the old LUKS2 area.
				ok = old >= 0 && (slot == AnyKeyslot || slot == old) && len(model) < maxSlots
				id, err = h.ChangeKey(dev, []byte(pass), []byte(np), slot, fuzzKDF)
				apply = func(got int) {
					if version == 2 && got != old {
						t.Fatalf("%s: LUKS2 keyslot %d became %d", what, old, got)
					}
					delete(model, old)
					model[got] = np
				}
			case 3:
				fresh++
				np := fmt.Sprint("n", fresh)
				what = "add-key " + np
				ok = len(model) < maxSlots
				id, err = h.AddKey(dev, base.key, []byte(np), AnyKeyslot, fuzzKDF)
				apply = func(got int) { model[got] = np }
			case 4:
				what = "erase"
				ok, err = true, h.Erase(dev)
				apply = func(int) { clear(model) }
			}
			if (err == nil) != ok {
				t.Fatalf("%s: %v; the model says it may succeed: %v (keyslots %v)", what, err, ok, model)
			}
			if err != nil {
				if len(dev.writes) != 0 {
					t.Fatalf("%s was refused (%v) but wrote %v", what, err, dev.writes)
				}
				if op == 0 && id >= 0 && id <= h.maxKeyslot() && !errors.Is(err, ErrInactiveKeyslot) {
					t.Fatalf("%s: %v, not ErrInactiveKeyslot", what, err)
				}
			} else {
				apply(id)
			}
			back, err := ReadHeader(dev)
			if err != nil {
				t.Fatalf("after %s: ReadHeader: %v", what, err)
			}
			if a, b := keyIDs(back), keyIDs(h); a != b {
				t.Fatalf("after %s: the device has keyslots %s, the caller's Header %s", what, a, b)
			}
			if a, b := keyIDs(back), fmt.Sprint(slices.Sorted(maps.Keys(model))); a != b {
				t.Fatalf("after %s: keyslots %s, the model has %s", what, a, b)
			}
		}
		for id, p := range model {
			if _, got, err := h.Unlock(dev, []byte(p), id); err != nil || got != id {
				t.Fatalf("passphrase %q of keyslot %d: %v", p, id, err)
			}
		}
	}
}
