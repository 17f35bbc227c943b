package veracrypt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"
)

// FuzzHeader parses arbitrary decrypted header blocks: an error wrapping
// ErrHeader or a header whose marshalling gives the block back (but for
// the reserved bytes), never a panic.
func FuzzHeader(f *testing.F) {
	h, _ := newHeaderFor("sha512", "aes", 512, seeded(3))
	h.VolumeSize, h.EncryptedAreaStart, h.EncryptedAreaLength = 1<<20, DataOffset, 1<<20
	f.Add(h.marshal())
	f.Add(make([]byte, HeaderSize))
	f.Add([]byte("VERA"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == HeaderSize && b[0]&1 == 1 {
			// Give the fields valid CRCs, so that the checks behind
			// them are reached.
			b = bytes.Clone(b)
			binary.BigEndian.PutUint32(b[72:], crc32.ChecksumIEEE(b[256:]))
			binary.BigEndian.PutUint32(b[252:], crc32.ChecksumIEEE(b[64:252]))
		}
		h, err := ParseHeader(b)
		if err != nil {
			if !errors.Is(err, ErrHeader) {
				t.Fatalf("error not wrapping ErrHeader: %v", err)
			}
			return
		}
		if h.SectorSize < 512 || h.SectorSize > 4096 {
			t.Fatalf("sector size %d accepted", h.SectorSize)
		}
		// The fields marshal back; the sector size 0 of old headers
		// reads as 512.
		m := h.marshal()
		if !bytes.Equal(m[:128], b[:128]) || !bytes.Equal(m[256:], b[256:]) {
			t.Fatal("fields do not marshal back")
		}
		if !bytes.Equal(m[128:132], b[128:132]) && !bytes.Equal(b[128:132], make([]byte, 4)) {
			t.Fatal("sector size does not marshal back")
		}
		if h.MasterKey() == nil && h.KeySize > 0 {
			t.Fatal("no master key")
		}
	})
}
