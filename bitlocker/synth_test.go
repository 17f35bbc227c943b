package bitlocker

import (
	"bytes"
	"crypto/aes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"testing"
)

// A synthetic BitLocker volume built from the format's description, with a
// clear-key protector: it lets the tests (and the fuzzer's seeds) run
// without the image archive. It is checked against this package only; the
// cryptsetup images are the oracle.

type synth struct {
	image     []byte // the encrypted device
	plain     []byte // what the volume must read as
	fvek, vmk []byte
	m         Method
	ss        int
}

func entryBytes(t EntryType, v ValueType, data []byte) []byte {
	b := make([]byte, 8, 8+len(data))
	binary.LittleEndian.PutUint16(b[0:], uint16(8+len(data)))
	binary.LittleEndian.PutUint16(b[2:], uint16(t))
	binary.LittleEndian.PutUint16(b[4:], uint16(v))
	binary.LittleEndian.PutUint16(b[6:], 1)
	return append(b, data...)
}

func keyEntry(method uint16, key []byte) []byte {
	d := binary.LittleEndian.AppendUint32(nil, uint32(method))
	return entryBytes(EntryProperty, ValueKey, append(d, key...))
}

// ccmEntry seals plaintext under key as an AES-CCM entry: nonce (FILETIME
// and counter), tag, ciphertext.
func ccmEntry(typ EntryType, key []byte, counter uint32, plaintext []byte) []byte {
	b, err := aes.NewCipher(key)
	if err != nil {
		panic(err)
	}
	nonce := binary.LittleEndian.AppendUint64(nil, 0x01d5323670425d8a)
	nonce = binary.LittleEndian.AppendUint32(nonce, counter)
	sealed, err := ccmSeal(b, nonce, nil, plaintext, 16)
	if err != nil {
		panic(err)
	}
	n := len(sealed) - 16
	d := append(append(append([]byte(nil), nonce...), sealed[n:]...), sealed[:n]...)
	return entryBytes(typ, ValueAESCCM, d)
}

