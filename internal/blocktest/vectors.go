package blocktest

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Vector is one line of a known-answer file: a key, a plaintext and its
// ciphertext of one or more blocks, and how many times each block is
// encrypted in a row.
type Vector struct {
	Name       string // for messages; "" for the file name and Line
	Line       int
	Key        []byte
	PT, CT     []byte
	Iterations int
}

// ReadVectors reads a known-answer file: one vector a line, the hex key,
// plaintext and ciphertext, and optionally the number of iterations;
// empty lines and lines starting with '#' are skipped. It fails the test
// on a malformed line or a file without vectors.
func ReadVectors(t testing.TB, path string) []Vector {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	name := filepath.Base(path)
	var vs []Vector
	s := bufio.NewScanner(f)
	s.Buffer(nil, 1<<20)
	for n := 1; s.Scan(); n++ {
		line := strings.TrimSpace(s.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 3 || len(fields) > 4 {
			t.Fatalf("%s:%d: want 3 or 4 fields", name, n)
		}
		v := Vector{Line: n, Iterations: 1}
		for i, p := range []*[]byte{&v.Key, &v.PT, &v.CT} {
			if *p, err = hex.DecodeString(fields[i]); err != nil {
				t.Fatalf("%s:%d: %v", name, n, err)
			}
		}
		if len(v.PT) != len(v.CT) || len(v.PT) == 0 || len(v.PT)%BlockSize != 0 {
			t.Fatalf("%s:%d: plaintext of %d bytes, ciphertext of %d", name, n, len(v.PT), len(v.CT))
		}
		if len(fields) == 4 {
			if v.Iterations, err = strconv.Atoi(fields[3]); err != nil || v.Iterations < 1 {
				t.Fatalf("%s:%d: bad iteration count", name, n)
			}
		}
		vs = append(vs, v)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	if len(vs) == 0 {
		t.Fatalf("%s: no vectors", name)
	}
	return vs
}

// Reverse reverses the bytes of every key, plaintext and ciphertext of vs,
// for files printed in the reverse byte order.
func Reverse(vs []Vector) {
	for i := range vs {
		slices.Reverse(vs[i].Key)
		slices.Reverse(vs[i].PT)
		slices.Reverse(vs[i].CT)
	}
}

// CheckVectors encrypts and decrypts every vector block by block, in place
// and into a separate buffer, and returns how many vectors it checked per
// key size.
func CheckVectors(t *testing.T, c Cipher, name string, vs []Vector) map[int]int {
	t.Helper()
	sizes := map[int]int{}
	for _, v := range vs {
		where := fmt.Sprintf("%s:%d", name, v.Line)
		if v.Name != "" {
			where = name + ": " + v.Name
		}
		b, err := c.New(v.Key)
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		sizes[len(v.Key)]++
		got := bytes.Clone(v.PT)
		for i := 0; i < len(got); i += BlockSize {
			blk := got[i : i+BlockSize]
			for range v.Iterations {
				b.Encrypt(blk, blk)
			}
		}
		if !bytes.Equal(got, v.CT) {
			t.Errorf("%s: encrypt = %x, want %x", where, got, v.CT)
			continue
		}
		if v.Iterations == 1 {
			out := make([]byte, len(v.CT))
			for i := 0; i < len(out); i += BlockSize {
				b.Decrypt(out[i:], v.CT[i:])
			}
			if !bytes.Equal(out, v.PT) {
				t.Errorf("%s: decrypt = %x, want %x", where, out, v.PT)
			}
		}
		for i := 0; i < len(got); i += BlockSize {
			blk := got[i : i+BlockSize]
			for range v.Iterations {
				b.Decrypt(blk, blk)
			}
		}
		if !bytes.Equal(got, v.PT) {
			t.Errorf("%s: in-place decrypt = %x, want %x", where, got, v.PT)
		}
	}
	t.Logf("%s: vectors per key size %v", name, sizes)
	return sizes
}
