package luks

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestHeaderConfig: SetUUID, SetLabel and SetPriority on LUKS1 and LUKS2
// images made by cryptsetup and by the package: cryptsetup luksUUID and
// luksDump show the change, every passphrase still opens in both tools;
// LUKS1 refuses labels and priorities (ErrUnsupported) as cryptsetup
// config refuses them, the image unchanged.
func TestHeaderConfig(t *testing.T) {
	needCryptsetup(t)
	cases := []struct {
		name string
		make func(t *testing.T) *csImage
	}{
		{"cryptsetup-luks2", func(t *testing.T) *csImage { return csFormat(t, 2, false, 20<<20) }},
		{"cryptsetup-luks1", func(t *testing.T) *csImage { return csFormat(t, 1, false, 4<<20) }},
		{"cryptsetup-luks2-detached", func(t *testing.T) *csImage { return csFormat(t, 2, true, 1<<20) }},
		{"package-luks2", func(t *testing.T) *csImage { return pkgImage(t, CreateOptions{KDF: fastKDF["pbkdf2"]}) }},
		{"package-luks1", func(t *testing.T) *csImage { return pkgImage(t, CreateOptions{Version: 1, KDF: fastKDF["pbkdf2"]}) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			im := c.make(t)
			csAddKey(t, im, 2, "two")
			h, f := openHeaderFile(t, im.headerDev)
			const u = "0123ABCD-4567-89ab-CDEF-0123456789AB"
			if err := h.SetUUID(f, u); err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(cs(t, append(append([]string{"luksUUID"}, im.hdrArgs()...), im.img)...)); got != strings.ToLower(u) || h.UUID != got {
				t.Fatalf("cryptsetup luksUUID %q, h.UUID %q, want %q", got, h.UUID, strings.ToLower(u))
			}
			if err := h.SetUUID(f, ""); err != nil || checkUUID(h.UUID) != nil || h.UUID == strings.ToLower(u) {
				t.Fatalf("a random UUID: %q, %v", h.UUID, err)
			}
			if err := h.SetUUID(f, "not-a-uuid"); err == nil {
				t.Fatal("SetUUID took a malformed UUID")
			}
			dump := func() string { return cs(t, append(append([]string{"luksDump"}, im.hdrArgs()...), im.img)...) }
			if h.Version == 1 {
				before, _ := os.ReadFile(im.headerDev)
				if err := h.SetLabel(f, "x", ""); !errors.Is(err, ErrUnsupported) {
					t.Fatalf("SetLabel on LUKS1: %v", err)
				}
				if err := h.SetPriority(f, 0, PriorityPrefer); !errors.Is(err, ErrUnsupported) {
					t.Fatalf("SetPriority on LUKS1: %v", err)
				}
				for _, args := range [][]string{{"--label", "x"}, {"--priority", "prefer", "--key-slot", "0"}} {
					out, err := csRun(append(append(append([]string{"config", "--batch-mode"}, args...), im.hdrArgs()...), im.img)...)
					if err == nil || !strings.Contains(out, "is not a valid LUKS2 device") {
						t.Fatalf("cryptsetup config %v on LUKS1: %v %s", args, err, out)
					}
				}
				if after, _ := os.ReadFile(im.headerDev); !bytes.Equal(before, after) {
					t.Fatal("a refused change changed the header")
				}
			} else {
				seq := h.Seqid
				if err := h.SetLabel(f, "my label", "my subsystem"); err != nil {
					t.Fatal(err)
				}
				if err := h.SetPriority(f, 2, PriorityPrefer); err != nil {
					t.Fatal(err)
				}
				if err := h.SetPriority(f, 0, PriorityIgnore); err != nil {
					t.Fatal(err)
				}
				if err := h.SetPriority(f, 5, PriorityPrefer); err == nil {
					t.Fatal("SetPriority on a keyslot that does not exist")
				}
				if h.Seqid != seq+3 {
					t.Errorf("sequence id %d after three changes from %d", h.Seqid, seq)
				}
				d := dump()
				for _, want := range []string{"Label:         \tmy label", "Subsystem:     \tmy subsystem", "Priority:   preferred", "Priority:   ignored",
					fmt.Sprintf("Epoch:         \t%d", h.Seqid)} {
					if !strings.Contains(d, want) {
						t.Fatalf("luksDump lacks %q:\n%s", want, d)
					}
				}
				if !testPassphrase(t, im.img, im.hdr, im.pass, 0) {
					t.Fatal("cryptsetup refuses the passphrase of the ignored keyslot named with --key-slot")
				}
			}
			for _, p := range [][]byte{im.pass, []byte("two")} {
				if !testPassphrase(t, im.img, im.hdr, p, -1) && !(h.Version == 2 && bytes.Equal(p, im.pass)) {
					t.Fatalf("cryptsetup refuses %q", p)
				}
				if _, _, err := must(ReadHeader(f)).Unlock(f, p, AnyKeyslot); err != nil && !(h.Version == 2 && bytes.Equal(p, im.pass)) {
					t.Fatalf("the package: %q: %v", p, err)
				}
			}
		})
	}
}

// TestConfigPowerLoss: a power loss at any point of SetUUID, SetLabel or
// SetPriority leaves an image every passphrase opens (and reads the same
// data), LUKS1 and LUKS2.
func TestConfigPowerLoss(t *testing.T) {
	ops := []struct {
		name    string
		version int
		op      func(h *Header, d *writeLog) error
	}{
		{"luks2-uuid", 2, func(h *Header, d *writeLog) error { return h.SetUUID(d, "") }},
		{"luks1-uuid", 1, func(h *Header, d *writeLog) error { return h.SetUUID(d, "") }},
		{"luks2-label", 2, func(h *Header, d *writeLog) error { return h.SetLabel(d, "label", "subsystem") }},
		{"luks2-priority", 2, func(h *Header, d *writeLog) error { return h.SetPriority(d, 1, PriorityPrefer) }},
	}
	for _, o := range ops {
		t.Run(o.name, func(t *testing.T) {
			base := pkgBase(t, CreateOptions{Version: o.version}, map[int]string{1: "one"})
			checkPowerLoss(t, powerLossCase{base: base, sets: [][]string{{"zero", "one"}},
				op: func(d *writeLog) error { return o.op(must(ReadHeader(d)), d) }})
		})
	}
}

// Setting a LUKS2 label and a keyslot's priority.
func ExampleHeader_SetLabel() {
	f := exampleImage(2, "my passphrase")
	defer f.Close()
	h, err := ReadHeader(f)
	if err != nil {
		panic(err)
	}
	if err := h.SetLabel(f, "backup disk", ""); err != nil {
		panic(err)
	}
	if err := h.SetPriority(f, 0, PriorityPrefer); err != nil {
		panic(err)
	}
	h, _ = ReadHeader(f)
	fmt.Printf("label %q, keyslot 0 priority %d\n", h.Label, h.Keyslots[0].Priority)
	// Output:
	// label "backup disk", keyslot 0 priority 2
}
