package veracrypt

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// memDev is a device in memory that records its writes.
type memDev struct {
	b      []byte
	writes []devWrite
}

type devWrite struct {
	off  int64
	data []byte
}

func newMemDev(n int) *memDev { return &memDev{b: make([]byte, n)} }

func (d *memDev) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off >= int64(len(d.b)) {
		return 0, io.EOF
	}
	n := copy(p, d.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (d *memDev) WriteAt(p []byte, off int64) (int, error) {
	if off < 0 || off+int64(len(p)) > int64(len(d.b)) {
		return 0, errors.New("memDev: write past the end")
	}
	d.writes = append(d.writes, devWrite{off, append([]byte(nil), p...)})
	return copy(d.b[off:], p), nil
}

func (d *memDev) Size() int64 { return int64(len(d.b)) }

func (d *memDev) clone() *memDev { return &memDev{b: append([]byte(nil), d.b...)} }

// seeded is a deterministic random source for tests.
func seeded(seed uint64) io.Reader { return rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8)}) }

func TestCreateOpen(t *testing.T) {
	kf := [][]byte{[]byte("keyfile one"), bytes.Repeat([]byte{7}, 3000)}
	tests := []struct {
		name     string
		o        CreateOptions
		password string
	}{
		{"aes-sha512", CreateOptions{PIM: 1}, "password"},
		{"aes-sha256-4k", CreateOptions{PRF: "sha256", PIM: 1, SectorSize: 4096}, "password"},
		{"blake2s-keyfiles", CreateOptions{PRF: "blake2s", PIM: 1, Keyfiles: kf}, ""},
		{"long-password-keyfiles", CreateOptions{PIM: 1, Keyfiles: kf}, string(bytes.Repeat([]byte("x"), 100))},
		{"argon2id", CreateOptions{PRF: "argon2id", PIM: 1}, "pw"},
		{"hidden", CreateOptions{PIM: 1, Hidden: &HiddenOptions{Password: []byte("hidden"), PIM: 2, Size: 64 << 10}}, "outer"},
		{"fill", CreateOptions{PIM: 1, Fill: true}, "p"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if testing.Short() && tc.o.PRF == "argon2id" {
				t.Skip("-short: Argon2id takes 64 MiB")
			}
			dev := newMemDev(512 << 10)
			tc.o.Rand = seeded(uint64(i))
			if err := Create(dev, dev.Size(), []byte(tc.password), &tc.o); err != nil {
				t.Fatal(err)
			}
			prf := tc.o.PRF
			if prf == "" {
				prf = "sha512"
			}
			o := &Options{PIM: tc.o.PIM, Keyfiles: tc.o.Keyfiles, PRF: prf}
			v, err := Open(dev, []byte(tc.password), o)
			if err != nil {
				t.Fatal(err)
			}
			h := v.Header()
			wantSS := max(tc.o.SectorSize, 512)
			if v.SectorSize() != wantSS || v.Size() != dev.Size()-2*backupReserve || h.Cipher != "aes" || h.Backup {
				t.Fatalf("sector size %d size %d cipher %s backup %v", v.SectorSize(), v.Size(), h.Cipher, h.Backup)
			}
			data := make([]byte, v.Size())
			rand.NewChaCha8([32]byte{9}).Read(data)
			if _, err := v.WriteAt(data[1000:], 1000); err != nil {
				t.Fatal(err)
			}
			if _, err := v.WriteAt(data[:1000], 0); err != nil {
				t.Fatal(err)
			}
			v.Close()
			if bytes.Contains(dev.b, data[:64]) {
				t.Fatal("plaintext on the device")
			}
			for _, backup := range []bool{false, true} {
				o.Backup = backup
				v, err := Open(dev, []byte(tc.password), o)
				if err != nil {
					t.Fatalf("backup %v: %v", backup, err)
				}
				got := make([]byte, v.Size())
				if _, err := v.ReadAt(got, 0); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, data) {
					t.Fatalf("backup %v: data read back differ", backup)
				}
				v.Close()
			}
			o.Backup = false
			if _, err := Open(dev, []byte(tc.password+"x"), o); !errors.Is(err, ErrPassword) {
				t.Fatalf("wrong password: %v", err)
			}
			if hd := tc.o.Hidden; hd != nil {
				testHidden(t, dev, hd, []byte(tc.password), o)
			}
		})
	}
}

// testHidden checks a hidden volume made by Create: it opens, keeps its
// data while the outer volume is written around it under protection, and
// protection refuses writes into it.
func testHidden(t *testing.T, dev *memDev, hd *HiddenOptions, outerPW []byte, o *Options) {
	hv, err := Open(dev, hd.Password, &Options{Hidden: true, PIM: hd.PIM})
	if err != nil {
		t.Fatal(err)
	}
	if hv.Size() != hd.Size || !hv.Header().Hidden {
		t.Fatalf("hidden size %d, want %d", hv.Size(), hd.Size)
	}
	secret := bytes.Repeat([]byte("hidden!!"), int(hd.Size)/8)
	if _, err := hv.WriteAt(secret, 0); err != nil {
		t.Fatal(err)
	}
	hv.Close()
	po := *o
	po.Protect = &Credentials{Password: hd.Password, PIM: hd.PIM}
	ov, err := Open(dev, outerPW, &po)
	if err != nil {
		t.Fatal(err)
	}
	hiddenAt := ov.Size() - hd.Size
	if _, err := ov.WriteAt(make([]byte, 4096), hiddenAt-4096); err != nil {
		t.Fatalf("write below the hidden volume: %v", err)
	}
	if _, err := ov.WriteAt(make([]byte, 1024), hiddenAt-512); err == nil {
		t.Fatal("write into the protected hidden volume accepted")
	}
	ov.Close()
	hv, err = Open(dev, hd.Password, &Options{Hidden: true, PIM: hd.PIM, Backup: true})
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, hd.Size)
	if _, err := hv.ReadAt(got, 0); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, secret) {
		t.Fatal("hidden data changed")
	}
	hv.Close()
}

