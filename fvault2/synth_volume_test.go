package fvault2

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

type writerAtBuf struct{ b []byte }

func (w *writerAtBuf) ReadAt(p []byte, off int64) (int, error) {
	return bytes.NewReader(w.b).ReadAt(p, off)
}

func (w *writerAtBuf) WriteAt(p []byte, off int64) (int, error) {
	if off < 0 || off+int64(len(p)) > int64(len(w.b)) {
		return 0, errors.New("write past the end")
	}
	return copy(w.b[off:], p), nil
}

func (w *writerAtBuf) Size() int64 { return int64(len(w.b)) }

// TestSynthetic opens synthetic volumes with the variations the test
// image lacks.
func TestSynthetic(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*synth)
	}{
		{"plain", func(*synth) {}},
		{"compressed context", func(s *synth) { s.compress = true }},
		{"context in continuation blocks", func(s *synth) { s.split = 700 }},
		{"compressed and continued", func(s *synth) { s.compress = true; s.split = 100 }},
		{"two passphrases", func(s *synth) { s.passwords = []string{"first", "second"} }},
		{"stale logical volume copy", func(s *synth) { s.stale = true }},
		{"large volume", func(s *synth) { s.lvBlocks = 600 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSynth()
			tc.mod(s)
			_, img := s.build(t)
			dev := &writerAtBuf{img}
			h, err := ReadHeader(dev)
			if err != nil {
				t.Fatal(err)
			}
			if h.PVUUID != s.pvUUID || h.FamilyUUID != s.family || h.GroupUUID != s.group || h.LVUUID != s.lvID ||
				h.LVOffset != s.lvOffset || h.LVSize != s.lvSize || h.LVName != "Synthetic" || len(h.Passphrases) != len(s.passwords) {
				t.Fatalf("header %+v does not describe the synthetic volume", h)
			}
			for i, pw := range s.passwords {
				if h.Passphrases[i].Iterations != s.iterations || !bytes.Equal(h.Passphrases[i].Salt, s.passphraseSalt[i]) {
					t.Errorf("passphrase %d: %+v", i, h.Passphrases[i])
				}
				v, err := Open(dev, []byte(pw), nil)
				if err != nil {
					t.Fatalf("password %q: %v", pw, err)
				}
				got := make([]byte, v.Size())
				if _, err := v.ReadAt(got, 0); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, s.plain) || !bytes.Equal(v.VolumeKey(), s.xtsKey()) {
					t.Fatalf("password %q: decrypted volume or key differ", pw)
				}
				v.Close()
			}
			if _, err := Open(dev, []byte("wrong"), nil); !errors.Is(err, ErrWrongPassword) {
				t.Errorf("wrong password: %v", err)
			}
		})
	}
}

// TestSyntheticRefused checks the volumes Open refuses, and that their
// errors say why.
func TestSyntheticRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		mod   func(*synth)
		img   func(s *synth, img []byte)
		want  error
		words string
	}{
		{"converting", func(s *synth) { s.conversion = "Converting" }, nil, ErrUnsupported, "Converting"},
		{"no CS", nil, func(s *synth, img []byte) { img[88] = 'X' }, ErrNotFVault2, ""},
		{"header checksum", nil, func(s *synth, img []byte) { img[200] ^= 1 }, nil, "checksum"},
		{"label checksum", nil, func(s *synth, img []byte) { img[synthBlock+100] ^= 1 }, nil, "no usable metadata"},
		{"metadata wiped", nil, func(s *synth, img []byte) {
			clear(img[s.encBlock*synthBlock : s.encBlock*synthBlock+3*metadataBlockSize])
		}, nil, "no logical volume"},
		{"device too short", nil, nil, nil, "past the"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSynth()
			if tc.mod != nil {
				tc.mod(s)
			}
			_, img := s.build(t)
			if tc.img != nil {
				tc.img(s, img)
			}
			if tc.name == "device too short" {
				img = img[:len(img)-2*synthBlock]
			}
			v, err := Open(bytes.NewReader(img), []byte("secret"), nil)
			if err == nil {
				v.Close()
				t.Fatal("opened")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "fvault2: ") || !strings.Contains(err.Error(), tc.words) {
				t.Errorf("error %q: want the fvault2: prefix and %q", err, tc.words)
			}
		})
	}
}
