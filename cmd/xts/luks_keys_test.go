package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// keyPassNames are the key files of the key-verb images: K0, K1 and K2
// open keyslots 0, 1 and 2; KW opens nothing; KN is a new passphrase.
var keyPassNames = []string{"K0", "K1", "K2", "KW", "KN"}

// keyVerbImage has cryptsetup make an image (LUKS1 or LUKS2, the header
// detached or not) with keyslots 0, 1 and 2 for K0, K1 and K2 (only 0
// when one is set), and writes the key files into dir.
func keyVerbImage(t *testing.T, dir string, version int, detached, one bool) (img, hdr string) {
	t.Helper()
	needCryptsetup(t)
	for _, k := range keyPassNames {
		writeFile(t, dir, k, []byte("passphrase "+k))
	}
	img = filepath.Join(dir, "template")
	size := int64(4 << 20)
	if version == 2 && !detached {
		size = 17 << 20
	}
	writeFile(t, dir, "template", nil)
	if err := os.Truncate(img, size); err != nil {
		t.Fatal(err)
	}
	format := []string{"luksFormat", "--batch-mode", "--type", "luks" + strconv.Itoa(version), "--key-file", filepath.Join(dir, "K0")}
	if detached {
		hdr = filepath.Join(dir, "template-hdr")
		format = append(format, "--header", hdr)
	}
	cryptsetup(t, append(append(format, csFast...), img)...)
	if !one {
		for _, k := range []string{"K1", "K2"} {
			cryptsetup(t, append(append(withHeader(hdr, "luksAddKey", "--batch-mode", "--key-file", filepath.Join(dir, "K0")), csFast...), img, filepath.Join(dir, k))...)
		}
	}
	return img, hdr
}

// csExit runs cryptsetup with stdin as its standard input and returns
// its exit status and output.
func csExit(t *testing.T, stdin string, args ...string) (int, string) {
	t.Helper()
	c := exec.Command("cryptsetup", args...)
	c.Stdin = strings.NewReader(stdin)
	out, err := c.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &ee):
		return ee.ExitCode(), string(out)
	}
	t.Fatalf("cryptsetup %v: %v", args, err)
	return -1, ""
}

var keySlotRE = regexp.MustCompile(`Key slot (\d+) unlocked`)

// keyVerbState says, for each key file, the keyslot it opens in
// cryptsetup (open --test-passphrase), and lists the keyslots luksDump
// shows.
func keyVerbState(t *testing.T, dir, img, hdr string) string {
	t.Helper()
	var b strings.Builder
	for _, k := range keyPassNames {
		code, out := csExit(t, "", append(withHeader(hdr, "open", "--test-passphrase", "-v", "--key-file", filepath.Join(dir, k)), img)...)
		slot := "-"
		if m := keySlotRE.FindStringSubmatch(out); code == 0 && m != nil {
			slot = m[1]
		}
		b.WriteString(k + ":" + slot + " ")
	}
	dump, err := exec.Command("cryptsetup", append(withHeader(hdr, "luksDump"), img)...).CombinedOutput()
	if err != nil {
		t.Fatalf("luksDump: %v\n%s", err, dump)
	}
	b.WriteString("keyslots")
	for _, l := range strings.Split(string(dump), "\n") {
		if m := regexp.MustCompile(`^  (\d+): luks2|^Key Slot (\d+): ENABLED`).FindStringSubmatch(l); m != nil {
			b.WriteString(" " + m[1] + m[2])
		}
	}
	return b.String()
}

