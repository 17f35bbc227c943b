package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestFormatVerbsLUKS runs the format-neutral verbs over LUKS images
// (xts serve/dump --type luks; the other formats' tests run the same
// code over their images): the served data is the image's plaintext,
// the dump is xts luks dump's, and an unknown --type or a missing one is
// a usage error.
func TestFormatVerbsLUKS(t *testing.T) {
	needServeTool(t, "nbdcopy")
	raw := randBytes(t, 2<<20)
	img, pass := serveImage(t, "luks2", raw)
	out := filepath.Join(t.TempDir(), "out")
	for _, typ := range []string{"--type=luks", "-M"} {
		args := []string{"serve", typ}
		if typ == "-M" {
			args = append(args, "luks")
		}
		args = append(args, "-d", pass, "--socket", filepath.Join(t.TempDir(), "s"), "--run", `nbdcopy "$uri" `+out, img)
		r := runCmd(t, nil, args...)
		if r.code != 0 {
			t.Fatalf("xts %s: exit %d: %s", strings.Join(args, " "), r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, "xts luks serve: serving "+img) {
			t.Errorf("ready line: %q", r.stderr)
		}
		if !bytes.Equal(readFile(t, out), raw) {
			t.Fatal("the data served through --type luks differs from the image's plaintext")
		}
	}
	typed := runCmd(t, nil, "dump", "--type", "luks", img)
	plain := runCmd(t, nil, "luks", "dump", img)
	if typed.code != 0 || typed.stdout != plain.stdout || !strings.Contains(plain.stdout, "LUKS header information") {
		t.Errorf("xts dump --type luks (exit %d) differs from xts luks dump:\n%s\n---\n%s", typed.code, typed.stdout, plain.stdout)
	}
	wrong := runCmd(t, strings.NewReader("not it\n"), "serve", "--type", "luks", "--socket", filepath.Join(t.TempDir(), "s"), "--run", "true", img)
	if wrong.code != exitPermission {
		t.Errorf("a wrong passphrase: exit %d (%s), want %d", wrong.code, wrong.stderr, exitPermission)
	}
	for _, args := range [][]string{
		{"serve", "--type", "nosuch", img},
		{"mount", img, t.TempDir()},
		{"dump", "--type"},
	} {
		if r := runCmd(t, nil, args...); r.code != exitUsage {
			t.Errorf("xts %s: exit %d (%s), want %d", strings.Join(args, " "), r.code, r.stderr, exitUsage)
		}
	}
}
