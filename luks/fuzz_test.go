package luks

import (
	"bytes"
	"testing"
)

// fuzzSeeds are small real headers: a LUKS2 image's two header copies
// (32 KiB) and a LUKS1 header.
func fuzzSeeds(f *testing.F) (luks2, luks1 []byte) {
	var b2, b1 bytes.Buffer
	if _, _, err := Create(&writerAtBuffer{&b2}, []byte("p"), &CreateOptions{KDF: KDFOptions{Type: "pbkdf2", Iterations: 1000}}); err != nil {
		f.Fatal(err)
	}
	if _, _, err := Create(&writerAtBuffer{&b1}, []byte("p"), &CreateOptions{Version: 1, KDF: KDFOptions{Type: "pbkdf2", Iterations: 1000}}); err != nil {
		f.Fatal(err)
	}
	return b2.Bytes()[:2*luks2MetadataSize], b1.Bytes()[:luks1HeaderSize]
}

// exercise runs what a caller does with a parsed header short of a KDF:
// the support checks, the segment, a Volume with a dummy key, a digest
// check. None of it may panic.
func exercise(h *Header, dev []byte) {
	_ = h.CheckSupported()
	if seg, err := h.DataSegment(); err == nil {
		key := make([]byte, 64)
		if v, err := NewVolume(h, key, bytes.NewReader(dev), int64(len(dev))); err == nil {
			p := make([]byte, 1000)
			v.ReadAt(p, 100)
			v.Close()
		}
		_ = seg
	}
	for i := range h.Keyslots {
		_ = checkKDF(&h.Keyslots[i].KDF)
	}
}

// FuzzReadHeader feeds arbitrary bytes to the header parser: it must
// return a header or an error, never panic or allocate without bound.
func FuzzReadHeader(f *testing.F) {
	l2, l1 := fuzzSeeds(f)
	f.Add(l2)
	f.Add(l1)
	f.Add(l2[luks2MetadataSize:])
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ReadHeader(bytes.NewReader(data))
		if err != nil {
			return
		}
		exercise(h, data)
	})
}

// FuzzParseJSON feeds arbitrary LUKS2 JSON metadata to the parser (the
// binary header's checksum would stop most mutations before it in
// FuzzReadHeader); a header it accepts must survive being written and
// read back.
func FuzzParseJSON(f *testing.F) {
	l2, _ := fuzzSeeds(f)
	h, err := ReadHeader(bytes.NewReader(l2))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(h.JSON)
	f.Add([]byte(`{"keyslots":{},"tokens":{},"segments":{},"digests":{},"config":{"json_size":"12288","keyslots_size":"0"}}`))
	f.Fuzz(func(t *testing.T, js []byte) {
		if len(js) >= luks2MetadataSize-binHeaderSize {
			return
		}
		nh := &Header{Version: 2, HeaderSize: luks2MetadataSize, UUID: h.UUID, Seqid: 1}
		if err := parseJSON(nh, js); err != nil {
			return
		}
		var img bytes.Buffer
		if err := writeCopies(&writerAtBuffer{&img}, nh, js); err != nil {
			t.Fatal(err)
		}
		back, err := ReadHeader(bytes.NewReader(img.Bytes()))
		if nh.Config.JSONSize == luks2MetadataSize-binHeaderSize && err != nil {
			t.Fatalf("accepted JSON does not read back: %v", err)
		}
		if err == nil {
			exercise(back, img.Bytes())
		}
	})
}