// TestLUKSKeyVerbsLikeCryptsetup runs each key command with xts and the
// same cryptsetup verb on copies of one image (LUKS2 and LUKS1; a
// detached header; an image with one keyslot) and compares the exit
// statuses and which key file then opens which keyslot. Where xts is
// documented to differ (it asks before removing the last keyslot or
// erasing even when standard input is not a terminal, reading the answer
// from it; cryptsetup goes ahead) the test says what each must do.
func TestLUKSKeyVerbsLikeCryptsetup(t *testing.T) {
	needCryptsetup(t)
	fast := csFast
	type verbCase struct {
		name    string
		xts, cs []string // IMG, HDR and the key file names are replaced
		stdin   string
		code    int
		xtsCode int // when it differs from cryptsetup's (-1: the same)
		luks1   bool
	}
	changeFlags := append([]string{}, fast...)
	cases := []verbCase{
		{name: "kill-slot", xts: []string{"kill-slot", "-d", "K0", "IMG", "1"}, cs: []string{"luksKillSlot", "--key-file", "K0", "IMG", "1"}},
		{name: "kill-slot-wrong-passphrase", xts: []string{"kill-slot", "-d", "KW", "IMG", "1"}, cs: []string{"luksKillSlot", "--key-file", "KW", "IMG", "1"}, code: 2},
		{name: "kill-slot-its-own-passphrase", xts: []string{"kill-slot", "-d", "K1", "IMG", "1"}, cs: []string{"luksKillSlot", "--key-file", "K1", "IMG", "1"}, code: 2},
		{name: "kill-slot-batch", xts: []string{"kill-slot", "-q", "IMG", "2"}, cs: []string{"luksKillSlot", "-q", "IMG", "2"}},
		{name: "kill-slot-batch-wrong-key-file", xts: []string{"kill-slot", "-q", "-d", "KW", "IMG", "2"}, cs: []string{"luksKillSlot", "-q", "--key-file", "KW", "IMG", "2"}, code: 2},
		{name: "kill-slot-inactive", xts: []string{"kill-slot", "-d", "K0", "IMG", "5"}, cs: []string{"luksKillSlot", "--key-file", "K0", "IMG", "5"}, code: 1},
		{name: "kill-slot-out-of-range", xts: []string{"kill-slot", "-q", "IMG", "32"}, cs: []string{"luksKillSlot", "-q", "IMG", "32"}, code: 1},
		{name: "kill-slot-8-luks1", xts: []string{"kill-slot", "-q", "IMG", "8"}, cs: []string{"luksKillSlot", "-q", "IMG", "8"}, code: 1, luks1: true},
		{name: "kill-slot-passphrase-on-stdin", xts: []string{"kill-slot", "IMG", "0"}, cs: []string{"luksKillSlot", "IMG", "0"}, stdin: "passphrase K2\n"},
		{name: "remove-key", xts: []string{"remove-key", "IMG", "K2"}, cs: []string{"luksRemoveKey", "IMG", "K2"}},
		{name: "remove-key-key-file", xts: []string{"remove-key", "-d", "K1", "IMG"}, cs: []string{"luksRemoveKey", "--key-file", "K1", "IMG"}},
		{name: "remove-key-wrong", xts: []string{"remove-key", "-d", "KW", "IMG"}, cs: []string{"luksRemoveKey", "--key-file", "KW", "IMG"}, code: 2},
		{name: "change-key", xts: append([]string{"change-key", "-d", "K1", "IMG", "KN"}, changeFlags...), cs: append([]string{"luksChangeKey", "--key-file", "K1", "IMG", "KN"}, fast...)},
		{name: "change-key-stdin", xts: append([]string{"change-key", "IMG"}, changeFlags...), cs: append([]string{"luksChangeKey", "IMG"}, fast...), stdin: "passphrase K2\npassphrase KN\n"},
		{name: "change-key-wrong", xts: append([]string{"change-key", "-d", "KW", "IMG", "KN"}, changeFlags...), cs: append([]string{"luksChangeKey", "--key-file", "KW", "IMG", "KN"}, fast...), code: 2},
		{name: "change-key-inactive-slot", xts: append([]string{"change-key", "-S", "5", "-d", "K0", "IMG", "KN"}, changeFlags...), cs: append([]string{"luksChangeKey", "-S", "5", "--key-file", "K0", "IMG", "KN"}, fast...), code: 1},
		{name: "change-key-other-slot", xts: append([]string{"change-key", "-S", "0", "-d", "K1", "IMG", "KN"}, changeFlags...), cs: append([]string{"luksChangeKey", "-S", "0", "--key-file", "K1", "IMG", "KN"}, fast...), code: 2},
		{name: "erase-batch", xts: []string{"erase", "-q", "IMG"}, cs: []string{"luksErase", "-q", "IMG"}},
		{name: "erase-yes", xts: []string{"erase", "IMG"}, cs: []string{"luksErase", "IMG"}, stdin: "YES\n"},
		{name: "erase-no-answer", xts: []string{"erase", "IMG"}, cs: []string{"luksErase", "IMG"}, xtsCode: 2},
		{name: "not-luks-kill-slot", xts: []string{"kill-slot", "-q", "K0", "1"}, cs: []string{"luksKillSlot", "-q", "K0", "1"}, code: 1},
		{name: "not-luks-remove-key", xts: []string{"remove-key", "K0", "K1"}, cs: []string{"luksRemoveKey", "K0", "K1"}, code: 1},
		{name: "not-luks-change-key", xts: []string{"change-key", "-d", "K1", "K0", "K1"}, cs: []string{"luksChangeKey", "--key-file", "K1", "K0", "K1"}, code: 1},
		{name: "not-luks-erase", xts: []string{"erase", "-q", "K0"}, cs: []string{"luksErase", "-q", "K0"}, code: 1},
		{name: "no-such-image", xts: []string{"erase", "-q", "nothing"}, cs: []string{"luksErase", "-q", "nothing"}, code: 4},
	}
	type image struct {
		name     string
		version  int
		detached bool
		one      bool
		cases    []verbCase
	}
	lastKey := []verbCase{ // an image with keyslot 0 only
		{name: "remove-last-no-answer", xts: []string{"remove-key", "IMG", "K0"}, cs: []string{"luksRemoveKey", "IMG", "K0"}, xtsCode: 2},
		{name: "remove-last-yes", xts: []string{"remove-key", "IMG", "K0"}, cs: []string{"luksRemoveKey", "IMG", "K0"}, stdin: "YES\n"},
		{name: "remove-last-force", xts: []string{"remove-key", "--force", "IMG", "K0"}, cs: []string{"luksRemoveKey", "IMG", "K0"}},
		{name: "remove-last-wrong", xts: []string{"remove-key", "IMG", "KW"}, cs: []string{"luksRemoveKey", "IMG", "KW"}, code: 2},
		{name: "kill-last-no-answer", xts: []string{"kill-slot", "-d", "K0", "IMG", "0"}, cs: []string{"luksKillSlot", "--key-file", "K0", "IMG", "0"}, xtsCode: 2},
		{name: "kill-last-batch", xts: []string{"kill-slot", "-q", "-d", "K0", "IMG", "0"}, cs: []string{"luksKillSlot", "-q", "--key-file", "K0", "IMG", "0"}},
		{name: "kill-last-wrong", xts: []string{"kill-slot", "--force", "-d", "KW", "IMG", "0"}, cs: []string{"luksKillSlot", "--key-file", "KW", "IMG", "0"}, code: 2},
	}
	images := []image{
		{"luks2", 2, false, false, cases},
		{"luks1", 1, false, false, cases},
		{"luks2-detached", 2, true, false, cases[:3]},
		{"luks2-one-keyslot", 2, false, true, lastKey},
	}
	if testing.Short() {
		t.Log("-short: LUKS2 images only (LUKS1 in the full run)")
		images = []image{images[0], images[3]}
	}
	for _, im := range images {
		t.Run(im.name, func(t *testing.T) {
			tdir := t.TempDir()
			template, thdr := keyVerbImage(t, tdir, im.version, im.detached, im.one)
			for _, tc := range im.cases {
				if tc.luks1 && im.version != 1 {
					continue
				}
				t.Run(tc.name, func(t *testing.T) {
					dirs := map[string]string{"xts": t.TempDir(), "cs": t.TempDir()}
					codes, states := map[string]int{}, map[string]string{}
					for tool, dir := range dirs {
						img, hdr := filepath.Join(dir, "img"), ""
						writeFile(t, dir, "img", readFile(t, template))
						if thdr != "" {
							hdr = filepath.Join(dir, "hdr")
							writeFile(t, dir, "hdr", readFile(t, thdr))
						}
						for _, k := range keyPassNames {
							writeFile(t, dir, k, readFile(t, filepath.Join(tdir, k)))
						}
						args := tc.cs
						if tool == "xts" {
							args = tc.xts
						}
						var line []string
						for _, a := range args {
							switch {
							case a == "IMG":
								a = img
							case strings.HasPrefix(a, "K") && len(a) == 2:
								a = filepath.Join(dir, a)
							}
							line = append(line, a)
						}
						if hdr != "" {
							line = append([]string{line[0], "--header", hdr}, line[1:]...)
						}
						if tool == "xts" {
							r := runCmd(t, strings.NewReader(tc.stdin), append([]string{"luks"}, line...)...)
							codes[tool] = r.code
							if r.code != 0 && r.stderr == "" {
								t.Errorf("xts exits %d without a message", r.code)
							}
						} else {
							codes[tool], _ = csExit(t, tc.stdin, line...)
						}
						if strings.HasPrefix(tc.name, "not-luks") || tc.name == "no-such-image" {
							continue
						}
						states[tool] = keyVerbState(t, dir, img, hdr)
					}
					wantXts := tc.code
					if tc.xtsCode != 0 {
						wantXts = tc.xtsCode
					}
					if codes["cs"] != tc.code || codes["xts"] != wantXts {
						t.Fatalf("exit status: xts %d, cryptsetup %d; want %d and %d", codes["xts"], codes["cs"], wantXts, tc.code)
					}
					if tc.xtsCode != 0 {
						// xts refused: its image still has every keyslot.
						if want := keyVerbState(t, tdir, template, thdr); states["xts"] != want {
							t.Fatalf("the refused xts command changed the keyslots: %s; was %s", states["xts"], want)
						}
						return
					}
					if states["xts"] != states["cs"] {
						t.Fatalf("after xts:        %s\nafter cryptsetup: %s", states["xts"], states["cs"])
					}
				})
			}
		})
	}
}