// TestChangeKeyPowerLoss replays every prefix of ChangeKey's writes, each
// write also torn at every 64 bytes, and checks that the volume opens
// with the old or the new password, with the same master key.
func TestChangeKeyPowerLoss(t *testing.T) {
	for _, hidden := range []bool{false, true} {
		dev := newMemDev(512 << 10)
		co := &CreateOptions{PIM: 1, Rand: seeded(1)}
		if hidden {
			co.Hidden = &HiddenOptions{Password: []byte("old"), PIM: 1, Size: 64 << 10}
		}
		if err := Create(dev, dev.Size(), []byte("old"), co); err != nil {
			t.Fatal(err)
		}
		oldOpts := &Options{PIM: 1, PRF: "sha512", Hidden: hidden}
		v, err := Open(dev, []byte("old"), oldOpts)
		if err != nil {
			t.Fatal(err)
		}
		mk := v.Header().MasterKey()
		v.Close()
		base := dev.clone()
		work := dev.clone()
		if err := ChangeKey(work, []byte("old"), oldOpts, []byte("new"), &ChangeOptions{PRF: "sha256", PIM: 2, Rand: seeded(2)}); err != nil {
			t.Fatal(err)
		}
		if len(work.writes) != 2 {
			t.Fatalf("%d writes, want 2", len(work.writes))
		}
		for _, w := range work.writes {
			if len(w.data) != HeaderSize || w.off%512 != 0 {
				t.Fatalf("write of %d bytes at %d", len(w.data), w.off)
			}
		}
		// A torn primary header decrypts under neither password: the
		// backup header is then the one that opens, with TryBackup.
		newOpts := &Options{PIM: 2, PRF: "sha256", Hidden: hidden, TryBackup: true}
		oldTry := *oldOpts
		oldTry.TryBackup = true
		for n := range len(work.writes) + 1 {
			step := 64
			if testing.Short() {
				step = 256
			}
			for tear := 0; tear <= HeaderSize; tear += step {
				if n == len(work.writes) && tear > 0 {
					break
				}
				d := base.clone()
				for _, w := range work.writes[:n] {
					copy(d.b[w.off:], w.data)
				}
				if n < len(work.writes) {
					w := work.writes[n]
					copy(d.b[w.off:], w.data[:tear])
				}
				var opened *Volume
				for _, try := range []struct {
					pw []byte
					o  *Options
				}{{[]byte("old"), &oldTry}, {[]byte("new"), newOpts}} {
					if v, err := Open(d, try.pw, try.o); err == nil {
						opened = v
						if v.Header().Backup {
							// Without TryBackup, only the primary is tried.
							no := *try.o
							no.TryBackup = false
							if _, err := Open(d, try.pw, &no); !errors.Is(err, ErrPassword) {
								t.Fatalf("hidden %v, %d writes, tear %d: the backup opened, but without TryBackup Open gives %v", hidden, n, tear, err)
							}
						}
						break
					}
				}
				if opened == nil {
					t.Fatalf("hidden %v: after %d writes and %d bytes of the next, neither password opens", hidden, n, tear)
				}
				if !bytes.Equal(opened.Header().MasterKey(), mk) {
					t.Fatal("master key changed")
				}
				opened.Close()
			}
		}
		if _, err := Open(work, []byte("new"), &Options{PIM: 2, PRF: "sha256", Hidden: hidden}); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(work, []byte("old"), oldOpts); !errors.Is(err, ErrPassword) {
			t.Fatalf("old password after the change: %v", err)
		}
	}
}

// TestOpenErrors: clear errors for bad arguments, nothing written.
func TestOpenErrors(t *testing.T) {
	dev := newMemDev(512 << 10)
	if err := Create(dev, dev.Size(), []byte("pw"), &CreateOptions{PIM: 1, Rand: seeded(7)}); err != nil {
		t.Fatal(err)
	}
	writes := len(dev.writes)
	tests := []struct {
		name     string
		password []byte
		o        Options
	}{
		{"long password", bytes.Repeat([]byte("p"), 129), Options{PRF: "sha512"}},
		{"unknown prf", []byte("pw"), Options{PRF: "md5"}},
		{"unknown cipher", []byte("pw"), Options{PRF: "sha512", Cipher: "des"}},
		{"hidden system", []byte("pw"), Options{System: true, Hidden: true}},
		{"wrong pim", []byte("pw"), Options{PRF: "sha512", PIM: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			if _, err := Open(dev, tc.password, &o); err == nil || !strings.HasPrefix(err.Error(), "veracrypt: ") {
				t.Fatalf("got %v", err)
			}
		})
	}
	if len(dev.writes) != writes {
		t.Fatal("Open wrote to the device")
	}
	if err := Create(newMemDev(1000), 1000, []byte("pw"), nil); err == nil {
		t.Fatal("tiny host accepted")
	}
	if err := Create(dev, dev.Size(), []byte("pw"), &CreateOptions{Cipher: "rot13"}); err == nil {
		t.Fatal("unknown chain accepted")
	}
}
