package veracrypt

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestCorruptedImages: a volume with bytes flipped in the primary
// header's salt or encrypted part, in the backup header, or in both, and
// cut short: every Open either opens the intact header it was asked for
// (with the right master key) or fails with a "veracrypt:" error
// (ErrPassword where no header decrypts), never panics, and writes
// nothing.
func TestCorruptedImages(t *testing.T) {
	dev := newMemDev(512 << 10)
	if err := Create(dev, dev.Size(), []byte("pw"), &CreateOptions{PIM: 1, Rand: seeded(21)}); err != nil {
		t.Fatal(err)
	}
	base := dev.b
	o := Options{PRF: "sha512", PIM: 1, NoTrueCrypt: true}
	v, err := Open(dev, []byte("pw"), &o)
	if err != nil {
		t.Fatal(err)
	}
	mk := bytes.Clone(v.Header().MasterKey())
	v.Close()
	backup := int64(len(base)) - backupReserve
	type where struct {
		name string
		offs []int64
	}
	sets := []where{
		{"primary salt", []int64{0}},
		{"primary salt end", []int64{SaltSize - 1}},
		{"primary magic", []int64{SaltSize}},
		{"primary key area", []int64{SaltSize + 200}},
		{"primary last byte", []int64{HeaderSize - 1}},
		{"backup salt", []int64{backup + 3}},
		{"backup header", []int64{backup + 300}},
		{"both", []int64{10, backup + 100}},
	}
	for _, s := range sets {
		for _, mode := range []string{"primary", "TryBackup", "Backup"} {
			t.Run(fmt.Sprintf("%s/%s", s.name, mode), func(t *testing.T) {
				d := &memDev{b: bytes.Clone(base)}
				primaryOK, backupOK := true, true
				for _, off := range s.offs {
					d.b[off] ^= 0x40
					if off < HeaderSize {
						primaryOK = false
					} else {
						backupOK = false
					}
				}
				oo := o
				want := primaryOK
				switch mode {
				case "TryBackup":
					oo.TryBackup, want = true, primaryOK || backupOK
				case "Backup":
					oo.Backup, want = true, backupOK
				}
				v, err := Open(d, []byte("pw"), &oo)
				if len(d.writes) != 0 {
					t.Fatalf("Open wrote %d times to the device", len(d.writes))
				}
				if !want {
					if !errors.Is(err, ErrPassword) {
						t.Fatalf("opened or failed unclearly: %v, want ErrPassword", err)
					}
					return
				}
				if err != nil {
					t.Fatalf("the intact header did not open: %v", err)
				}
				defer v.Close()
				if !bytes.Equal(v.Header().MasterKey(), mk) {
					t.Fatal("opened with a different master key")
				}
				if v.Header().Backup == primaryOK && mode != "Backup" {
					t.Fatalf("opened the backup header %v with the primary intact %v", v.Header().Backup, primaryOK)
				}
			})
		}
	}
	// Cut short: no panic, a clear error, nothing written.
	for _, n := range []int{0, 1, SaltSize, HeaderSize - 1, HeaderSize, 64 << 10, backupReserve, backupReserve + 4096, len(base) - 1} {
		d := &memDev{b: bytes.Clone(base[:n])}
		for _, oo := range []Options{o, {PRF: "sha512", PIM: 1, TryBackup: true}, {PRF: "sha512", PIM: 1, Backup: true}, {PRF: "sha512", PIM: 1, Hidden: true}} {
			v, err := Open(d, []byte("pw"), &oo)
			if err == nil {
				// A long enough prefix still holds the primary header; its
				// data area must then fit what is left.
				if v.Size() > int64(n) {
					t.Errorf("%d bytes: opened a %d-byte volume", n, v.Size())
				}
				v.Close()
				continue
			}
			if !strings.HasPrefix(err.Error(), "veracrypt: ") {
				t.Errorf("%d bytes, %+v: error %q is not the package's", n, oo, err)
			}
		}
		if len(d.writes) != 0 {
			t.Errorf("%d bytes: Open wrote to the device", n)
		}
	}
}
