package bitlocker

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"testing"
)

// fuzzDevice places b as the FVE metadata block (all three copies at 4096)
// behind a Windows 7 volume header, with the block's CRC-32 made to match
// so that the fuzzer reaches the entries.
func fuzzDevice(b []byte) []byte {
	const at = 4096
	dev := make([]byte, at+MetadataAreaSize)
	copy(dev, []byte{0xeb, 0x58, 0x90})
	copy(dev[3:], "-FVE-FS-")
	binary.LittleEndian.PutUint16(dev[11:], 512)
	copy(dev[160:], guidNormal[:])
	for i := 0; i < 3; i++ {
		binary.LittleEndian.PutUint64(dev[176+8*i:], at)
	}
	blk := dev[at:]
	copy(blk, b)
	if len(b) >= 16 {
		v := int(binary.LittleEndian.Uint16(blk[8:10])) * 16
		if v+8 <= len(blk) {
			binary.LittleEndian.PutUint32(blk[v+4:], crc32.ChecksumIEEE(blk[:v]))
		}
	}
	return dev
}

// FuzzMetadata parses arbitrary bytes, as a whole device and as a metadata
// block: a clear error or metadata, never a panic; then Dump, Openable and
// an Open with the clear key and a volume key run on what parsed.
func FuzzMetadata(f *testing.F) {
	s := newSynth(AESXTS128, 512, 8<<20, 1)
	f.Add(s.image[1<<20 : 1<<20+2048])
	f.Add(s.image[:512])
	f.Add([]byte("-FVE-FS-"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > MetadataAreaSize {
			return
		}
		if _, err := ReadMetadata(bytes.NewReader(b)); err == nil {
			// A bare input of at most 64 KiB cannot hold a header and a block.
			t.Log("parsed a bare input")
		}
		if _, err := ParseBEK(b); err == nil && len(b) < 48 {
			t.Fatal("a startup key file shorter than its header parsed")
		}
		dev := bytes.NewReader(fuzzDevice(b))
		m, err := ReadMetadata(dev)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrUnsupported) && !errors.Is(err, ErrNotBitLocker) {
				t.Fatalf("unclassified error: %v", err)
			}
			return
		}
		if err := m.Dump(io.Discard); err != nil {
			t.Fatal(err)
		}
		if m.Openable() != nil {
			return
		}
		if v, err := Open(dev, ClearKey(), &Options{Metadata: m, ReadOnly: true}); err == nil {
			v.Close()
		}
		if v, err := Open(dev, VolumeKey(make([]byte, m.Method.KeySize())), &Options{Metadata: m, ReadOnly: true}); err == nil {
			p := make([]byte, 4096)
			v.ReadAt(p, 0)
			v.Close()
		}
	})
}
