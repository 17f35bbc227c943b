package fvault2

import (
	"encoding/hex"
	"os"
	"testing"
)

func openSmall(t *testing.T) *os.File {
	t.Helper()
	f, err := os.Open(smallImage(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestReadHeaderSmall checks every value the image's README lists that
// the header holds.
func TestReadHeaderSmall(t *testing.T) {
	h, err := ReadHeader(openSmall(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Passphrases) != 1 {
		t.Fatalf("%d passphrases, want 1", len(h.Passphrases))
	}
	p := h.Passphrases[0]
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"PV UUID", h.PVUUID.String(), smallPVUUID},
		{"family UUID", h.FamilyUUID.String(), smallFamilyUUID},
		{"LV offset", h.LVOffset, int64(smallLVOffset)},
		{"LV size", h.LVSize, int64(smallLVSize)},
		{"iterations", p.Iterations, smallIterations},
		{"salt", hex.EncodeToString(p.Salt), smallSalt},
		{"cipher", h.Cipher, "aes"},
		{"mode", h.CipherMode, "xts-plain64"},
		{"block size", h.BlockSize, 4096},
		{"bytes per sector", h.BytesPerSector, 512},
		{"conversion", h.ConversionStatus, "Complete"},
		{"key size", h.KeySize, 32},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	t.Logf("%+v", h)
}
