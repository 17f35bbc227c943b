package xts

import (
	"bytes"
	"crypto/aes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

type vector struct {
	id                    string
	key                   []byte
	tweak                 [16]byte
	plaintext, ciphertext []byte
	identicalHalves       bool
}

// loadVectors reads every known-answer file in testdata (IEEE 1619 Annex B
// and the extra vectors; see testdata/README.md).
func loadVectors(t testing.TB) []vector {
	t.Helper()
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no vector files in testdata: %v", err)
	}
	var all []vector
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Vectors []struct {
				ID              string `json:"id"`
				Key             string `json:"key"`
				Tweak           string `json:"tweak"`
				Plaintext       string `json:"plaintext"`
				Ciphertext      string `json:"ciphertext"`
				IdenticalHalves bool   `json:"identical_halves"`
			} `json:"vectors"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, v := range doc.Vectors {
			dec := func(s string) []byte {
				b, err := hex.DecodeString(s)
				if err != nil {
					t.Fatalf("%s %s: %v", f, v.ID, err)
				}
				return b
			}
			tw := dec(v.Tweak)
			if len(tw) != 16 {
				t.Fatalf("%s %s: tweak of %d bytes", f, v.ID, len(tw))
			}
			vec := vector{id: v.ID, key: dec(v.Key), plaintext: dec(v.Plaintext),
				ciphertext: dec(v.Ciphertext), identicalHalves: v.IdenticalHalves}
			copy(vec.tweak[:], tw)
			all = append(all, vec)
		}
	}
	if len(all) < 700 {
		t.Fatalf("only %d vectors loaded", len(all))
	}
	return all
}

func TestKnownAnswers(t *testing.T) {
	vectors := loadVectors(t)
	forEachImpl(t, func(t *testing.T, name string) {
		for _, v := range vectors {
			c, err := NewCipher(aes.NewCipher, v.key, WithImplementation(name), AllowEqualKeyHalves())
			if err != nil {
				t.Fatalf("%s: %v", v.id, err)
			}
			got := make([]byte, len(v.plaintext))
			c.EncryptWithTweak(got, v.plaintext, v.tweak)
			if !bytes.Equal(got, v.ciphertext) {
				t.Fatalf("%s: encrypt\n got %x\nwant %x", v.id, got, v.ciphertext)
			}
			c.DecryptWithTweak(got, v.ciphertext, v.tweak)
			if !bytes.Equal(got, v.plaintext) {
				t.Fatalf("%s: decrypt\n got %x\nwant %x", v.id, got, v.plaintext)
			}
			// In place.
			buf := bytes.Clone(v.plaintext)
			c.EncryptWithTweak(buf, buf, v.tweak)
			if !bytes.Equal(buf, v.ciphertext) {
				t.Fatalf("%s: in-place encrypt wrong", v.id)
			}
			c.DecryptWithTweak(buf, buf, v.tweak)
			if !bytes.Equal(buf, v.plaintext) {
				t.Fatalf("%s: in-place decrypt wrong", v.id)
			}
		}
	})
}

// TestEqualHalvesRefused: IEEE vector 1 has identical key halves; it is
// refused unless AllowEqualKeyHalves is given.
func TestEqualHalvesRefused(t *testing.T) {
	n := 0
	for _, v := range loadVectors(t) {
		if !v.identicalHalves {
			continue
		}
		n++
		_, err := NewCipher(aes.NewCipher, v.key)
		if !errors.Is(err, ErrEqualKeyHalves) {
			t.Errorf("%s: NewCipher error = %v, want ErrEqualKeyHalves", v.id, err)
		}
	}
	if n == 0 {
		t.Fatal("no vector with identical halves found")
	}
}
