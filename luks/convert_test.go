package luks

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// withData writes plainAt at the start of im's data segment through the
// package and returns the volume key.
func withData(t *testing.T, im *csImage) []byte {
	t.Helper()
	data := openFile(t, im.img)
	o := &Options{}
	if im.hdr != "" {
		o.Header = openFile(t, im.hdr)
	}
	v, err := Open(data, im.pass, o)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if _, err := v.WriteAt(plainAt, 0); err != nil {
		t.Fatal(err)
	}
	key, _, err := must(ReadHeader(openFile(t, im.headerDev))).Unlock(openFile(t, im.headerDev), im.pass, AnyKeyslot)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// checkImage checks that cryptsetup and the package agree on im after a
// change: the version luksDump shows, every passphrase opens in both,
// the volume key cryptsetup dumps is the package's, the data reads
// plainAt.
func checkImage(t *testing.T, im *csImage, version int, key []byte, passes ...string) {
	t.Helper()
	dump := cs(t, append(append([]string{"luksDump", "--batch-mode"}, im.hdrArgs()...), im.img)...)
	if !strings.Contains(dump, fmt.Sprintf("Version:       \t%d", version)) {
		t.Fatalf("cryptsetup luksDump does not show version %d:\n%s", version, dump)
	}
	h, f := openHeaderFile(t, im.headerDev)
	if h.Version != version {
		t.Fatalf("ReadHeader: version %d, want %d", h.Version, version)
	}
	for _, p := range passes {
		if !testPassphrase(t, im.img, im.hdr, []byte(p), -1) {
			t.Fatalf("cryptsetup refuses %q", p)
		}
		k, _, err := h.Unlock(f, []byte(p), AnyKeyslot)
		if err != nil || !bytes.Equal(k, key) {
			t.Fatalf("the package: %q: %v", p, err)
		}
	}
	if vk := im.volumeKey(t); !bytes.Equal(vk, key) {
		t.Fatal("cryptsetup dumps another volume key")
	}
	o := &Options{ReadOnly: true}
	if im.hdr != "" {
		o.Header = f
	}
	v, err := Open(openFile(t, im.img), im.pass, o)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	got := make([]byte, len(plainAt))
	if _, err := v.ReadAt(got, 0); err != nil || !bytes.Equal(got, plainAt) {
		t.Fatalf("the data reads otherwise after the conversion (%v)", err)
	}
}

// TestConvert: Convert LUKS1 to LUKS2 and back on images cryptsetup and
// the package made (detached headers too, a keyslot beside slot 0):
// afterwards cryptsetup luksDump shows the version, both tools open with
// every passphrase, cryptsetup dumps the same volume key, the data reads
// the same; the package converts its result back, and cryptsetup's
// result; cryptsetup's refusal to convert ours back (its own layouts
// only) leaves it unchanged.
func TestConvert(t *testing.T) {
	needCryptsetup(t)
	cases := []struct {
		name string
		make func(t *testing.T) *csImage
	}{
		{"cryptsetup-luks1", func(t *testing.T) *csImage { return csFormat(t, 1, false, 4<<20) }},
		{"cryptsetup-luks1-detached", func(t *testing.T) *csImage { return csFormat(t, 1, true, 1<<20) }},
		{"cryptsetup-luks1-cbc-256", func(t *testing.T) *csImage {
			return csFormat(t, 1, false, 4<<20, "--cipher", "aes-cbc-essiv:sha256", "--key-size", "256", "--hash", "sha1")
		}},
		{"cryptsetup-luks2", func(t *testing.T) *csImage { return csFormat(t, 2, false, 20<<20, "--sector-size", "512") }},
		{"cryptsetup-luks2-detached", func(t *testing.T) *csImage { return csFormat(t, 2, true, 1<<20, "--sector-size", "512") }},
		{"package-luks1", func(t *testing.T) *csImage {
			im := pkgImage(t, CreateOptions{Version: 1, KDF: fastKDF["pbkdf2"]})
			return im
		}},
		{"package-luks2", func(t *testing.T) *csImage {
			return pkgImage(t, CreateOptions{SectorSize: 512, KDF: fastKDF["pbkdf2"]})
		}},
	}
	for _, c := range cases {
		if testing.Short() && (strings.Contains(c.name, "detached") || strings.HasPrefix(c.name, "package")) {
			t.Logf("-short: %s left out (the full run converts it)", c.name)
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			im := c.make(t)
			csAddKey(t, im, 3, "three")
			key := withData(t, im)
			h, f := openHeaderFile(t, im.headerDev)
			from := h.Version
			to := 3 - from
			if err := h.Convert(f, to); err != nil {
				t.Fatal(err)
			}
			if h.Version != to {
				t.Fatalf("h is version %d after the conversion", h.Version)
			}
			if to == 2 && h.Seqid != 2 {
				t.Errorf("sequence id %d after the conversion, cryptsetup's is 2", h.Seqid)
			}
			checkImage(t, im, to, key, string(im.pass), "three")
			// cryptsetup converts back only its own layouts (LUKS1 slot 0's
			// material at sector 8; LUKS2 room for all eight LUKS1 slots
			// packed from 32 KiB), which ours are not: see Convert.
			before, _ := os.ReadFile(im.headerDev)
			if out, err := csRun(append(append([]string{"convert", "--batch-mode", "--type", fmt.Sprintf("luks%d", from)}, im.hdrArgs()...), im.img)...); err == nil {
				t.Logf("cryptsetup converted our result back")
				checkImage(t, im, from, key, string(im.pass), "three")
				h, f = openHeaderFile(t, im.headerDev)
				if err := h.Convert(f, to); err != nil {
					t.Fatal(err)
				}
			} else if after, _ := os.ReadFile(im.headerDev); !bytes.Equal(before, after) {
				t.Fatalf("cryptsetup's refused conversion changed the header: %s", out)
			}
			// The package converts its result back.
			h, f = openHeaderFile(t, im.headerDev)
			if h.Version == to {
				if err := h.Convert(f, from); err != nil {
					t.Fatal(err)
				}
			}
			checkImage(t, im, from, key, string(im.pass), "three")
			// And cryptsetup's result, on a new image.
			im = c.make(t)
			csAddKey(t, im, 3, "three")
			key = withData(t, im)
			cs(t, append(append([]string{"convert", "--batch-mode", "--type", fmt.Sprintf("luks%d", to)}, im.hdrArgs()...), im.img)...)
			h, f = openHeaderFile(t, im.headerDev)
			if err := h.Convert(f, from); err != nil {
				t.Fatal(err)
			}
			checkImage(t, im, from, key, string(im.pass), "three")
		})
	}
}

