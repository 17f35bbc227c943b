package luks

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// craftBase returns a LUKS2 image the package made (keyslots 0 and 1,
// pbkdf2) and a LUKS1 one, each with 64 KiB of data, in memory.
func craftBase(t *testing.T) (luks2, luks1 []byte) {
	t.Helper()
	mk := func(o CreateOptions) []byte {
		var b bytes.Buffer
		w := &writerAtBuffer{&b}
		h, key, err := Create(w, []byte("zero"), &o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.AddKey(w, key, []byte("one"), 1, fastKDF["pbkdf2"]); err != nil {
			t.Fatal(err)
		}
		w.WriteAt(make([]byte, 64<<10), int64(h.Segments[0].Offset))
		return b.Bytes()
	}
	return mk(CreateOptions{KDF: fastKDF["pbkdf2"]}), mk(CreateOptions{Version: 1, KDF: fastKDF["pbkdf2"]})
}

// jsonEdit returns a LUKS2 image edit that changes the JSON metadata
// through edit and writes both copies back with valid checksums.
func jsonEdit(edit func(m map[string]any)) func(t *testing.T, img []byte) {
	return func(t *testing.T, img []byte) {
		h, err := ReadHeader(bytes.NewReader(img))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(h.JSON, &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		js, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		areaEdit(func(a []byte) []byte { return js })(t, img)
	}
}

// areaEdit returns a LUKS2 image edit that puts area(JSON as read) as
// the JSON area's bytes (zero-padded) of both copies, with valid
// checksums.
func areaEdit(area func(js []byte) []byte) func(t *testing.T, img []byte) {
	return func(t *testing.T, img []byte) {
		h, err := ReadHeader(bytes.NewReader(img))
		if err != nil {
			t.Fatal(err)
		}
		a := area(bytes.Clone(h.JSON))
		h.Seqid++
		for _, off := range []uint64{h.HeaderSize, 0} {
			b, err := encodeLUKS2Copy(h, nil, off)
			if err != nil {
				t.Fatal(err)
			}
			copy(b[binHeaderSize:], a)
			clear(b[offCsum : offCsum+csumLen])
			copy(b[offCsum:], checksumOf(checksumHash("sha256"), b))
			copy(img[off:], b)
		}
	}
}

// phdrEdit returns a LUKS1 image edit of the phdr's fields.
func phdrEdit(edit func(p *luks1Phdr)) func(t *testing.T, img []byte) {
	return func(t *testing.T, img []byte) {
		p := decodeLUKS1(img[:luks1HeaderSize])
		edit(p)
		copy(img, p.encode())
	}
}

func set(path []string, v any) func(m map[string]any) {
	return func(m map[string]any) {
		o := obj(m, path[:len(path)-1]...)
		if v == nil {
			delete(o, path[len(path)-1])
		} else {
			o[path[len(path)-1]] = v
		}
	}
}

func p(s ...string) []string { return s }

// craftedCases are crafted headers, each with the verdict cryptsetup 2.6
// gives it (luksDump succeeds or fails). TestCraftedHeaders checks the
// package's ReadHeader against that verdict, and the verdict against the
// installed cryptsetup.
var craftedCases = []struct {
	name  string
	luks1 bool
	edit  func(t *testing.T, img []byte)
	ok    bool // cryptsetup accepts it
}{
	{"luks2-as-made", false, jsonEdit(func(map[string]any) {}), true},
	{"luks1-as-made", true, phdrEdit(func(*luks1Phdr) {}), true},

	// JSON area.
	{"area-leading-space", false, areaEdit(func(js []byte) []byte { return append([]byte(" "), js...) }), false},
	{"area-trailing-space", false, areaEdit(func(js []byte) []byte { return append(js, ' ', '\n') }), true},
	{"area-garbage-after-nul", false, areaEdit(func(js []byte) []byte { return append(js, 0, 'x') }), false},
	{"area-no-nul", false, areaEdit(func(js []byte) []byte {
		return append(js, bytes.Repeat([]byte(" "), luks2MetadataSize-binHeaderSize-len(js))...)
	}), false},
	{"area-array", false, areaEdit(func(js []byte) []byte { return append(append([]byte("["), js...), ']') }), false},
	{"unknown-top-level-member", false, jsonEdit(set(p("foo"), 5)), true},
	{"digest-type-number", false, jsonEdit(set(p("digests", "0", "type"), 5)), false},
	{"reencrypt-keyslot-without-requirement", false, jsonEdit(set(p("keyslots", "1", "type"), "reencrypt")), false},
	{"segment-iv-tweak-number", false, jsonEdit(set(p("segments", "0", "iv_tweak"), 0)), false},
	{"segment-sector-size-0", false, jsonEdit(set(p("segments", "0", "sector_size"), 0)), false},
	{"segment-integrity", false, jsonEdit(set(p("segments", "0", "integrity"), map[string]any{"type": "hmac(sha256)", "journal_encryption": "none", "journal_integrity": "none"})), true},
	{"area-two-objects", false, areaEdit(func(js []byte) []byte { return append(js, []byte("{}")...) }), false},

	// Keyslot areas.
	{"keyslots-share-area", false, jsonEdit(func(m map[string]any) {
		obj(m, "keyslots", "1")["area"] = obj(m, "keyslots", "0")["area"]
	}), false},
	{"keyslots-overlap", false, jsonEdit(set(p("keyslots", "1", "area", "offset"), "36864")), false},
	{"area-in-secondary-copy", false, jsonEdit(set(p("keyslots", "1", "area", "offset"), "16384")), false},
	{"area-past-keyslots-size", false, jsonEdit(set(p("config", "keyslots_size"), "266240")), false},
	{"area-size-zero", false, jsonEdit(func(m map[string]any) {
		set(p("keyslots", "1", "area", "size"), "0")(m)
		set(p("keyslots", "1", "type"), "unknown-type")(m)
	}), false},
	{"unknown-keyslot-type", false, jsonEdit(set(p("keyslots", "1", "type"), "unknown-type")), true},
	{"keyslots-size-1TiB", false, jsonEdit(set(p("config", "keyslots_size"), "1099511627776")), false},
	{"keyslots-size-unaligned", false, jsonEdit(set(p("config", "keyslots_size"), "16744960")), false},
	{"keyslots-size-smaller", false, jsonEdit(set(p("config", "keyslots_size"), "1048576")), true},

	// Segments.
	{"segment-offset-in-keyslots", false, jsonEdit(set(p("segments", "0", "offset"), "32768")), false},
	{"segment-offset-not-sector-aligned", false, jsonEdit(set(p("segments", "0", "offset"), "16777728")), true},
	{"segment-offset-empty", false, jsonEdit(set(p("segments", "0", "offset"), "")), false},
	{"segment-type-linear", false, jsonEdit(set(p("segments", "0", "type"), "linear")), true},
	{"segment-offset-0", false, jsonEdit(set(p("segments", "0", "offset"), "0")), true},
	{"segment-size-max", false, jsonEdit(set(p("segments", "0", "size"), "18446744073709551615")), false},
	{"segment-size-max-aligned", false, jsonEdit(set(p("segments", "0", "size"), "18446744073709547520")), true},
	{"segment-size-overflow", false, jsonEdit(set(p("segments", "0", "size"), "18446744073709551616")), false},
	{"segment-size-0", false, jsonEdit(set(p("segments", "0", "size"), "0")), false},
	{"segment-size-4096", false, jsonEdit(set(p("segments", "0", "size"), "4096")), true},
	{"segment-size-sector-unaligned", false, jsonEdit(set(p("segments", "0", "size"), "512")), false},
	{"segment-size-number", false, jsonEdit(set(p("segments", "0", "size"), 4096)), false},
	{"segment-no-type", false, jsonEdit(set(p("segments", "0", "type"), nil)), false},
	{"segment-no-offset", false, jsonEdit(set(p("segments", "0", "offset"), nil)), false},
	{"segment-no-size", false, jsonEdit(set(p("segments", "0", "size"), nil)), false},
	{"segment-no-encryption", false, jsonEdit(set(p("segments", "0", "encryption"), nil)), false},
	{"segment-no-iv-tweak", false, jsonEdit(set(p("segments", "0", "iv_tweak"), nil)), false},
	{"segment-no-sector-size", false, jsonEdit(set(p("segments", "0", "sector_size"), nil)), false},
	{"segment-empty-encryption", false, jsonEdit(set(p("segments", "0", "encryption"), "")), false},
	{"segment-sector-size-1536", false, jsonEdit(set(p("segments", "0", "sector_size"), 1536)), true},
	{"segment-backup-flag", false, jsonEdit(set(p("segments", "0", "flags"), []any{"backup-previous"})), false},
	{"segment-other-flag", false, jsonEdit(set(p("segments", "0", "flags"), []any{"some-flag"})), true},
	{"segment-flags-string", false, jsonEdit(set(p("segments", "0", "flags"), "some-flag")), false},
	{"segment-gap", false, jsonEdit(func(m map[string]any) {
		s := obj(m, "segments")
		s["1"] = s["0"]
		delete(s, "0")
		obj(m, "digests", "0")["segments"] = []any{"1"}
	}), false},
	{"segment-integrity-incomplete", false, jsonEdit(set(p("segments", "0", "integrity"), map[string]any{"type": "hmac(sha256)"})), false},

	// References.
	{"digest-missing-segment", false, jsonEdit(set(p("digests", "0", "segments"), []any{"5"})), false},
	{"digest-missing-keyslot", false, jsonEdit(set(p("digests", "0", "keyslots"), []any{"0", "1", "7"})), false},
	{"digest-keyslot-number", false, jsonEdit(set(p("digests", "0", "keyslots"), []any{0, "1"})), false},
	{"keyslot-without-digest", false, jsonEdit(set(p("digests", "0", "keyslots"), []any{"0"})), false},
	{"keyslot-two-digests", false, jsonEdit(func(m map[string]any) {
		d := map[string]any{}
		for k, v := range obj(m, "digests", "0") {
			d[k] = v
		}
		d["keyslots"] = []any{"1"}
		obj(m, "digests")["1"] = d
	}), false},
	{"second-digest-other-keyslot", false, jsonEdit(func(m map[string]any) {
		d := map[string]any{}
		for k, v := range obj(m, "digests", "0") {
			d[k] = v
		}
		d["keyslots"] = []any{"1"}
		obj(m, "digests")["1"] = d
		obj(m, "digests", "0")["keyslots"] = []any{"0"}
	}), true},
	{"token-missing-keyslot", false, jsonEdit(set(p("tokens", "0"), map[string]any{"type": "x", "keyslots": []any{"3"}})), false},
	{"token", false, jsonEdit(set(p("tokens", "0"), map[string]any{"type": "x", "keyslots": []any{"1"}, "extra": 1})), true},
	{"token-keyslot-number", false, jsonEdit(set(p("tokens", "0"), map[string]any{"type": "x", "keyslots": []any{1}})), false},
	{"token-no-type", false, jsonEdit(set(p("tokens", "0"), map[string]any{"keyslots": []any{"1"}})), false},
	{"no-tokens", false, jsonEdit(set(p("tokens"), nil)), false},

	// Keyslot members.
	{"keyslot-no-key-size", false, jsonEdit(set(p("keyslots", "1", "key_size"), nil)), false},
	{"keyslot-key-size-string", false, jsonEdit(set(p("keyslots", "1", "key_size"), "64")), false},
	{"keyslot-af-type", false, jsonEdit(set(p("keyslots", "1", "af", "type"), "luks2")), false},
	{"keyslot-area-type", false, jsonEdit(set(p("keyslots", "1", "area", "type"), "journal")), false},
	{"keyslot-no-area-encryption", false, jsonEdit(set(p("keyslots", "1", "area", "encryption"), nil)), false},
	{"keyslot-kdf-extra", false, jsonEdit(set(p("keyslots", "1", "kdf", "time"), 4)), true},
	{"keyslot-kdf-unknown-member", false, jsonEdit(set(p("keyslots", "1", "kdf", "foo"), 4)), true},
	{"keyslot-kdf-no-hash", false, jsonEdit(set(p("keyslots", "1", "kdf", "hash"), nil)), false},
	{"keyslot-kdf-no-iterations", false, jsonEdit(set(p("keyslots", "1", "kdf", "iterations"), nil)), false},
	{"keyslot-af-no-stripes", false, jsonEdit(set(p("keyslots", "1", "af", "stripes"), nil)), false},
	{"keyslot-priority-string", false, jsonEdit(set(p("keyslots", "1", "priority"), "2")), true},
	{"keyslot-key-size-0", false, jsonEdit(set(p("keyslots", "1", "key_size"), 0)), true},
	{"keyslot-key-size-2^32", false, jsonEdit(set(p("keyslots", "1", "key_size"), float64(1<<32))), false},
	{"keyslot-stripes-1", false, jsonEdit(set(p("keyslots", "1", "af", "stripes"), 1)), true},
	{"keyslot-id-40", false, jsonEdit(func(m map[string]any) {
		k := obj(m, "keyslots")
		k["40"] = k["1"]
		delete(k, "1")
		obj(m, "digests", "0")["keyslots"] = []any{"0", "40"}
	}), true},
	{"keyslot-id-01", false, jsonEdit(func(m map[string]any) {
		k := obj(m, "keyslots")
		k["01"] = k["1"]
		delete(k, "1")
		obj(m, "digests", "0")["keyslots"] = []any{"0", "01"}
	}), false},
	{"keyslot-kdf-no-salt", false, jsonEdit(set(p("keyslots", "1", "kdf", "salt"), nil)), false},
	{"keyslot-priority-prefer", false, jsonEdit(set(p("keyslots", "1", "priority"), 2)), true},

	// Config.
	{"json-size", false, jsonEdit(set(p("config", "json_size"), "4096")), false},
	{"config-flags-string", false, jsonEdit(set(p("config", "flags"), "allow-discards")), false},
	{"config-flags", false, jsonEdit(set(p("config", "flags"), []any{"allow-discards"})), true},
	{"requirements-not-array", false, jsonEdit(set(p("config", "requirements"), map[string]any{"mandatory": "x"})), false},

	// LUKS1.
	{"luks1-disabled-slot-on-slot-0", true, phdrEdit(func(p *luks1Phdr) { p.slots[1].material = p.slots[0].material }), false},
	{"luks1-slot-overlap", true, phdrEdit(func(p *luks1Phdr) { p.slots[3].material = p.slots[2].material + 100 }), false},
	{"luks1-payload-in-keyslot-0", true, phdrEdit(func(p *luks1Phdr) { p.payloadOffset = 8 }), false},
	{"luks1-payload-before-last-slot", true, phdrEdit(func(p *luks1Phdr) { p.payloadOffset = p.slots[7].material + 100 }), false},
	{"luks1-payload-0", true, phdrEdit(func(p *luks1Phdr) { p.payloadOffset = 0 }), true},
	{"luks1-material-in-header", true, phdrEdit(func(p *luks1Phdr) { p.slots[5].material = 0 }), false},
	{"luks1-odd-slot-state", true, phdrEdit(func(p *luks1Phdr) { p.slots[4].state = 7 }), true},
	{"luks1-hash-unknown", true, phdrEdit(func(p *luks1Phdr) { p.hashSpec = "foo" }), false},
	{"luks1-hash-md5", true, phdrEdit(func(p *luks1Phdr) { p.hashSpec = "md5" }), false},
	{"luks1-hash-upper-case", true, phdrEdit(func(p *luks1Phdr) { p.hashSpec = "SHA256" }), true},
	{"luks1-hash-ripemd160", true, phdrEdit(func(p *luks1Phdr) { p.hashSpec = "ripemd160" }), true},
	{"luks1-key-bytes-0", true, phdrEdit(func(p *luks1Phdr) { p.keyBytes = 0 }), false},
	{"luks1-stripes", true, phdrEdit(func(p *luks1Phdr) { p.slots[6].stripes = 3999 }), false},
}

// TestCraftedHeaders checks ReadHeader on crafted headers against the
// verdict cryptsetup gives each (luksDump exits 0 or not), which the
// installed cryptsetup is asked for; a header the package refuses is
// refused by Open too and left as it was.
func TestCraftedHeaders(t *testing.T) {
	l2, l1 := craftBase(t)
	_, csErr := exec.LookPath("cryptsetup")
	for _, tc := range craftedCases {
		t.Run(tc.name, func(t *testing.T) {
			img := bytes.Clone(l2)
			if tc.luks1 {
				img = bytes.Clone(l1)
			}
			tc.edit(t, img)
			_, err := ReadHeader(bytes.NewReader(img))
			if (err == nil) != tc.ok {
				t.Errorf("ReadHeader: %v; cryptsetup's verdict is ok=%v", err, tc.ok)
			}
			if err == nil {
				_ = err
			} else if _, oerr := Open(&writerAtBuffer{bytes.NewBuffer(bytes.Clone(img))}, []byte("zero"), nil); oerr == nil {
				t.Errorf("Open succeeds on a header ReadHeader refuses")
			}
			if csErr != nil {
				t.Skip("cryptsetup is not installed (Debian package cryptsetup-bin), its verdict is not checked: ", csErr)
			}
			path := filepath.Join(t.TempDir(), "img")
			if err := os.WriteFile(path, img, 0o600); err != nil {
				t.Fatal(err)
			}
			out, cerr := csRun("luksDump", path)
			if (cerr == nil) != tc.ok {
				t.Errorf("cryptsetup luksDump: %v (ok=%v in the table)\n%s", cerr, tc.ok, out)
			}
		})
	}
}
