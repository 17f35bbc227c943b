package camellia_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/cipher"
	"encoding/hex"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/fastxts/xts/camellia"
)

// openGz opens a gzip-compressed file of testdata line by line.
func openGz(t *testing.T, name string) *bufio.Scanner {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	return bufio.NewScanner(z)
}

// TestNTTVectors checks the designers' test vector file for Camellia
// (NTT and Mitsubishi Electric, t_camellia.txt, the set submitted to
// CRYPTREC and NESSIE): for each key size, 10 keys and 128 plaintexts per
// key, 3840 vectors in all, in both directions.
func TestNTTVectors(t *testing.T) {
	sc := openGz(t, "testdata/ntt_t_camellia.txt.gz")
	line := regexp.MustCompile(`^([KPC]) No\.(\d+) : ([0-9A-Fa-f ]+)$`)
	var b cipher.Block
	var pt []byte
	n, keyLen := 0, 0
	sizes := map[int]int{} // vectors per key length
	for sc.Scan() {
		m := line.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		v, err := hex.DecodeString(strings.ReplaceAll(m[3], " ", ""))
		if err != nil {
			t.Fatalf("bad line %q", sc.Text())
		}
		switch m[1] {
		case "K":
			b, err = camellia.NewCipher(v)
			if err != nil {
				t.Fatal(err)
			}
			pt = nil
			keyLen = len(v)
		case "P":
			pt = v
		case "C":
			if b == nil || pt == nil {
				t.Fatalf("ciphertext without key or plaintext: %q", sc.Text())
			}
			got := make([]byte, 16)
			b.Encrypt(got, pt)
			if !bytes.Equal(got, v) {
				t.Errorf("%s: Encrypt(%x) = %x, want %x", sc.Text(), pt, got, v)
			}
			b.Decrypt(got, v)
			if !bytes.Equal(got, pt) {
				t.Errorf("%s: Decrypt(%x) = %x, want %x", sc.Text(), v, got, pt)
			}
			n++
			sizes[keyLen]++
			pt = nil
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 3840 || sizes[16] != 1280 || sizes[24] != 1280 || sizes[32] != 1280 {
		t.Errorf("checked %d vectors (%v by key length), want 1280 for each of 16, 24 and 32 bytes", n, sizes)
	}
}

// TestNESSIEVectors checks the NESSIE test vectors of Camellia with
// 128-bit keys, all eight sets (1028 vectors): encryption, decryption and
// the iterated encryptions (100 and 1000 times; under -short, those of
// every 16th vector).
func TestNESSIEVectors(t *testing.T) {
	sc := openGz(t, "testdata/nessie_camellia128.txt.gz")
	field := regexp.MustCompile(`^\s*([A-Za-z0-9 ]+?)=([0-9A-Fa-f]+)$`)
	n, iterated := 0, 0
	vec := map[string][]byte{}
	name := ""
	check := func() {
		if len(vec) == 0 {
			return
		}
		key, pt, ct := vec["key"], vec["plain"], vec["cipher"]
		if key == nil || pt == nil || ct == nil {
			t.Fatalf("%s: incomplete vector", name)
		}
		b, err := camellia.NewCipher(key)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]byte, 16)
		b.Encrypt(got, pt)
		if !bytes.Equal(got, ct) {
			t.Errorf("%s: Encrypt = %x, want %x", name, got, ct)
		}
		b.Decrypt(got, ct)
		if !bytes.Equal(got, pt) {
			t.Errorf("%s: Decrypt = %x, want %x", name, got, pt)
		}
		if d := vec["decrypted"]; d != nil && !bytes.Equal(d, pt) {
			t.Errorf("%s: the file's decrypted differs from plain", name)
		}
		if e := vec["encrypted"]; e != nil && !bytes.Equal(e, ct) {
			t.Errorf("%s: the file's encrypted differs from cipher", name)
		}
		// Under -short, the iterated values of every 16th vector only.
		if testing.Short() && n%16 != 0 {
			n++
			clear(vec)
			return
		}
		x := bytes.Clone(pt)
		for i := 1; i <= 1000; i++ {
			b.Encrypt(x, x)
			var label string
			switch i {
			case 100:
				label = "Iterated 100 times"
			case 1000:
				label = "Iterated 1000 times"
			default:
				continue
			}
			if want := vec[label]; want != nil {
				iterated++
				if !bytes.Equal(x, want) {
					t.Errorf("%s: %s = %x, want %x", name, label, x, want)
				}
			}
		}
		n++
		clear(vec)
	}
	for sc.Scan() {
		s := sc.Text()
		if strings.HasPrefix(s, "Set ") {
			check()
			name = strings.TrimSuffix(s, ":")
			continue
		}
		if m := field.FindStringSubmatch(s); m != nil && name != "" {
			v, err := hex.DecodeString(m[2])
			if err != nil {
				t.Fatalf("bad line %q", s)
			}
			vec[strings.TrimSpace(m[1])] = v
		}
	}
	check()
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 1028 || iterated == 0 || !testing.Short() && iterated != 2*514 {
		t.Errorf("checked %d vectors and %d iterated values, want 1028 and 1028", n, iterated)
	}
}
