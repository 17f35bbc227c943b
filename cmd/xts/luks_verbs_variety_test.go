package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fastxts/xts/luks"
)

// cmdVariant is an image layout cryptsetup makes for the command
// variety test: passphrase file K0 in keyslot 0, K1 in keyslot 1 and
// those of extra in theirs, then damage (a byte of the header file
// flipped) when not 0.
type cmdVariant struct {
	name     string
	version  int
	detached bool
	size     int64
	args     []string
	extra    []int
	damage   int64
	// refuse maps an xts command to the words of its documented refusal
	// where cryptsetup does it (xts will not rewrite a keyslot in place
	// or shift LUKS1 key material, which a power loss can make lose).
	refuse map[string]string
	short  bool
}

func cmdVariants() []cmdVariant {
	return []cmdVariant{
		{name: "luks2-meta64k", version: 2, size: 17 << 20, args: []string{"--luks2-metadata-size", "64k", "--sector-size", "512"}},
		{name: "luks2-keyslots-tight", version: 2, size: 2 << 20, args: []string{"--luks2-keyslots-size", "260k", "-s", "256", "--offset", "584"},
			refuse: map[string]string{"change-key": "no room for the new keyslot", "header-restore": "no free room to restore it"}},
		{name: "luks2-ids-to-31-secondary-damaged", version: 2, size: 17 << 20, args: []string{"--sector-size", "512"}, extra: []int{9, 31}, damage: 16384 + 4096 + 100, short: true},
		{name: "luks2-detached-4096", version: 2, detached: true, size: 1 << 20, args: []string{"--sector-size", "4096"}},
		{name: "luks1-all-slots", version: 1, size: 4 << 20, args: []string{"-s", "256"}, extra: []int{2, 3, 4, 5, 6, 7},
			refuse: map[string]string{"change-key": "no free LUKS1 keyslot", "header-restore": "LUKS1 keyslots cannot move"}, short: true},
		{name: "luks1-detached-sha1", version: 1, detached: true, size: 1 << 20, args: []string{"--hash", "sha1"},
			refuse: map[string]string{"header-restore": "LUKS1 keyslots cannot move"}},
	}
}

