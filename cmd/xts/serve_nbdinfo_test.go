package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
)

// TestServeNbdinfo: what nbdinfo sees of each kind of export — the size,
// the sector size as the minimum block size, and the flags (flush, FUA,
// write zeroes and multi-conn on a writable export; none of the write
// flags on a read-only one).
func TestServeNbdinfo(t *testing.T) {
	needServeTool(t, "nbdinfo")
	raw := randBytes(t, 4<<20)
	dir := t.TempDir()
	rawPath := writeFile(t, dir, "raw", raw)
	pass := writeFile(t, dir, "pass", []byte("info"))
	key := writeFile(t, dir, "key", randBytes(t, 64))
	fast := []string{"-d", pass, "--pbkdf", "pbkdf2", "--pbkdf-force-iterations", "1000"}
	encrypt := func(name string, args ...string) string {
		img := filepath.Join(dir, name)
		if r := runCmd(t, nil, append(append(append([]string{"luks", "encrypt"}, fast...), args...), rawPath, img)...); r.code != 0 {
			t.Fatalf("luks encrypt %s: %d %s", name, r.code, r.stderr)
		}
		return img
	}
	luks1 := encrypt("luks1", "--type", "luks1")
	luks2 := encrypt("luks2")
	luks2s512 := encrypt("luks2-512", "--sector-size", "512")
	hdr := filepath.Join(dir, "hdr")
	detached := encrypt("detached", "--header", hdr)
	plain := filepath.Join(dir, "plain")
	if r := runCmd(t, nil, "encrypt", "-d", key, "--sector-size", "4096", rawPath, plain); r.code != 0 {
		t.Fatalf("encrypt: %d %s", r.code, r.stderr)
	}

	for _, tc := range []struct {
		name     string
		args     []string
		minBlock float64
		readOnly bool
	}{
		{"luks1", []string{"luks", "serve", "-d", pass, luks1}, 512, false},
		{"luks2", []string{"luks", "serve", "-d", pass, luks2}, 4096, false},
		{"luks2 sector 512", []string{"luks", "serve", "-d", pass, luks2s512}, 512, false},
		{"luks2 read-only", []string{"luks", "serve", "--readonly", "-d", pass, luks2}, 4096, true},
		{"detached header", []string{"luks", "serve", "-d", pass, "--header", hdr, detached}, 4096, false},
		{"plain", []string{"serve", "-d", key, "--sector-size", "4096", plain}, 4096, false},
		{"plain read-only", []string{"serve", "--readonly", "-d", key, "--sector-size", "4096", plain}, 4096, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "info.json")
			// The flags, --run, then the image.
			last := len(tc.args) - 1
			args := append(slices.Clone(tc.args[:last]), "--run", `nbdinfo --json "$uri" > `+out, tc.args[last])
			if r := runCmd(t, nil, args...); r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			var info struct{ Exports []map[string]any }
			if err := json.Unmarshal(readFile(t, out), &info); err != nil || len(info.Exports) != 1 {
				t.Fatalf("nbdinfo --json: %v, %d exports", err, len(info.Exports))
			}
			e := info.Exports[0]
			want := map[string]any{
				"export-size":        float64(len(raw)),
				"block_size_minimum": tc.minBlock,
				"is_read_only":       tc.readOnly,
				"can_flush":          !tc.readOnly,
				"can_fua":            !tc.readOnly,
				"can_zero":           !tc.readOnly,
				"can_multi_conn":     true,
			}
			for k, v := range want {
				if e[k] != v {
					t.Errorf("%s = %v, want %v", k, e[k], v)
				}
			}
		})
	}
}
