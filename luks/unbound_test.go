package luks

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestUnboundKeyslot: a passphrase that opens only an unbound keyslot
// (cryptsetup luksAddKey --unbound) does not open the volume, in the
// package as in cryptsetup: Open with AnyKeyslot says ErrNoKey, Open
// naming the keyslot refuses it, while AnyKeyslotOrUnbound (what
// luksChangeKey tries) reaches it. With the filter reverted, Open would
// return a volume over the wrong key.
func TestUnboundKeyslot(t *testing.T) {
	img := keyTemplate(t, 2, true)
	dir := filepath.Dir(img)
	f, err := os.Open(img)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := ReadHeader(f)
	if err != nil {
		t.Fatal(err)
	}
	if h.Bound(5) {
		t.Fatal("keyslot 5 (luksAddKey --unbound) reads as bound")
	}
	if _, err := Open(f, []byte(unboundPass), nil); !errors.Is(err, ErrNoKey) {
		t.Errorf("Open with the unbound keyslot's passphrase: %v, want ErrNoKey", err)
	}
	if _, err := Open(f, []byte(unboundPass), &Options{UseKeyslot: true, Keyslot: 5}); err == nil {
		t.Error("Open naming the unbound keyslot 5 succeeded")
	}
	if _, _, err := h.Unlock(f, []byte(unboundPass), AnyKeyslot); !errors.Is(err, ErrNoKey) {
		t.Errorf("Unlock(AnyKeyslot) with the unbound passphrase: %v, want ErrNoKey", err)
	}
	key, id, err := h.Unlock(f, []byte(unboundPass), AnyKeyslotOrUnbound)
	if err != nil || id != 5 {
		t.Fatalf("Unlock(AnyKeyslotOrUnbound): keyslot %d, %v; want keyslot 5", id, err)
	}
	if h.CheckVolumeKey(key) == nil {
		t.Error("the unbound keyslot's key passes as the volume key")
	}
	vk, _, err := h.Unlock(f, []byte(keyPasses[0]), AnyKeyslot)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(vk, key) {
		t.Error("the unbound keyslot holds the volume key")
	}
	// cryptsetup agrees: the unbound passphrase does not open the device.
	if out, err := csRun("open", "--test-passphrase", "--batch-mode", "--key-file", passFile(t, dir, unboundPass), img); err == nil {
		t.Errorf("cryptsetup opens the device with the unbound passphrase:\n%s", out)
	}
	cs(t, "open", "--test-passphrase", "--batch-mode", "--key-file", passFile(t, dir, keyPasses[0]), img)
}
