package fvault2

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// TestSmallDecrypt decrypts the whole logical volume with the key the
// password opens and compares its SHA-256 with the README's.
func TestSmallDecrypt(t *testing.T) {
	f := openSmall(t)
	h, err := ReadHeader(f)
	if err != nil {
		t.Fatal(err)
	}
	key, err := h.unlock([]byte(smallPassword))
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(key); got != smallVolumeKey {
		t.Fatalf("volume key %s, want %s", got, smallVolumeKey)
	}
	c, err := newSectors(key)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.New()
	buf := make([]byte, 1<<20)
	for off := int64(0); off < h.LVSize; off += int64(len(buf)) {
		if _, err := f.ReadAt(buf, h.LVOffset+off); err != nil {
			t.Fatal(err)
		}
		c.Decrypt(buf, buf, uint64(off/sectorSize))
		sum.Write(buf)
	}
	if got := hex.EncodeToString(sum.Sum(nil)); got != smallSHA256 {
		t.Fatalf("SHA-256 %s, want %s", got, smallSHA256)
	}
}