// sparseCopy copies from to to, writing only the 4096-byte blocks that
// are not zero (the images are mostly holes).
func sparseCopy(t *testing.T, from, to string) {
	t.Helper()
	b := readFile(t, from)
	f, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(int64(len(b))); err != nil {
		t.Fatal(err)
	}
	zero := make([]byte, 4096)
	for off := 0; off < len(b); off += 4096 {
		blk := b[off:min(len(b), off+4096)]
		if !bytes.Equal(blk, zero[:len(blk)]) {
			if _, err := f.WriteAt(blk, int64(off)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// cmdOpens says which keyslot each key file opens: by cryptsetup open
// --test-passphrase (cs) or by the package.
func cmdOpens(t *testing.T, dir, img, hdr string, keys []string, cs bool) string {
	t.Helper()
	var b strings.Builder
	for _, k := range keys {
		slot := "-"
		if cs {
			code, out := csExit(t, "", append(withHeader(hdr, "open", "--test-passphrase", "-v", "--key-file", filepath.Join(dir, k)), img)...)
			if m := keySlotRE.FindStringSubmatch(out); code == 0 && m != nil {
				slot = m[1]
			}
		} else {
			hp := img
			if hdr != "" {
				hp = hdr
			}
			f, err := os.Open(hp)
			if err != nil {
				t.Fatal(err)
			}
			h, err := luks.ReadHeader(f)
			if err != nil {
				f.Close()
				t.Fatalf("%s: %v", hp, err)
			}
			key, id, err := h.Unlock(f, readFile(t, filepath.Join(dir, k)), luks.AnyKeyslot)
			clear(key)
			f.Close()
			switch {
			case err == nil:
				slot = strconv.Itoa(id)
			case !errors.Is(err, luks.ErrNoKey):
				t.Fatalf("Unlock: %v", err)
			}
		}
		b.WriteString(k + ":" + slot + " ")
	}
	return b.String()
}

// TestLUKSVerbsOnVariants runs the key and header commands of xts and
// cryptsetup's verbs on copies of images in unusual layouts (64 KiB
// header copies, a keyslots area with room for two keyslots, keyslot
// ids up to 31 with a damaged secondary header copy, a detached header
// with 4096-byte sectors, LUKS1 with all eight slots in use, a detached
// LUKS1 header with sha1): the same exit status (or xts's documented
// refusal, with its words, and the image left as it was), and then the
// same key files open (cryptsetup asked about xts's result, the package
// about cryptsetup's; the keyslot too, but for LUKS1 change-key, which
// takes the lowest free slot); backups byte for byte the same (but
// where cryptsetup repairs a damaged copy with a new salt).
func TestLUKSVerbsOnVariants(t *testing.T) {
	needCryptsetup(t)
	vs := cmdVariants()
	if testing.Short() {
		var few []cmdVariant
		for _, v := range vs {
			if v.short {
				few = append(few, v)
			}
		}
		t.Logf("-short: %d of the %d layouts (the full run has them all)", len(few), len(vs))
		vs = few
	}
	const uuid = "4f0c3a52-9d1e-4b7a-8c6d-2e5f7a9b1c3d"
	type verb struct {
		name    string
		xts, cs []string // IMG, K* and BAK are replaced
		// keys are the key files asked about afterwards
		keys  []string
		luks2 bool
	}
	verbs := []verb{
		{name: "kill-slot", xts: []string{"kill-slot", "-q", "IMG", "1"}, cs: []string{"luksKillSlot", "-q", "IMG", "1"}, keys: []string{"K0", "K1"}},
		{name: "remove-key", xts: []string{"remove-key", "-q", "IMG", "K1"}, cs: []string{"luksRemoveKey", "-q", "IMG", "K1"}, keys: []string{"K0", "K1"}},
		{name: "change-key", xts: append([]string{"change-key", "-d", "K1", "IMG", "KN"}, csFast...), cs: append([]string{"luksChangeKey", "--key-file", "K1", "IMG", "KN"}, csFast...), keys: []string{"K1", "KN"}},
		{name: "erase", xts: []string{"erase", "-q", "IMG"}, cs: []string{"luksErase", "-q", "IMG"}, keys: []string{"K0"}},
		{name: "header-backup", xts: []string{"header-backup", "--header-backup-file", "NEWBAK", "IMG"}, cs: []string{"luksHeaderBackup", "--header-backup-file", "NEWBAK", "IMG"}},
		{name: "header-restore", xts: []string{"header-restore", "-q", "--header-backup-file", "BAK", "IMG"}, cs: []string{"luksHeaderRestore", "-q", "--header-backup-file", "BAK", "IMG"}, keys: []string{"K1", "KL"}},
		{name: "uuid", xts: []string{"uuid", "-q", "--uuid", uuid, "IMG"}, cs: []string{"luksUUID", "-q", "--uuid", uuid, "IMG"}, keys: []string{"K0"}},
		{name: "config", xts: []string{"config", "--label", "L", "--priority", "prefer", "-S", "1", "IMG"}, cs: []string{"config", "--label", "L", "--priority", "prefer", "-S", "1", "IMG"}, keys: []string{"K1"}, luks2: true},
		{name: "convert", xts: []string{"convert", "-q", "--type", "OTHER", "IMG"}, cs: []string{"convert", "-q", "--type", "OTHER", "IMG"}, keys: []string{"K0", "K1"}},
	}
	for _, v := range vs {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel() // mostly waiting for cryptsetup processes
			tdir := t.TempDir()
			keys := []string{"K0", "K1", "KN", "KL"}
			for _, id := range v.extra {
				keys = append(keys, "K"+strconv.Itoa(id))
			}
			for _, k := range keys {
				writeFile(t, tdir, k, []byte("passphrase "+k))
			}
			img := writeFile(t, tdir, "img", nil)
			if err := os.Truncate(img, v.size); err != nil {
				t.Fatal(err)
			}
			hdr := ""
			if v.detached {
				hdr = filepath.Join(tdir, "hdr")
			}
			kf := func(k string) string { return filepath.Join(tdir, k) }
			cryptsetup(t, append(append(append(withHeader(hdr, "luksFormat", "--batch-mode", "--type", "luks"+strconv.Itoa(v.version), "--key-file", kf("K0")), csFast...), v.args...), img)...)
			for _, id := range append([]int{1}, v.extra...) {
				cryptsetup(t, append(append(withHeader(hdr, "luksAddKey", "--batch-mode", "-S", strconv.Itoa(id), "--key-file", kf("K0")), csFast...), img, kf("K"+strconv.Itoa(id)))...)
			}
			hp := img
			if hdr != "" {
				hp = hdr
			}
			// The backup restores go back to: cryptsetup's, taken now.
			bak := filepath.Join(tdir, "bak")
			cryptsetup(t, append(withHeader(hdr, "luksHeaderBackup", "--header-backup-file", bak), img)...)
			if v.damage != 0 {
				b := readFile(t, hp)
				b[v.damage] ^= 0x5a
				writeFile(t, tdir, filepath.Base(hp), b)
			}
			for _, vb := range verbs {
				if vb.luks2 && v.version != 2 {
					continue
				}
				t.Run(vb.name, func(t *testing.T) {
					dirs := map[string]string{"xts": t.TempDir(), "cs": t.TempDir()}
					codes, msgs := map[string]int{}, map[string]string{}
					for tool, dir := range dirs {
						cimg, chdr := filepath.Join(dir, "img"), ""
						sparseCopy(t, img, cimg)
						if hdr != "" {
							chdr = filepath.Join(dir, "hdr")
							sparseCopy(t, hdr, chdr)
						}
						for _, k := range keys {
							writeFile(t, dir, k, readFile(t, kf(k)))
						}
						if vb.name == "header-restore" {
							// The device changes after the backup: keyslot 1
							// killed, KL added in its place.
							cryptsetup(t, append(withHeader(chdr, "luksKillSlot", "-q"), cimg, "1")...)
							cryptsetup(t, append(append(withHeader(chdr, "luksAddKey", "--batch-mode", "-S", "1", "--key-file", filepath.Join(dir, "K0")), csFast...), cimg, filepath.Join(dir, "KL"))...)
						}
						args := vb.cs
						if tool == "xts" {
							args = vb.xts
						}
						var line []string
						for _, a := range args {
							switch {
							case a == "IMG":
								a = cimg
							case a == "BAK":
								a = bak
							case a == "NEWBAK":
								a = filepath.Join(dir, "new.bak")
							case a == "OTHER":
								a = "luks" + strconv.Itoa(3-v.version)
							case strings.HasPrefix(a, "K") && len(a) == 2:
								a = filepath.Join(dir, a)
							}
							line = append(line, a)
						}
						line = append([]string{line[0]}, withHeader(chdr, line[1:]...)...)
						before := readFile(t, filepath.Join(dir, filepath.Base(hp)))
						if tool == "xts" {
							r := runCmd(t, nil, append([]string{"luks"}, line...)...)
							codes[tool], msgs[tool] = r.code, r.stderr
							if r.code != 0 {
								if r.stderr == "" {
									t.Errorf("xts exits %d without a message", r.code)
								}
								if !bytes.Equal(before, readFile(t, filepath.Join(dir, filepath.Base(hp)))) {
									t.Errorf("xts exits %d (%s) but changed the header", r.code, strings.TrimSpace(r.stderr))
								}
							}
						} else {
							codes[tool], msgs[tool] = csExit(t, "", line...)
						}
					}
					if why := v.refuse[vb.name]; why != "" {
						if codes["xts"] == 0 || !strings.Contains(msgs["xts"], why) || codes["cs"] != 0 {
							t.Errorf("want xts's documented refusal (%q) where cryptsetup succeeds: xts %d (%s), cryptsetup %d", why, codes["xts"], strings.TrimSpace(msgs["xts"]), codes["cs"])
						}
						return
					}
					if codes["xts"] != codes["cs"] {
						// xts converts layouts cryptsetup cannot (it keeps the
						// key material in place).
						if !(vb.name == "convert" && codes["xts"] == 0) {
							t.Fatalf("exit status: xts %d (%s), cryptsetup %d (%s)", codes["xts"], strings.TrimSpace(msgs["xts"]), codes["cs"], strings.TrimSpace(msgs["cs"]))
						}
						t.Logf("cryptsetup refuses (%s); xts converts", strings.TrimSpace(msgs["cs"]))
					}
					if codes["xts"] != 0 {
						return
					}
					if vb.name == "header-backup" {
						a, b := readFile(t, filepath.Join(dirs["xts"], "new.bak")), readFile(t, filepath.Join(dirs["cs"], "new.bak"))
						if v.damage != 0 { // the repaired copy's salt is new and random
							a, b = maskSalts(a), maskSalts(b)
						}
						if !bytes.Equal(a, b) {
							t.Errorf("the backups differ (%d and %d bytes)", len(a), len(b))
						}
						return
					}
					path := func(tool string) (string, string) {
						if hdr != "" {
							return filepath.Join(dirs[tool], "img"), filepath.Join(dirs[tool], "hdr")
						}
						return filepath.Join(dirs[tool], "img"), ""
					}
					xi, xh := path("xts")
					got := cmdOpens(t, dirs["xts"], xi, xh, vb.keys, true)
					if pk := cmdOpens(t, dirs["xts"], xi, xh, vb.keys, false); pk != got {
						t.Errorf("after xts, cryptsetup opens %s, the package %s", got, pk)
					}
					if codes["cs"] != 0 {
						return
					}
					ci, ch := path("cs")
					want := cmdOpens(t, dirs["cs"], ci, ch, vb.keys, false)
					if v.version == 1 && vb.name == "change-key" {
						got, want = stripSlots(got), stripSlots(want)
					}
					if got != want {
						t.Errorf("after xts:        %s\nafter cryptsetup: %s", got, want)
					}
				})
			}
		})
	}
}

// stripSlots turns "K:3 " into "K:yes " in a cmdOpens result.
func stripSlots(s string) string {
	f := strings.Fields(s)
	for i, kv := range f {
		if k, slot, _ := strings.Cut(kv, ":"); slot != "-" {
			f[i] = k + ":yes"
		}
	}
	return strings.Join(f, " ")
}

// maskSalts zeroes the salt and checksum of both LUKS2 header copies in
// a backup.
func maskSalts(b []byte) []byte {
	b = bytes.Clone(b)
	h, err := luks.ReadHeader(bytes.NewReader(b))
	if err != nil {
		return b
	}
	for _, off := range []uint64{0, h.HeaderSize} {
		clear(b[off+104 : off+168]) // salt
		clear(b[off+448 : off+512]) // checksum
	}
	return b
}
