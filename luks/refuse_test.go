package luks

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
)

// rewriteJSON edits the LUKS2 JSON metadata of the image at path through
// edit and writes both header copies back with a higher sequence id.
func rewriteJSON(t *testing.T, path string, edit func(m map[string]any)) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := ReadHeader(f)
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
	h.Seqid++
	if err := writeCopies(f, h, js); err != nil {
		t.Fatal(err)
	}
}

func obj(m map[string]any, path ...string) map[string]any {
	for _, p := range path {
		m = m[p].(map[string]any)
	}
	return m
}

// TestRefusals: features this package does not implement are refused
// with an error naming them (ErrUnsupported) while the header still
// parses for dumping, and the image is left as it was; tokens are
// ignored. The reencryption case is cryptsetup's own (reencrypt
// --init-only); the others edit the JSON of an image cryptsetup made.
func TestRefusals(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(m map[string]any)
		reenc bool
		want  string // in the error; "" means it must open
	}{
		{"reencryption", nil, true, "reencryption is in progress (requirement flag \"online-reencrypt-v2\")"},
		{"integrity", func(m map[string]any) {
			obj(m, "segments", "0")["integrity"] = map[string]any{"type": "hmac(sha256)", "journal_encryption": "none", "journal_integrity": "none"}
		}, false, "integrity protection (hmac(sha256)"},
		{"blowfish", func(m map[string]any) { obj(m, "segments", "0")["encryption"] = "blowfish-cbc-plain64" }, false, "cipher blowfish"},
		{"cast5-keyslot", func(m map[string]any) { obj(m, "keyslots", "0", "area")["encryption"] = "cast5-cbc-plain64" }, false, "cipher cast5"},
		{"kdf", func(m map[string]any) { obj(m, "keyslots", "0", "kdf")["type"] = "scrypt" }, false, "key derivation function \"scrypt\""},
		{"af-hash", func(m map[string]any) { obj(m, "keyslots", "0", "af")["hash"] = "sm3" }, false, "hash \"sm3\""},
		{"other-requirement", func(m map[string]any) {
			obj(m, "config")["requirements"] = map[string]any{"mandatory": []any{"future-feature"}}
		}, false, "mandatory requirement flag \"future-feature\""},
		{"argon2-memory", func(m map[string]any) {
			k := obj(m, "keyslots", "0", "kdf")
			k["type"], k["time"], k["memory"], k["cpus"] = "argon2id", 4, 1<<30, 4
			delete(k, "hash")
			delete(k, "iterations")
		}, false, "memory cost 1073741824 KiB"},
		{"tokens-ignored", func(m map[string]any) {
			m["tokens"] = map[string]any{"0": map[string]any{"type": "systemd-tpm2", "keyslots": []any{"0"}, "tpm2-blob": "AAAA"}}
		}, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			plain := randBytes(t, 32<<10)
			im := csEncrypt(t, plain, false, false, fastPBKDF2...)
			if tc.reenc {
				cs(t, append([]string{"reencrypt", "--init-only", "--batch-mode", "--key-file", im.keyFile}, append(fastPBKDF2, im.img)...)...)
			} else {
				rewriteJSON(t, im.img, tc.edit)
			}
			before, _ := os.ReadFile(im.img)
			f := openFile(t, im.img)
			if _, err := ReadHeader(f); err != nil {
				t.Fatalf("ReadHeader: %v (a header with refused features must still dump)", err)
			}
			v, err := Open(f, im.pass, nil)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				got := make([]byte, len(plain))
				if _, err := v.ReadAt(got, 0); err != nil || !bytes.Equal(got, plain) {
					t.Fatalf("ReadAt: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Open: %v; want an error containing %q", err, tc.want)
			}
			if !errors.Is(err, ErrUnsupported) && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Open: %v is neither ErrUnsupported nor ErrCorrupt", err)
			}
			if after, _ := os.ReadFile(im.img); !bytes.Equal(before, after) {
				t.Fatal("the image changed")
			}
		})
	}
}