// newSynth builds a volume of size bytes with method m and sector size ss.
func newSynth(m Method, ss int, size int64, seed uint64) *synth {
	rng := rand.New(rand.NewPCG(seed, 1))
	rnd := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	s := &synth{m: m, ss: ss, vmk: rnd(32)}
	raw := rnd(64) // the FVEK entry's key data
	rawLen := map[Method]int{AESCBC128: 16, AESCBC256: 32, AESXTS128: 32, AESXTS256: 64, AESCBC128Elephant: 64, AESCBC256Elephant: 64}[m]
	raw = raw[:rawLen]
	n := m.KeySize()
	if m == AESCBC128Elephant || m == AESCBC256Elephant {
		s.fvek = append(append([]byte(nil), raw[:n/2]...), raw[32:32+n/2]...)
	} else {
		s.fvek = raw[:n]
	}
	clearKey := rnd(32)
	const mb = 1 << 20
	offs := [3]int64{1 * mb, 3 * mb, 5 * mb}
	hdrOff, hdrSize := offs[0]+MetadataAreaSize, int64(8192)
	volGUID := GUID(rnd(16))

	// The metadata entries.
	var ents []byte
	desc := []byte{}
	for _, r := range "SYNTH C: 1/1/2020" {
		desc = binary.LittleEndian.AppendUint16(desc, uint16(r))
	}
	ents = append(ents, entryBytes(EntryDescription, ValueUnicode, append(desc, 0, 0))...)
	vmkData := append([]byte(nil), rnd(16)...)                              // GUID
	vmkData = binary.LittleEndian.AppendUint64(vmkData, 0x01d5323670425d8a) // modified
	vmkData = binary.LittleEndian.AppendUint16(vmkData, 0)
	vmkData = binary.LittleEndian.AppendUint16(vmkData, uint16(ProtectClearKey))
	vmkData = append(vmkData, keyEntry(0x2000, clearKey)...)
	vmkData = append(vmkData, ccmEntry(EntryProperty, clearKey, 1, keyEntry(0x2000, s.vmk))...)
	ents = append(ents, entryBytes(EntryVMK, ValueVMK, vmkData)...)
	ents = append(ents, ccmEntry(EntryFVEK, s.vmk, 2, keyEntry(uint16(m), raw))...)
	vh := binary.LittleEndian.AppendUint64(nil, uint64(hdrOff))
	vh = binary.LittleEndian.AppendUint64(vh, uint64(hdrSize))
	ents = append(ents, entryBytes(EntryVolumeHeader, ValueOffsetAndSize, vh)...)

	msize := metaHeaderSize + len(ents)
	v := (blockHeaderSize + msize + 15) / 16 * 16
	block := make([]byte, v)
	copy(block, "-FVE-FS-")
	binary.LittleEndian.PutUint16(block[8:], uint16(v/16))
	binary.LittleEndian.PutUint16(block[10:], 2)
	binary.LittleEndian.PutUint16(block[12:], stateNormal)
	binary.LittleEndian.PutUint16(block[14:], stateNormal)
	binary.LittleEndian.PutUint64(block[16:], uint64(size))
	binary.LittleEndian.PutUint32(block[28:], uint32(hdrSize/512))
	for i, o := range offs {
		binary.LittleEndian.PutUint64(block[32+8*i:], uint64(o))
	}
	binary.LittleEndian.PutUint64(block[56:], uint64(hdrOff))
	mh := block[blockHeaderSize:]
	binary.LittleEndian.PutUint32(mh[0:], uint32(msize))
	binary.LittleEndian.PutUint32(mh[4:], 1)
	binary.LittleEndian.PutUint32(mh[8:], metaHeaderSize)
	binary.LittleEndian.PutUint32(mh[12:], uint32(msize))
	copy(mh[16:32], volGUID[:])
	binary.LittleEndian.PutUint32(mh[32:], 4)
	binary.LittleEndian.PutUint32(mh[36:], uint32(m))
	binary.LittleEndian.PutUint64(mh[40:], 0x01d5323670425d8a)
	copy(mh[metaHeaderSize:], ents)
	sum := sha256.Sum256(block)
	val := make([]byte, 8)
	binary.LittleEndian.PutUint16(val[2:], 2)
	binary.LittleEndian.PutUint32(val[4:], crc32.ChecksumIEEE(block))
	val = append(val, ccmEntry(EntryProperty, s.vmk, 3, keyEntry(0x2005, sum[:]))...)
	block = append(block, val...)

	// The volume header.
	hdr := make([]byte, 512)
	copy(hdr, []byte{0xeb, 0x58, 0x90})
	copy(hdr[3:], "-FVE-FS-")
	binary.LittleEndian.PutUint16(hdr[11:], uint16(ss))
	hdr[13] = 8
	copy(hdr[160:], guidNormal[:])
	for i, o := range offs {
		binary.LittleEndian.PutUint64(hdr[176+8*i:], uint64(o))
	}
	hdr[510], hdr[511] = 0x55, 0xaa

	// The plaintext and the image.
	s.plain = rnd(int(size))
	for _, o := range offs {
		clear(s.plain[o : o+MetadataAreaSize])
	}
	clear(s.plain[hdrOff : hdrOff+hdrSize])
	c, err := newSectorCipher(m, s.fvek, ss)
	if err != nil {
		panic(err)
	}
	s.image = make([]byte, size)
	c.Encrypt(s.image, s.plain, 0)
	c.Encrypt(s.image[hdrOff:hdrOff+hdrSize], s.plain[:hdrSize], uint64(hdrOff)/uint64(ss))
	clear(s.image[:hdrSize])
	copy(s.image, hdr)
	for _, o := range offs {
		clear(s.image[o : o+MetadataAreaSize])
		copy(s.image[o:], block)
	}
	return s
}

// memDev is a writable in-memory device.
type memDev struct{ b []byte }

