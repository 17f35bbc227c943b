package luks

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
)

// LUKS2 binary header layout (4096 bytes, big-endian integers).
const (
	binHeaderSize = 4096
	offVersion    = 6
	offHdrSize    = 8
	offSeqid      = 16
	offLabel      = 24  // 48 bytes
	offCsumAlg    = 72  // 32 bytes
	offSalt       = 104 // 64 bytes
	offUUID       = 168 // 40 bytes
	offSubsystem  = 208 // 48 bytes
	offHdrOffset  = 256
	offCsum       = 448 // 64 bytes
	csumLen       = 64
)

// secondaryOffsets are where a LUKS2 secondary header may start: one
// copy's size is one of these, so the secondary follows at that offset.
var secondaryOffsets = []uint64{
	0x4000, 0x8000, 0x10000, 0x20000, 0x40000, 0x80000, 0x100000, 0x200000, 0x400000,
}

func validHdrSize(n uint64) bool {
	for _, s := range secondaryOffsets {
		if n == s {
			return true
		}
	}
	return false
}

// errNoCopy: neither LUKS2 magic was found anywhere a copy may be.
var errNoCopy = errors.New("luks: no LUKS2 header copy")

// copy2 is one LUKS2 header copy as read: its binary header and JSON area.
type copy2 struct {
	bin   []byte // binHeaderSize bytes
	area  []byte // hdr_size bytes including bin
	seqid uint64
}

// readCopy reads and checks the LUKS2 header copy at off; it returns nil
// and the reason when there is none or it is invalid.
func readCopy(r io.ReaderAt, off uint64, wantMagic string) (*copy2, error) {
	bin := make([]byte, binHeaderSize)
	n, err := r.ReadAt(bin, int64(off))
	if n < 6 || string(bin[:6]) != wantMagic {
		return nil, errNoCopy
	}
	if err != nil {
		return nil, fmt.Errorf("reading %d bytes at %d: %w", binHeaderSize, off, err)
	}
	if v := binary.BigEndian.Uint16(bin[offVersion:]); v != 2 {
		return nil, fmt.Errorf("version %d, not 2", v)
	}
	size := binary.BigEndian.Uint64(bin[offHdrSize:])
	if !validHdrSize(size) {
		return nil, fmt.Errorf("header size %d is not one LUKS2 allows", size)
	}
	if ho := binary.BigEndian.Uint64(bin[offHdrOffset:]); ho != off {
		return nil, fmt.Errorf("header offset field %d, found at %d", ho, off)
	}
	alg := cString(bin[offCsumAlg : offCsumAlg+32])
	h := checksumHash(alg)
	if h == nil {
		return nil, fmt.Errorf("%w: header checksum algorithm %q", ErrUnsupported, alg)
	}
	area := make([]byte, size)
	copy(area, bin)
	if _, err := r.ReadAt(area[binHeaderSize:], int64(off)+binHeaderSize); err != nil {
		return nil, fmt.Errorf("reading the %d-byte JSON area at %d: %w", size-binHeaderSize, off+binHeaderSize, err)
	}
	want := make([]byte, h.Size())
	copy(want, area[offCsum:])
	if !bytes.Equal(bin[offCsum+h.Size():offCsum+csumLen], make([]byte, csumLen-h.Size())) {
		return nil, errors.New("checksum field has bytes past the digest")
	}
	got := checksumOf(h, area)
	if !bytes.Equal(got, want) {
		return nil, fmt.Errorf("%s checksum mismatch", alg)
	}
	return &copy2{bin: bin, area: area, seqid: binary.BigEndian.Uint64(bin[offSeqid:])}, nil
}

// checksumOf hashes a header copy with its checksum field taken as zero.
func checksumOf(h hash.Hash, area []byte) []byte {
	h.Reset()
	h.Write(area[:offCsum])
	h.Write(make([]byte, csumLen))
	h.Write(area[offCsum+csumLen:])
	return h.Sum(nil)
}

func checksumHash(alg string) hash.Hash {
	switch alg {
	case "sha256":
		return sha256.New()
	case "sha512":
		return sha512.New()
	case "sha1":
		return sha1.New()
	}
	return nil
}

func readLUKS2(r io.ReaderAt) (*Header, error) {
	prim, perr := readCopy(r, 0, magic1)
	var sec *copy2
	var serr error = errNoCopy
	if prim != nil {
		sec, serr = readCopy(r, uint64(len(prim.area)), magic2)
	} else {
		for _, off := range secondaryOffsets {
			c, err := readCopy(r, off, magic2)
			if c != nil {
				sec, serr = c, nil
				break
			}
			if !errors.Is(err, errNoCopy) {
				serr = err
			}
		}
	}
	// The copy with the higher sequence id wins (the primary on a tie);
	// one whose JSON does not parse gives way to the other, as cryptsetup
	// repairs a damaged copy from the good one.
	cands := []*copy2{prim, sec}
	if prim == nil || (sec != nil && sec.seqid > prim.seqid) {
		cands = []*copy2{sec, prim}
	}
	var firstErr error
	for _, c := range cands {
		if c == nil {
			continue
		}
		h, err := parseCopy(c)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		h.PrimaryValid, h.SecondaryValid = prim != nil, sec != nil
		h.primaryOK = c == prim
		return h, nil
	}
	if firstErr != nil {
		return nil, firstErr
	}
	if errors.Is(perr, errNoCopy) && errors.Is(serr, errNoCopy) {
		return nil, errNoCopy
	}
	return nil, fmt.Errorf("%w: primary LUKS2 header: %v; secondary: %v", ErrCorrupt, perr, serr)
}

// parseCopy turns a checked header copy into a Header.
func parseCopy(c *copy2) (*Header, error) {
	b := c.bin
	h := &Header{
		Version:    2,
		HeaderSize: uint64(len(c.area)),
		Seqid:      c.seqid,
		Label:      cString(b[offLabel : offLabel+48]),
		Checksum:   cString(b[offCsumAlg : offCsumAlg+32]),
		UUID:       cString(b[offUUID : offUUID+40]),
		Subsystem:  cString(b[offSubsystem : offSubsystem+48]),
	}
	js, err := jsonText(c.area[binHeaderSize:])
	if err != nil {
		return nil, err
	}
	h.JSON = js
	if err := parseJSON(h, js); err != nil {
		return nil, err
	}
	return h, nil
}

// cString returns b up to its first NUL.
func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}
