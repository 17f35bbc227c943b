package luks

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestKeyslotsAndPriorities adds keyslots with cryptsetup, sets their
// priorities, and checks which slot opens, that an ignored slot opens only
// when named, and that a named slot refuses another slot's passphrase.
func TestKeyslotsAndPriorities(t *testing.T) {
	plain := randBytes(t, 64<<10)
	im := csEncrypt(t, plain, false, false, append(fastPBKDF2, "--sector-size", "4096")...)
	dir := filepath.Dir(im.img)
	pass := map[int][]byte{0: im.pass}
	for _, slot := range []int{1, 3, 5} {
		p := []byte("pass for slot " + string(rune('0'+slot)))
		kf := filepath.Join(dir, "new")
		writeFile(t, kf, p)
		cs(t, append(append([]string{"luksAddKey", "--batch-mode", "--key-file", im.keyFile, "--key-slot", string(rune('0' + slot))}, fastPBKDF2...), im.img, kf)...)
		pass[slot] = p
	}
	// Slot 3 and slot 0 get the same passphrase's sibling: slot 5 holds
	// slot 0's passphrase too, so priority decides which one opens.
	kf := filepath.Join(dir, "same")
	writeFile(t, kf, im.pass)
	cs(t, append(append([]string{"luksAddKey", "--batch-mode", "--key-file", im.keyFile, "--key-slot", "7"}, fastArgon2id...), im.img, kf)...)
	cs(t, "config", "--batch-mode", "--priority", "prefer", "--key-slot", "7", im.img)
	cs(t, "config", "--batch-mode", "--priority", "ignore", "--key-slot", "3", im.img)

	f := openFile(t, im.img)
	h, err := ReadHeader(f)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, k := range h.Keyslots {
		got = append(got, k.ID)
	}
	if len(got) != 5 || got[0] != 0 || got[4] != 7 {
		t.Fatalf("keyslots %v, want [0 1 3 5 7]", got)
	}
	if k, _ := h.Keyslot(7); k.Priority != PriorityPrefer || k.KDF.Type != "argon2id" {
		t.Fatalf("keyslot 7: %+v", k)
	}
	vk := im.volumeKey(t)
	tests := []struct {
		name     string
		pass     []byte
		slot     int
		wantSlot int // -1: ErrNoKey
	}{
		{"prefer first", im.pass, AnyKeyslot, 7},
		{"named normal", im.pass, 0, 0},
		{"slot1", pass[1], AnyKeyslot, 1},
		{"slot5", pass[5], AnyKeyslot, 5},
		{"ignored not tried", pass[3], AnyKeyslot, -1},
		{"ignored when named", pass[3], 3, 3},
		{"named other slot", pass[1], 5, -1},
		{"wrong", []byte("nope"), AnyKeyslot, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key, slot, err := h.Unlock(f, tc.pass, tc.slot)
			if tc.wantSlot < 0 {
				if !errors.Is(err, ErrNoKey) {
					t.Fatalf("Unlock: slot %d, %v; want ErrNoKey", slot, err)
				}
				return
			}
			if err != nil || slot != tc.wantSlot || !bytes.Equal(key, vk) {
				t.Fatalf("Unlock: slot %d, %v; want slot %d and cryptsetup's key", slot, err, tc.wantSlot)
			}
		})
	}
	if _, _, err := h.Unlock(f, im.pass, 2); err == nil || errors.Is(err, ErrNoKey) {
		t.Fatalf("Unlock of inactive slot 2: %v", err)
	}
}

// TestHeaderFallback damages the primary LUKS2 header (its JSON, then its
// magic) and checks that the secondary copy is used, as cryptsetup does;
// with both copies damaged the image is refused as corrupt.
func TestHeaderFallback(t *testing.T) {
	plain := randBytes(t, 64<<10)
	im := csEncrypt(t, plain, false, false, fastPBKDF2...)
	orig, err := os.ReadFile(im.img)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		damage    []int64 // offsets whose byte is flipped
		ok        bool
		primaryOK bool
	}{
		{"intact", nil, true, true},
		{"primary json", []int64{5000}, true, false},
		{"primary magic", []int64{0}, true, false},
		{"primary checksum", []int64{offCsum + 3}, true, false},
		{"secondary json", []int64{16384 + 5000}, true, true},
		{"both", []int64{5000, 16384 + 5000}, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			img := append([]byte(nil), orig...)
			for _, o := range tc.damage {
				img[o] ^= 0x55
			}
			writeFile(t, im.img, img)
			h, err := ReadHeader(bytes.NewReader(img))
			if !tc.ok {
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("ReadHeader: %v, want ErrCorrupt", err)
				}
				if out, err := csRun("open", "--test-passphrase", "--batch-mode", "--key-file", im.keyFile, im.img); err == nil {
					t.Fatalf("cryptsetup opens it; the test's damage is not what it thinks\n%s", out)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if h.PrimaryValid != tc.primaryOK || h.primaryOK != tc.primaryOK {
				t.Fatalf("PrimaryValid %v, want %v", h.PrimaryValid, tc.primaryOK)
			}
			v, err := Open(bytes.NewReader(img), im.pass, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]byte, len(plain))
			if _, err := v.ReadAt(got, 0); err != nil || !bytes.Equal(got, plain) {
				t.Fatalf("ReadAt: %v, equal %v", err, bytes.Equal(got, plain))
			}
			if !testPassphrase(t, im.img, "", im.pass, -1) {
				t.Fatal("cryptsetup refuses the image the package opens")
			}
		})
	}
}

// TestHeaderBadJSONFallsBack: a primary copy whose checksum is right but
// whose JSON is not valid metadata gives way to the secondary copy.
func TestHeaderBadJSONFallsBack(t *testing.T) {
	im := pkgImage(t, CreateOptions{KDF: fastKDF["pbkdf2"]})
	f := openFile(t, im.img)
	h, err := ReadHeader(f)
	if err != nil {
		t.Fatal(err)
	}
	// A primary with a higher seqid and a valid checksum over bad JSON.
	var buf bytes.Buffer
	w := &writerAtBuffer{&buf}
	bad := *h
	bad.Seqid += 5
	if err := writeCopies(w, &bad, []byte(`{"keyslots":{"0":{"type":"luks2","key_size":0}},"segments":{},"digests":{},"config":{}}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(buf.Bytes()[:h.HeaderSize], 0); err != nil {
		t.Fatal(err)
	}
	got, err := ReadHeader(f)
	if err != nil || got.Seqid != h.Seqid || got.primaryOK {
		t.Fatalf("ReadHeader: %v; seqid %d (want the secondary's %d)", err, got.Seqid, h.Seqid)
	}
	if _, _, err := got.Unlock(f, im.pass, AnyKeyslot); err != nil {
		t.Fatal(err)
	}
	needCryptsetup(t)
	if !testPassphrase(t, im.img, "", im.pass, -1) {
		t.Fatal("cryptsetup does not open it: the test's damage is not what it thinks")
	}
}
