package luks

import (
	"bytes"
	"fmt"
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
	if _, err := h.DataSegment(); err == nil {
		key := make([]byte, 64)
		if v, err := NewVolume(h, key, bytes.NewReader(dev), int64(len(dev))); err == nil {
			p := make([]byte, 1000)
			v.ReadAt(p, 100)
			v.Close()
		}
	}
	for i := range h.Keyslots {
		_ = checkKDF(&h.Keyslots[i].KDF)
		_ = checkKeyslotSizes(&h.Keyslots[i])
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

// FuzzParseJSON feeds arbitrary LUKS2 JSON areas to the parser (the
// binary header's checksum would stop most mutations before it in
// FuzzReadHeader). A header it accepts must read back from an image, and
// the encoder must write it so that it parses to the same header.
func FuzzParseJSON(f *testing.F) {
	l2, _ := fuzzSeeds(f)
	h, err := ReadHeader(bytes.NewReader(l2))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(h.JSON)
	f.Add([]byte(`{"keyslots":{},"tokens":{},"segments":{"0":{"type":"crypt","offset":"0","size":"dynamic","iv_tweak":"0","encryption":"aes-xts-plain64","sector_size":512}},"digests":{"0":{"type":"pbkdf2","keyslots":[],"segments":["0"]}},"config":{"json_size":"12288","keyslots_size":"0"}}`))
	f.Fuzz(func(t *testing.T, area []byte) {
		if len(area) >= luks2MetadataSize-binHeaderSize {
			return
		}
		padded := make([]byte, luks2MetadataSize-binHeaderSize)
		copy(padded, area)
		js, err := jsonText(padded)
		if err != nil {
			return
		}
		nh := &Header{Version: 2, HeaderSize: luks2MetadataSize, UUID: h.UUID, Seqid: 1, JSON: js}
		if err := parseJSON(nh, js); err != nil {
			return
		}
		var img bytes.Buffer
		if err := writeCopies(&writerAtBuffer{&img}, nh, area); err != nil {
			t.Fatal(err)
		}
		back, err := ReadHeader(bytes.NewReader(img.Bytes()))
		if err != nil {
			t.Fatalf("accepted JSON does not read back: %v", err)
		}
		exercise(back, img.Bytes())
		enc, err := nh.encodeJSON()
		if err != nil {
			t.Fatalf("encoding an accepted header: %v", err)
		}
		again := &Header{Version: 2, HeaderSize: luks2MetadataSize, UUID: h.UUID, Seqid: 1, JSON: enc}
		if err := parseJSON(again, enc); err != nil {
			t.Fatalf("the encoded header does not parse: %v\n%s", err, enc)
		}
		nh.JSON, again.JSON = nil, nil
		if a, b := fmt.Sprintf("%+v", nh), fmt.Sprintf("%+v", again); a != b { // %v: nil and empty slices alike
			t.Fatalf("the encoded header parses differently:\n%s\n%s", a, b)
		}
	})
}

// recorder is a device that records the extent of every write.
type recorder struct {
	*writerAtBuffer
	writes [][2]int64
}

func (r *recorder) WriteAt(p []byte, off int64) (int, error) {
	r.writes = append(r.writes, [2]int64{off, off + int64(len(p))})
	return r.writerAtBuffer.WriteAt(p, off)
}

// smallLUKS2 returns a LUKS2 image with a keyslots area that just holds
// keyslot 0, so that its data segment (8 KiB) follows closely.
func smallLUKS2(tb testing.TB) []byte {
	var b bytes.Buffer
	w := &writerAtBuffer{&b}
	h, _, err := Create(w, []byte("p"), &CreateOptions{KDF: KDFOptions{Type: "pbkdf2", Iterations: 1000}})
	if err != nil {
		tb.Fatal(err)
	}
	k := h.Keyslots[0]
	nh := h.clone()
	nh.Config.KeyslotsSize = k.Area.Offset + k.Area.Size - 2*h.HeaderSize
	nh.Segments[0].Offset = k.Area.Offset + k.Area.Size
	written, err := commit(w, h, nh, nil)
	if err != nil {
		tb.Fatal(err)
	}
	end := written.Segments[0].Offset + 8192
	return b.Bytes()[:end]
}

// FuzzWriteStaysInSegment: whatever header ReadHeader accepts, a Volume
// opened for writing on the device that holds it (as Open opens one once
// the key is known) writes only inside its data segment, never over the
// header or a keyslot.
func FuzzWriteStaysInSegment(f *testing.F) {
	small := smallLUKS2(f)
	f.Add(small)
	l2, l1 := fuzzSeeds(f)
	f.Add(append(bytes.Clone(l1), make([]byte, 8192)...))
	f.Add(append(bytes.Clone(l2), make([]byte, 8192)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ReadHeader(bytes.NewReader(data))
		if err != nil {
			return
		}
		dev := &recorder{writerAtBuffer: &writerAtBuffer{bytes.NewBuffer(bytes.Clone(data))}}
		var v *Volume
		for _, n := range []int{64, 32, 16} {
			if v, err = openVolume(h, make([]byte, n), dev, nil); err == nil {
				break
			}
		}
		if v == nil {
			return
		}
		defer v.Close()
		if v.Size() == 0 {
			// Volume.WriteAt of 0 bytes to an empty volume fails (it reads
			// a sector that is not there): the data path's matter, not
			// this target's.
			return
		}
		seg, _ := h.DataSegment()
		buf := make([]byte, v.Size())
		if _, err := v.WriteAt(buf, 0); err != nil {
			t.Fatalf("writing the whole %d-byte volume: %v", v.Size(), err)
		}
		if v.Size() > 1 {
			if _, err := v.WriteAt(buf[:v.Size()/2], 1); err != nil {
				t.Fatalf("writing at 1: %v", err)
			}
		}
		lo, hi := int64(seg.Offset), int64(seg.Offset)+v.Size()
		for _, w := range dev.writes {
			if w[0] < lo || w[1] > hi || uint64(w[0]) < h.headerEnd() {
				t.Fatalf("a write to [%d, %d) leaves the data segment [%d, %d) or enters the header (to %d)", w[0], w[1], lo, hi, h.headerEnd())
			}
		}
	})
}

// TestSmallLUKS2 checks the fuzz seed smallLUKS2 against cryptsetup: a
// valid image, its data where the header says.
func TestSmallLUKS2(t *testing.T) {
	img := smallLUKS2(t)
	h, err := ReadHeader(bytes.NewReader(img))
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Segments[0].Offset; got != 32768+258048 {
		t.Fatalf("data offset %d", got)
	}
	v, err := Open(&writerAtBuffer{bytes.NewBuffer(img)}, []byte("p"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if v.Size() != 8192 {
		t.Fatalf("volume of %d bytes", v.Size())
	}
}
