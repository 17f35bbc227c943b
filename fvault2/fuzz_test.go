package fvault2

import (
	"bytes"
	"crypto/aes"
	"strings"
	"testing"

	"golang.org/x/crypto/xts"
)

// seal turns a fuzzed plaintext image into one ReadHeader can get deep
// into: with fix, the checksums of the physical volume header, the disk
// labels and the encrypted metadata blocks are recomputed; the encrypted
// metadata (wherever the label puts it, if that lies within img) is
// encrypted as Core Storage does.
func seal(img []byte, fix bool) []byte {
	img = bytes.Clone(img)
	if len(img) < pvHeaderSize {
		return img
	}
	if fix {
		synthChecksum(img[:pvHeaderSize])
	}
	pv, err := parsePVHeader(img)
	if err != nil {
		return img
	}
	for _, bn := range pv.metadataBlocks {
		off, ok := blockOffset(bn, pv.blockSize)
		if !ok || off > int64(len(img))-metadataBlockSize {
			continue
		}
		if fix {
			synthChecksum(img[off : off+metadataBlockSize])
		}
		dl, err := readDiskLabel(bytes.NewReader(img), pv, bn)
		if err != nil {
			continue
		}
		eo, ok := blockOffset(dl.encBlock, pv.blockSize)
		size := int64(dl.encBlocks) * int64(pv.blockSize)
		if !ok || eo > int64(len(img)) || size > int64(len(img))-eo {
			continue
		}
		c, err := xts.NewCipher(aes.NewCipher, append(append([]byte(nil), pv.keyData[:]...), pv.pvUUID[:]...))
		if err != nil {
			panic(err)
		}
		for i := int64(0); i < size/metadataBlockSize; i++ {
			u := img[eo+i*metadataBlockSize : eo+(i+1)*metadataBlockSize]
			if allZero(u) {
				continue
			}
			if fix && u[8] == 1 {
				synthChecksum(u)
			}
			c.Encrypt(u, u, uint64(i))
		}
		break
	}
	return img
}

// FuzzHeader runs ReadHeader (and, when the iteration counts are small,
// Open and a read) over mutated synthetic volumes: errors must be clear
// (prefixed "fvault2: "), nothing may panic, and a header that parses must
// describe a logical volume inside the physical volume.
func FuzzHeader(f *testing.F) {
	for _, mod := range []func(*synth){
		func(*synth) {},
		func(s *synth) { s.compress = true },
		func(s *synth) { s.split = 300; s.stale = true },
		func(s *synth) { s.passwords = []string{"other", "secret"} },
	} {
		s := newSynth()
		s.lvBlocks = 1
		s.iterations = 2
		mod(s)
		plain, _ := s.build(f)
		f.Add(plain, true)
	}
	f.Add(make([]byte, 600), true)
	f.Add([]byte("CS"), false)
	f.Fuzz(func(t *testing.T, img []byte, fix bool) {
		img = seal(img, fix)
		h, err := ReadHeader(bytes.NewReader(img))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fvault2: ") {
				t.Fatalf("error without the package prefix: %v", err)
			}
			return
		}
		if h.LVOffset < 0 || h.LVSize <= 0 || h.LVSize%512 != 0 || (h.PVSize > 0 && h.LVOffset+h.LVSize > h.PVSize) {
			t.Fatalf("logical volume [%d, +%d) on a %d-byte physical volume", h.LVOffset, h.LVSize, h.PVSize)
		}
		if len(h.Passphrases) == 0 {
			t.Fatal("a header without passphrases")
		}
		for _, p := range h.Passphrases {
			if p.Iterations > 100 {
				return
			}
		}
		v, err := Open(bytes.NewReader(img), []byte("secret"), &Options{ReadOnly: true})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fvault2: ") {
				t.Fatalf("error without the package prefix: %v", err)
			}
			return
		}
		buf := make([]byte, min(v.Size(), 4096))
		if _, err := v.ReadAt(buf, 0); err != nil {
			t.Fatalf("ReadAt: %v", err)
		}
		v.Close()
	})
}

// FuzzPlist runs the XML plist parser on anything: errors or values,
// never a panic.
func FuzzPlist(f *testing.F) {
	s := newSynth()
	f.Add([]byte(s.contextXML(f)))
	f.Add([]byte(s.lvXML(4096, 1)))
	f.Add([]byte(`<plist><dict><key>a</key><array><true/><false/><integer>-5</integer></array></dict></plist>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := parsePlist(b)
		if (v == nil) == (err == nil) {
			t.Fatalf("parsePlist = %v, %v", v, err)
		}
	})
}
