// Package gencheck checks that a generated file is what its generator in
// the current directory writes now, for the generators' tests.
package gencheck

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Fresh runs `go run . -out TMP` in the current directory and returns what
// it wrote, after checking that it equals committed (the path of the file
// in the tree) in all but the first line, which records the command line
// and so names the output path. On a difference the test fails with
// regenerate, the command that brings the file up to date.
func Fresh(t *testing.T, committed, regenerate string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(committed))
	if b, err := exec.Command("go", "run", ".", "-out", out).CombinedOutput(); err != nil {
		t.Fatalf("generator: %v\n%s", err, b)
	}
	fresh, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	body := func(b []byte) []byte { _, rest, _ := bytes.Cut(b, []byte("\n")); return rest }
	if !bytes.Equal(body(fresh), body(old)) {
		t.Fatalf("%s is stale: run '%s'", committed, regenerate)
	}
	return fresh
}