func (d *memDev) ReadAt(p []byte, off int64) (int, error) { return bytes.NewReader(d.b).ReadAt(p, off) }
func (d *memDev) WriteAt(p []byte, off int64) (int, error) {
	if off < 0 || off+int64(len(p)) > int64(len(d.b)) {
		return 0, errors.New("memDev: write out of range")
	}
	return copy(d.b[off:], p), nil
}
func (d *memDev) Size() int64 { return int64(len(d.b)) }

// TestSynthetic opens synthetic volumes of every method and both sector
// sizes with the clear key and with the volume key, reads them whole and
// in pieces, and writes through them.
func TestSynthetic(t *testing.T) {
	methods := []Method{AESXTS128, AESXTS256, AESCBC128, AESCBC256, AESCBC128Elephant, AESCBC256Elephant}
	if testing.Short() {
		// CI's -race step: one XTS and one Elephant method (the CBC
		// paths in Go took 80 s under the detector); all in the full run.
		t.Log("-short: AES-XTS-128 and AES-CBC-256 with Elephant only")
		methods = []Method{AESXTS128, AESCBC256Elephant}
	}
	for i, m := range methods {
		for _, ss := range []int{512, 4096} {
			s := newSynth(m, ss, 8<<20, uint64(i))
			dev := &memDev{b: s.image}
			meta, err := ReadMetadata(dev)
			if err != nil {
				t.Fatalf("%v/%d: %v", m, ss, err)
			}
			if meta.Method != m || meta.Description != "SYNTH C: 1/1/2020" || len(meta.Protectors) != 1 {
				t.Fatalf("%v/%d: metadata %+v", m, ss, meta)
			}
			for _, sec := range []Secret{ClearKey(), VolumeKey(s.fvek)} {
				v, err := Open(dev, sec, nil)
				if err != nil {
					t.Fatalf("%v/%d: %v", m, ss, err)
				}
				if !bytes.Equal(v.FVEK(), s.fvek) {
					t.Fatalf("%v/%d: FVEK %x, want %x", m, ss, v.FVEK(), s.fvek)
				}
				got := make([]byte, len(s.plain))
				if _, err := v.ReadAt(got, 0); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, s.plain) {
					t.Fatalf("%v/%d: the volume does not read as built", m, ss)
				}
				p := []byte("written through the volume")
				if _, err := v.WriteAt(p, 12345); err != nil {
					t.Fatal(err)
				}
				copy(s.plain[12345:], p)
				if _, err := v.ReadAt(got[:4096], 10240); err != nil || !bytes.Equal(got[:4096], s.plain[10240:10240+4096]) {
					t.Fatalf("%v/%d: read after write: %v", m, ss, err)
				}
				v.Close()
			}
		}
	}
}

// TestReadAtPieces reads a synthetic volume from several goroutines in
// random pieces (across the relocated boot sectors and the metadata areas)
// and at its end.
func TestReadAtPieces(t *testing.T) {
	s := newSynth(AESCBC128Elephant, 512, 8<<20, 9)
	v, err := Open(&memDev{b: s.image}, ClearKey(), &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	errc := make(chan error, 4)
	for g := 0; g < 4; g++ {
		go func(g int) {
			rng := rand.New(rand.NewPCG(uint64(g), 3))
			for i := 0; i < 200; i++ {
				n := 1 + rng.IntN(300000)
				off := rng.Int64N(v.Size() - int64(n))
				if i%4 == 0 {
					off = rng.Int64N(20000)
				}
				p := make([]byte, n)
				if _, err := v.ReadAt(p, off); err != nil {
					errc <- err
					return
				}
				if !bytes.Equal(p, s.plain[off:off+int64(n)]) {
					errc <- errors.New("a piece differs")
					return
				}
			}
			errc <- nil
		}(g)
	}
	for g := 0; g < 4; g++ {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	p := make([]byte, 1000)
	if n, err := v.ReadAt(p, v.Size()-600); n != 600 || err != io.EOF || !bytes.Equal(p[:600], s.plain[len(s.plain)-600:]) {
		t.Errorf("read across the end: %d, %v", n, err)
	}
	if _, err := v.WriteAt(p, 0); err == nil {
		t.Error("write to a read-only volume succeeded")
	}
}
