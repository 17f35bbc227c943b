package camellia_test

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/fastxts/xts"
	"github.com/fastxts/xts/camellia"
)

// TestXTSVectors checks Camellia-XTS through the root package against
// testdata/xts.txt: XTS computed from its definition by
// testdata/gen_xts.py over OpenSSL's Camellia through Python's cryptography package in ECB mode, with the little-endian data
// unit number as tweak. Decryption is checked too.
func TestXTSVectors(t *testing.T) {
	f, err := os.Open("testdata/xts.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) != 4 {
			t.Fatalf("bad line %.60q", line)
		}
		unit, err := strconv.ParseUint(fs[1], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		key, pt, ct := unhex(t, fs[0]), unhex(t, fs[2]), unhex(t, fs[3])
		if len(pt) != len(ct) || len(pt) < 16 {
			t.Fatalf("bad lengths in %.60q", line)
		}
		c, err := xts.NewCipher(camellia.NewCipher, key)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]byte, len(pt))
		c.Encrypt(got, pt, unit)
		if !bytes.Equal(got, ct) {
			t.Errorf("%d-byte key, unit %d, %d bytes: Encrypt differs", len(key), unit, len(pt))
		}
		c.Decrypt(got, ct, unit)
		if !bytes.Equal(got, pt) {
			t.Errorf("%d-byte key, unit %d, %d bytes: Decrypt differs", len(key), unit, len(pt))
		}
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 8 {
		t.Errorf("testdata/xts.txt has %d vectors, want at least 8", n)
	}
}
