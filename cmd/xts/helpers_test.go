package main

import (
	"bytes"
	"crypto/aes"
	"crypto/rand"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fastxts/xts"
)

// result is what one in-process run of the command produced.
type result struct {
	code           int
	stdout, stderr string
}

// runCmd runs the command line with stdin as standard input.
func runCmd(t *testing.T, stdin io.Reader, args ...string) result {
	t.Helper()
	return runCmdIn(t, env{}, stdin, args...)
}

// runCmdIn is runCmd with the test settings of e (its streams are
// replaced).
func runCmdIn(t *testing.T, e env, stdin io.Reader, args ...string) result {
	t.Helper()
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var out, errb bytes.Buffer
	e.stdin, e.stdout, e.stderr = stdin, &out, &errb
	code := e.run(args)
	return result{code, out.String(), errb.String()}
}

// runBytes is runCmd for a run whose standard output is binary data.
func runBytes(t *testing.T, stdin []byte, args ...string) (int, []byte, string) {
	t.Helper()
	return runBytesIn(t, env{}, stdin, args...)
}

// runBytesIn is runBytes with the test settings of e.
func runBytesIn(t *testing.T, e env, stdin []byte, args ...string) (int, []byte, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e.stdin, e.stdout, e.stderr = bytes.NewReader(stdin), &out, &errb
	code := e.run(args)
	return code, out.Bytes(), errb.String()
}

func randBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	rand.Read(b)
	return b
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// dirNames lists a directory, to prove that a failed run left nothing
// behind (no output, no temporary file).
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}

// dmReference encrypts or decrypts an image sector by sector with the
// single-unit API: sector k under the sector number ivs[k], which the test
// computes itself from dm-crypt's rules. It shares nothing with the
// command's numbering or pump.
func dmReference(t *testing.T, key, data []byte, sectorSize int, ivs func(k uint64) uint64, encrypt bool) []byte {
	t.Helper()
	c, err := xts.NewCipher(aes.NewCipher, key, xts.WithImplementation("generic"))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]byte, len(data))
	for k := 0; k*sectorSize < len(data); k++ {
		lo, hi := k*sectorSize, (k+1)*sectorSize
		if encrypt {
			c.Encrypt(out[lo:hi], data[lo:hi], ivs(uint64(k)))
		} else {
			c.Decrypt(out[lo:hi], data[lo:hi], ivs(uint64(k)))
		}
	}
	return out
}