// TestConvertRefusals: LUKS2 headers LUKS1 cannot describe are refused
// by Convert with a ConvertError whose reason is cryptsetup's, naming
// the feature; cryptsetup convert refuses each too; neither changes the
// image.
func TestConvertRefusals(t *testing.T) {
	needCryptsetup(t)
	l2 := func(args ...string) func(t *testing.T) *csImage {
		return func(t *testing.T) *csImage {
			return csFormat(t, 2, false, 20<<20, append([]string{"--sector-size", "512"}, args...)...)
		}
	}
	then := func(mk func(t *testing.T) *csImage, args ...string) func(t *testing.T) *csImage {
		return func(t *testing.T) *csImage {
			im := mk(t)
			for i, a := range args {
				if a == "IMG" {
					args[i] = im.img
				}
				if a == "KEY" {
					args[i] = im.keyFile
				}
			}
			cs(t, args...)
			return im
		}
	}
	tok := filepath.Join(t.TempDir(), "token.json")
	writeFile(t, tok, []byte(`{"type":"x-test","keyslots":[]}`))
	addKey := func(extra ...string) []string {
		return append(append([]string{"luksAddKey", "--batch-mode", "--key-file", "KEY"}, fastPBKDF2...), append(extra, "IMG", "KEY")...)
	}
	cases := []struct {
		name, reason string
		make         func(t *testing.T) *csImage
	}{
		{"sector-size-4096", "default segment encryption sector size is not 512 bytes", func(t *testing.T) *csImage { return csFormat(t, 2, false, 20<<20, "--sector-size", "4096") }},
		{"argon2id", "keyslot 0 is not LUKS1 compatible", func(t *testing.T) *csImage {
			return csFormat(t, 2, false, 20<<20, append([]string{"--sector-size", "512"}, fastArgon2id...)...)
		}},
		{"token", "LUKS2 header contains 1 token(s)", then(l2(), "token", "import", "--json-file", tok, "IMG")},
		{"keyslot-9", "slot 9 (over maximum slots) is still active", then(l2(), addKey("--key-slot", "9")...)},
		{"keyslot-cipher", "keyslot 1 is not LUKS1 compatible", then(l2(), addKey("--key-slot", "1", "--keyslot-cipher", "aes-cbc-essiv:sha256", "--keyslot-key-size", "256")...)},
		{"keyslot-hash", "keyslot 1 is not LUKS1 compatible", then(l2(), addKey("--key-slot", "1", "--hash", "sha512")...)},
		{"unbound-key", "key slot digests are not LUKS1 compatible", then(l2(), addKey("--key-slot", "2", "--unbound", "--key-size", "512")...)},
		{"reencryption", "", then(l2(), append(append([]string{"reencrypt", "--init-only", "--batch-mode", "--key-file", "KEY"}, fastPBKDF2...), "IMG")...)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			im := c.make(t)
			before, _ := os.ReadFile(im.img)
			h, f := openHeaderFile(t, im.img)
			err := h.Convert(f, 1)
			var ce *ConvertError
			if !errors.As(err, &ce) || !errors.Is(err, ErrUnsupported) {
				t.Fatalf("Convert: %v; want a ConvertError", err)
			}
			out, csErr := csRun("convert", "--batch-mode", "--type", "luks1", im.img)
			if csErr == nil {
				t.Fatal("cryptsetup converted it")
			}
			if c.reason != "" && (ce.Reason != c.reason || !strings.Contains(out, "Cannot convert to LUKS1 format - "+c.reason+".")) {
				t.Fatalf("our reason %q, cryptsetup's message %q, want %q", ce.Reason, out, c.reason)
			}
			if after, _ := os.ReadFile(im.img); !bytes.Equal(before, after) {
				t.Fatal("a refused conversion changed the image")
			}
		})
	}
}