// TestBadHeaders: truncated and absurd headers give errors, never a panic
// or a huge allocation (every size is checked against the documented
// limits before use).
func TestBadHeaders(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(dir + "/img")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, _, err := Create(f, []byte("p"), &CreateOptions{KDF: fastKDF["pbkdf2"]}); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(dir + "/img")
	var l1 bytes.Buffer
	if _, _, err := Create(&writerAtBuffer{&l1}, []byte("p"), &CreateOptions{Version: 1, KDF: fastKDF["pbkdf2"]}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 5, 8, 100, 4096, 10000} {
		if _, err := ReadHeader(bytes.NewReader(good[:n])); err == nil {
			t.Errorf("ReadHeader of the first %d bytes succeeded", n)
		}
	}
	// From 16 KiB on the primary copy is whole: the header reads, but the
	// keyslot area is missing and unlocking says so.
	for _, n := range []int{16384, 20000, 32768, 40000, 100000} {
		r := bytes.NewReader(good[:n])
		h, err := ReadHeader(r)
		if err != nil {
			t.Fatalf("ReadHeader of the first %d bytes: %v", n, err)
		}
		if h.SecondaryValid != (n >= 32768) {
			t.Errorf("first %d bytes: SecondaryValid %v", n, h.SecondaryValid)
		}
		if _, _, err := h.Unlock(r, []byte("p"), AnyKeyslot); err == nil || !strings.Contains(err.Error(), "reading keyslot 0 area") {
			t.Errorf("Unlock of the first %d bytes: %v", n, err)
		}
	}
	for _, n := range []int{0, 100, 591} {
		if _, err := ReadHeader(bytes.NewReader(l1.Bytes()[:n])); err == nil {
			t.Errorf("ReadHeader of the first %d bytes of a LUKS1 header succeeded", n)
		}
	}
	if _, err := ReadHeader(bytes.NewReader(make([]byte, 1<<20))); !errors.Is(err, ErrNotLUKS) {
		t.Errorf("zeros: %v, want ErrNotLUKS", err)
	}
	// Sizes that cryptsetup reads but that no keyslot can have are refused
	// when the keyslot is opened (unlock: true), before anything is
	// allocated for it; the others when the header is read.
	edits := []struct {
		name   string
		edit   func(m map[string]any)
		want   string
		unlock bool
	}{
		{"key-size-0", func(m map[string]any) { obj(m, "keyslots", "0")["key_size"] = 0 }, "key size 0", true},
		{"key-size-huge", func(m map[string]any) { obj(m, "keyslots", "0")["key_size"] = float64(1 << 40) }, "key size", false},
		{"stripes", func(m map[string]any) { obj(m, "keyslots", "0", "af")["stripes"] = 1 << 30 }, "stripes", true},
		{"area-beyond", func(m map[string]any) { obj(m, "keyslots", "0", "area")["offset"] = "999999999999" }, "outside the keyslots area", false},
		{"area-small", func(m map[string]any) { obj(m, "keyslots", "0", "area")["size"] = "4096" }, "needs", true},
		{"sector-size", func(m map[string]any) { obj(m, "segments", "0")["sector_size"] = 3000 }, "sector size 3000", false},
		{"json-size", func(m map[string]any) { obj(m, "config")["json_size"] = "4096" }, "json_size", false},
		{"offset-number", func(m map[string]any) { obj(m, "segments", "0")["offset"] = 5 }, "not a string", false},
		{"many-keyslots", func(m map[string]any) {
			for i := 1; i < 40; i++ {
				obj(m, "keyslots")[itoa(i)] = map[string]any{"type": "x", "key_size": 1}
			}
		}, "40 keyslots (at most 32)", false},
		{"no-segments", func(m map[string]any) { delete(m, "segments") }, "lacks", false},
	}
	for _, tc := range edits {
		t.Run(tc.name, func(t *testing.T) {
			p := dir + "/" + tc.name
			if err := os.WriteFile(p, good, 0o600); err != nil {
				t.Fatal(err)
			}
			rewriteJSON(t, p, tc.edit)
			b, _ := os.ReadFile(p)
			h, err := ReadHeader(bytes.NewReader(b))
			if tc.unlock {
				if err != nil {
					t.Fatalf("ReadHeader: %v; cryptsetup reads it", err)
				}
				_, _, err = h.Unlock(bytes.NewReader(b), []byte("p"), AnyKeyslot)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrCorrupt) {
				t.Fatalf("ReadHeader: %v; want ErrCorrupt containing %q", err, tc.want)
			}
		})
	}
	// LUKS1: absurd key size and stripes.
	for _, tc := range []struct {
		off  int
		val  []byte
		want string
	}{{l1KeyBytes, []byte{0, 0, 0, 0}, "key size 0"}, {l1KeyBytes, []byte{0x7f, 0, 0, 0}, "key size"},
		{l1Keyslots + 44, []byte{0x7f, 0, 0, 0}, "stripes"}, {l1HashSpec, []byte("md5\x00"), "LUKS1 hash \"md5\""}} {
		b := bytes.Clone(l1.Bytes())
		copy(b[tc.off:], tc.val)
		if _, err := ReadHeader(bytes.NewReader(b)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("LUKS1 with %x at %d: %v; want %q", tc.val, tc.off, err, tc.want)
		}
	}
}

// writerAtBuffer is an io.WriterAt over a bytes.Buffer.
type writerAtBuffer struct{ b *bytes.Buffer }

func (w *writerAtBuffer) WriteAt(p []byte, off int64) (int, error) {
	if end := int(off) + len(p); end > w.b.Len() {
		w.b.Write(make([]byte, end-w.b.Len()))
	}
	return copy(w.b.Bytes()[off:], p), nil
}

// writeCopies writes both LUKS2 header copies of h holding the JSON
// metadata js as given (not checked: tests use it to craft headers).
func writeCopies(w io.WriterAt, h *Header, js []byte) error {
	for _, off := range []uint64{h.HeaderSize, 0} {
		b, err := encodeLUKS2Copy(h, js, off)
		if err != nil {
			return err
		}
		if _, err := w.WriteAt(b, int64(off)); err != nil {
			return err
		}
	}
	return nil
}