// TestLUKSKeyVerbsHelp: each key command has --help (exit 0, the usage
// on standard output) and refuses wrong argument counts with exit 1.
func TestLUKSKeyVerbsHelp(t *testing.T) {
	for _, tc := range []struct {
		cmd   string
		usage string
		bad   []string
	}{
		{"remove-key", "Usage: xts luks remove-key", []string{"a", "b", "c"}},
		{"kill-slot", "Usage: xts luks kill-slot", []string{"img"}},
		{"change-key", "Usage: xts luks change-key", nil},
		{"erase", "Usage: xts luks erase", []string{"a", "b"}},
	} {
		r := runCmd(t, nil, "luks", tc.cmd, "--help")
		if r.code != 0 || !strings.HasPrefix(r.stdout, tc.usage) {
			t.Errorf("%s --help: exit %d, %q", tc.cmd, r.code, r.stdout)
		}
		if r := runCmd(t, nil, append([]string{"luks", tc.cmd}, tc.bad...)...); r.code != 1 || !strings.Contains(r.stderr, "want IMAGE") {
			t.Errorf("%s %v: exit %d, %q", tc.cmd, tc.bad, r.code, r.stderr)
		}
	}
	if r := runCmd(t, nil, "luks", "kill-slot", "-q", "img", "abc"); r.code != 1 || !strings.Contains(r.stderr, "not a number") {
		t.Errorf("kill-slot abc: exit %d, %q", r.code, r.stderr)
	}
	if r := runCmd(t, nil, "luks", "--help"); !strings.Contains(r.stdout, "xts luks kill-slot") || !strings.Contains(r.stdout, "xts luks erase") {
		t.Errorf("luks --help lacks the key commands:\n%s", r.stdout)
	}
}