// TestConvertPowerLoss: a power loss at any point of Convert, either way,
// leaves an image that opens with every passphrase (slots 0, 1 and 7:
// 7's phdr entry is in the second sector) and reads the same data; the
// final state is the other version. LUKS1 to LUKS2 with slots 0 to 5 in
// use is refused (no free place for slot 0's material) and writes
// nothing.
func TestConvertPowerLoss(t *testing.T) {
	passes := []string{"zero", "one", "seven"}
	for _, version := range []int{1, 2} {
		t.Run(fmt.Sprintf("from-luks%d", version), func(t *testing.T) {
			base := pkgBase(t, CreateOptions{Version: version, SectorSize: 512}, map[int]string{1: "one", 7: "seven"})
			final := checkPowerLoss(t, powerLossCase{base: base, sets: [][]string{passes}, final: 0,
				op: func(d *writeLog) error {
					return must(ReadHeader(d)).Convert(d, 3-version)
				}})
			if v := must(ReadHeader(bytes.NewReader(final))).Version; v != 3-version {
				t.Fatalf("version %d after the conversion", v)
			}
		})
	}
	t.Run("luks1-slots-0-to-5-in-use", func(t *testing.T) {
		extra := map[int]string{}
		for i := 1; i <= 5; i++ {
			extra[i] = fmt.Sprint(i)
		}
		base := pkgBase(t, CreateOptions{Version: 1}, extra)
		dev := &writeLog{writerAtBuffer: &writerAtBuffer{bytes.NewBuffer(bytes.Clone(base))}}
		err := must(ReadHeader(dev)).Convert(dev, 2)
		if err == nil || !strings.Contains(err.Error(), "no free room before the data") || len(dev.writes) != 0 {
			t.Fatalf("Convert: %v, %d writes", err, len(dev.writes))
		}
	})
}

// Converting a LUKS1 image to LUKS2 and back.
func ExampleHeader_Convert() {
	f := exampleImage(1, "my passphrase")
	defer f.Close()
	h, err := ReadHeader(f)
	if err != nil {
		panic(err)
	}
	if err := h.Convert(f, 2); err != nil {
		panic(err)
	}
	fmt.Println("version", h.Version, "epoch", h.Seqid, "keyslot 0 at", h.Keyslots[0].Area.Offset)
	if err := h.Convert(f, 1); err != nil {
		panic(err)
	}
	_, _, err = h.Unlock(f, []byte("my passphrase"), AnyKeyslot)
	fmt.Println("version", h.Version, "opens:", err == nil)
	// Output:
	// version 2 epoch 2 keyslot 0 at 262144
	// version 1 opens: true
}
