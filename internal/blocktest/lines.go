package blocktest

import (
	"bufio"
	"encoding/hex"
	"os"
	"strings"
	"testing"
)

// readLines reads the lines of path that are neither empty nor comments
// ('#'), split into fields; each must have n fields.
func readLines(t testing.TB, path string, n int) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines [][]string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) != n {
			t.Fatalf("%s: bad line %.60q", path, line)
		}
		lines = append(lines, fs)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// Unhex decodes hex, failing the test on bad input.
func Unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad hex %.40q: %v", s, err)
	}
	return b
}
