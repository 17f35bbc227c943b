package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// csVerb is cryptsetup's name for each header verb.
var csVerb = map[string]string{
	"header-backup": "luksHeaderBackup", "header-restore": "luksHeaderRestore",
	"config": "config", "uuid": "luksUUID", "convert": "convert",
}

// dumpLines is cryptsetup luksDump of img (with --header hdr when not
// ""), without the lines that name where key material lies (Convert
// keeps it in place, cryptsetup moves it).
func dumpLines(t *testing.T, img string) string {
	t.Helper()
	out := strings.ReplaceAll(cryptsetup(t, "luksDump", img), img, "IMAGE")
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if !strings.Contains(l, "Area offset") && !strings.Contains(l, "Key material offset") && !strings.Contains(l, "Keyslots area") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// TestLUKSHeaderVerbsMatchCryptsetup runs each header verb and
// cryptsetup's on copies of the same image: the same exit status, the
// same standard output, cryptsetup's message in ours when it fails, the
// image unchanged by both or changed by both to what luksDump shows the
// same (convert: but for where the key material lies), the passphrase
// still opening in cryptsetup; header backups byte for byte the same and
// mode 0400.
func TestLUKSHeaderVerbsMatchCryptsetup(t *testing.T) {
	needCryptsetup(t)
	dir := t.TempDir()
	pass := writeFile(t, dir, "pass", []byte("hunter2"))
	format := func(name string, size int64, args ...string) string {
		p := filepath.Join(dir, name)
		writeFile(t, dir, name, nil)
		os.Truncate(p, size)
		cryptsetup(t, append(append(append([]string{"luksFormat", "--batch-mode", "--key-file", pass}, csFast...), args...), p)...)
		return p
	}
	bases := map[string]string{
		"luks2":      format("luks2", 20<<20, "--type", "luks2", "--sector-size", "512"),
		"luks2-4k":   format("luks2-4k", 20<<20, "--type", "luks2", "--sector-size", "4096"),
		"luks2-off":  format("luks2-off", 24<<20, "--type", "luks2", "--offset", "40960"),
		"luks1":      format("luks1", 4<<20, "--type", "luks1"),
		"luks1-256":  format("luks1-256", 4<<20, "--type", "luks1", "--key-size", "256"),
		"luks2-same": "",
	}
	bases["zeros"] = writeFile(t, dir, "zeros", make([]byte, 20<<20))
	backups := map[string]string{}
	for _, b := range []string{"luks2", "luks2-off", "luks1", "luks1-256"} {
		backups[b] = filepath.Join(dir, b+".bak")
		cryptsetup(t, "luksHeaderBackup", "--header-backup-file", backups[b], bases[b])
	}
	other := format("other2", 20<<20, "--type", "luks2", "--sector-size", "512")
	backups["other2"] = filepath.Join(dir, "other2.bak")
	cryptsetup(t, "luksHeaderBackup", "--header-backup-file", backups["other2"], other)
	backups["zeros"] = writeFile(t, dir, "zeros.bak", make([]byte, 1<<20))
	delete(bases, "luks2-same")

	cases := []struct {
		name, base string
		args       []string // BAK=x: the backup of x; NEW: a path that does not exist; EXISTS: one that does
	}{
		{"backup-luks2", "luks2", []string{"header-backup", "--header-backup-file", "NEW"}},
		{"backup-luks1", "luks1", []string{"header-backup", "--header-backup-file", "NEW"}},
		{"backup-exists", "luks2", []string{"header-backup", "--header-backup-file", "EXISTS"}},
		{"backup-not-luks", "zeros", []string{"header-backup", "--header-backup-file", "NEW"}},
		{"backup-no-file-flag", "luks2", []string{"header-backup"}},
		{"restore-same", "luks2", []string{"header-restore", "-q", "--header-backup-file", "BAK=luks2"}},
		{"restore-other-uuid", "luks2", []string{"header-restore", "-q", "--header-backup-file", "BAK=other2"}},
		{"restore-data-offset", "luks2", []string{"header-restore", "-q", "--header-backup-file", "BAK=luks2-off"}},
		{"restore-luks1-key-size", "luks1", []string{"header-restore", "-q", "--header-backup-file", "BAK=luks1-256"}},
		{"restore-not-luks-backup", "luks2", []string{"header-restore", "-q", "--header-backup-file", "BAK=zeros"}},
		{"restore-onto-zeros", "zeros", []string{"header-restore", "-q", "--header-backup-file", "BAK=luks2"}},
		{"config-label-subsystem", "luks2", []string{"config", "--label", "my label", "--subsystem", "sub"}},
		{"config-label-truncated", "luks2", []string{"config", "--label", strings.Repeat("x", 50)}},
		{"config-priority", "luks2", []string{"config", "--priority", "prefer", "-S", "0"}},
		{"config-priority-inactive", "luks2", []string{"config", "--priority", "ignore", "-S", "5"}},
		{"config-priority-no-slot", "luks2", []string{"config", "--priority", "prefer"}},
		{"config-priority-bad", "luks2", []string{"config", "--priority", "high", "-S", "0"}},
		{"config-nothing", "luks2", []string{"config"}},
		{"config-luks1", "luks1", []string{"config", "--label", "x"}},
		{"uuid-print-luks2", "luks2", []string{"uuid"}},
		{"uuid-print-luks1", "luks1", []string{"uuid"}},
		{"uuid-set-luks2", "luks2", []string{"uuid", "-q", "--uuid", "01234567-89AB-cdef-0123-456789abcdef"}},
		{"uuid-set-luks1", "luks1", []string{"uuid", "-q", "--uuid", "01234567-89ab-cdef-0123-456789abcdef"}},
		{"uuid-bad", "luks2", []string{"uuid", "-q", "--uuid", "0123"}},
		{"convert-to-luks1", "luks2", []string{"convert", "-q", "--type", "luks1"}},
		{"convert-to-luks2", "luks1", []string{"convert", "-q", "--type", "luks2"}},
		{"convert-already", "luks2", []string{"convert", "-q", "--type", "luks2"}},
		{"convert-sector-4k", "luks2-4k", []string{"convert", "-q", "--type", "luks1"}},
		{"convert-bad-type", "luks2", []string{"convert", "-q", "--type", "luks3"}},
		{"convert-not-luks", "zeros", []string{"convert", "-q", "--type", "luks1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := t.TempDir()
			base := readFile(t, bases[c.base])
			ours, theirs := writeFile(t, d, "ours", base), writeFile(t, d, "theirs", base)
			args := func(tool, img string) []string {
				var out []string
				for _, a := range c.args {
					switch {
					case a == "NEW":
						a = filepath.Join(d, tool+".bak")
					case a == "EXISTS":
						a = writeFile(t, d, tool+".exists", []byte("x"))
					case strings.HasPrefix(a, "BAK="):
						a = backups[strings.TrimPrefix(a, "BAK=")]
					}
					out = append(out, a)
				}
				return append(out, img)
			}
			a := args("ours", ours)
			r := runCmd(t, strings.NewReader(""), append([]string{"luks"}, a...)...)
			csArgs := args("theirs", theirs)
			csArgs[0] = csVerb[csArgs[0]]
			cmd := exec.Command("cryptsetup", csArgs...)
			var so, se bytes.Buffer
			cmd.Stdout, cmd.Stderr = &so, &se
			csCode := 0
			if err := cmd.Run(); err != nil {
				ee, ok := err.(*exec.ExitError)
				if !ok {
					t.Fatal(err)
				}
				csCode = ee.ExitCode()
			}
			if r.code != csCode {
				t.Fatalf("exit status %d, cryptsetup's %d\nours: %s\ncryptsetup: %s", r.code, csCode, r.stderr, se.String())
			}
			if r.stdout != so.String() {
				t.Fatalf("standard output %q, cryptsetup's %q", r.stdout, so.String())
			}
			csErr := strings.ReplaceAll(se.String(), "theirs", "ours") // the paths in messages
			if msg := strings.TrimSpace(strings.Split(strings.TrimSpace(csErr), "\n")[0]); csCode != 0 && msg != "" && !strings.HasPrefix(msg, "Usage:") && !strings.Contains(r.stderr, msg) {
				// cryptsetup's first line; its usage dump ends with the message.
				t.Fatalf("our message %q lacks cryptsetup's %q", r.stderr, msg)
			}
			if lines := strings.Split(strings.TrimSpace(csErr), "\n"); csCode != 0 && strings.HasPrefix(lines[0], "Usage:") {
				last := strings.TrimPrefix(lines[len(lines)-1], "cryptsetup: ")
				if !strings.Contains(r.stderr, last) {
					t.Fatalf("our message %q lacks cryptsetup's %q", r.stderr, last)
				}
			}
			changedOurs, changedTheirs := !bytes.Equal(readFile(t, ours), base), !bytes.Equal(readFile(t, theirs), base)
			if changedOurs != changedTheirs {
				t.Fatalf("the image changed: ours %v, cryptsetup's %v", changedOurs, changedTheirs)
			}
			if c.args[0] == "header-backup" && csCode == 0 {
				ob, cb := filepath.Join(d, "ours.bak"), filepath.Join(d, "theirs.bak")
				if !bytes.Equal(readFile(t, ob), readFile(t, cb)) {
					t.Fatal("the backups differ")
				}
				if fi, err := os.Stat(ob); err != nil || fi.Mode().Perm() != 0o400 {
					t.Fatalf("our backup's mode: %v %v", fi.Mode(), err)
				}
			}
			if !changedOurs {
				return
			}
			if got, want := dumpLines(t, ours), dumpLines(t, theirs); got != want {
				t.Fatalf("luksDump after ours:\n%s\nafter cryptsetup's:\n%s", got, want)
			}
			cryptsetup(t, "open", "--test-passphrase", "--batch-mode", "--key-file", pass, ours)
		})
	}
}
