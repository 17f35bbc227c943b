package bitlocker

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseRecoveryPassword(t *testing.T) {
	tests := []struct {
		in   string
		key  string // hex, if valid
		fail string // a word of the error otherwise
	}{
		// 235818/11 = 21438 = 0x53be, 357951/11 = 32541 = 0x7f1d, ... (little-endian)
		{"235818-357951-253979-013365-241120-245575-342914-591910", "be531d7f315abf04a0553557c67932d2", ""},
		{"235818357951253979013365241120245575342914591910", "be531d7f315abf04a0553557c67932d2", ""},
		{" 235818-357951-253979-013365-241120-245575-342914-591910 ", "be531d7f315abf04a0553557c67932d2", ""},
		{"000000-000000-000000-000000-000000-000000-000000-720885", "0000000000000000000000000000ffff", ""},
		{"235818-357951-253979-013365-241120-245575-342914", "", "8 groups"},
		{"235818-357951-253979-013365-241120-245575-342914-59191", "", "6 digits"},
		{"235818-357951-253979-013365-241120-245575-342914-59191x", "", "digits"},
		{"235818-357951-253979-013365-241120-245575-342914-591911", "", "multiple of 11"},
		{"235818-357951-253979-013365-241120-245575-342914-720896", "", "720896"},
		{"", "", "8 groups"},
	}
	for _, tc := range tests {
		k, err := ParseRecoveryPassword(tc.in)
		if tc.fail != "" {
			if err == nil || !strings.Contains(err.Error(), tc.fail) {
				t.Errorf("%q: %v, want an error saying %q", tc.in, err, tc.fail)
			}
			continue
		}
		if err != nil || hex.EncodeToString(k[:]) != tc.key {
			t.Errorf("%q: %x, %v; want %s", tc.in, k, err, tc.key)
		}
	}
}

// TestStretch checks the stretch on a vector computed independently from
// the format's description (Python's hashlib: 2^20 SHA-256 calls over the
// 88-byte record).
func TestStretch(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the stretch takes 0.2-0.5 s")
	}
	salt := seq(0x10, 16)
	got := passwordKey(Password("anaconda").data, salt)
	if h := hex.EncodeToString(got[:]); h != stretchVector {
		t.Errorf("stretch %s, want %s", h, stretchVector)
	}
}

func TestWrongSecrets(t *testing.T) {
	f := openImage(t, "bitlk-aes-xts-128", false)
	m, err := ReadMetadata(f)
	if err != nil {
		t.Fatal(err)
	}
	o := &Options{Metadata: m, ReadOnly: true}
	bek, err := os.ReadFile(filepath.Join(images(t), "4381F759-C4F8-4DE0-BB61-FC33A831BDA5.BEK"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		s    Secret
		is   error
		word string
	}{
		{"wrong password", Password("anaconda2"), ErrWrongSecret, ""},
		{"wrong recovery password", RecoveryPassword("000000-000000-000000-000000-000000-000000-000000-000000"), ErrWrongSecret, ""},
		{"malformed recovery password", RecoveryPassword("12-34"), nil, "8 groups"},
		{"no clear key", ClearKey(), ErrWrongSecret, "clear key"},
		{"startup key of another volume", StartupKey(bek), ErrWrongSecret, "4381f759"},
		{"not a startup key file", StartupKey([]byte("hello")), nil, "startup key file"},
		{"short volume key", VolumeKey(make([]byte, 16)), nil, "volume key"},
		{"no secret", Secret{}, nil, "no secret"},
	}
	if testing.Short() {
		tests = tests[2:]
	}
	for _, tc := range tests {
		_, err := Open(f, tc.s, o)
		if err == nil || (tc.is != nil && !errors.Is(err, tc.is)) || !strings.Contains(err.Error(), tc.word) {
			t.Errorf("%s: %v, want %v saying %q", tc.name, err, tc.is, tc.word)
		}
	}
}

// TestOnlySmartCardOrTPM: a volume left with protectors that need hardware
// is refused by name; the smart-card image without its recovery password
// protector stands for it.
func TestOnlySmartCardOrTPM(t *testing.T) {
	f := openImage(t, "bitlk-aes-xts-128-smart-card", false)
	m, err := ReadMetadata(f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(f, Password("anaconda"), &Options{Metadata: m}); !errors.Is(err, ErrWrongSecret) || !strings.Contains(err.Error(), "passphrase") {
		t.Errorf("password on a smart card + recovery volume: %v", err)
	}
	var hw []Protector
	for _, p := range m.Protectors {
		if p.Type == ProtectSmartCard {
			hw = append(hw, p)
		}
	}
	hw = append(hw, Protector{Type: ProtectTPM})
	m.Protectors = hw
	_, err = Open(f, Password("anaconda"), &Options{Metadata: m})
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "smart card") || !strings.Contains(err.Error(), "TPM") {
		t.Errorf("smart card and TPM only: %v", err)
	}
}

func TestParseBEK(t *testing.T) {
	dir := images(t)
	for _, name := range []string{"4381F759-C4F8-4DE0-BB61-FC33A831BDA5", "AA80A52B-9B66-47AE-B097-33F536FFBB07"} {
		b, err := os.ReadFile(filepath.Join(dir, name+".BEK"))
		if err != nil {
			t.Fatal(err)
		}
		k, err := ParseBEK(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !strings.EqualFold(k.GUID.String(), name) || len(k.Key) != 32 || k.Created.Before(time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("%s: %v, %d-byte key, created %v", name, k.GUID, len(k.Key), k.Created)
		}
		// Every truncation fails cleanly.
		for n := 0; n < len(b); n++ {
			if _, err := ParseBEK(b[:n]); err == nil {
				t.Errorf("%s cut to %d bytes parsed", name, n)
			}
		}
		// A key of another GUID than the file's is refused.
		bad := bytes.Clone(b)
		bad[0x38] ^= 1
		if _, err := ParseBEK(bad); err == nil {
			t.Errorf("%s with a mismatched key GUID parsed", name)
		}
	}
}

func TestGUID(t *testing.T) {
	for _, s := range []string{"8f595209-f5b9-49a0-85d4-cb8f80258c27", "{8F595209-F5B9-49A0-85D4-CB8F80258C27}"} {
		g, err := ParseGUID(s)
		if err != nil || g.String() != "8f595209-f5b9-49a0-85d4-cb8f80258c27" {
			t.Errorf("%s: %v %v", s, g, err)
		}
		if g[0] != 0x09 || g[3] != 0x8f || g[8] != 0x85 {
			t.Errorf("%s: bytes %x", s, g[:])
		}
	}
	for _, s := range []string{"", "8f595209-f5b9-49a0-85d4-cb8f80258c2", "8f595209+f5b9-49a0-85d4-cb8f80258c27", "zf595209-f5b9-49a0-85d4-cb8f80258c27"} {
		if _, err := ParseGUID(s); err == nil {
			t.Errorf("%q parsed", s)
		}
	}
}

// stretchVector is the stretch of the password "anaconda" with the salt
// 10 11 ... 1f.
const stretchVector = "8f5522914ec384e92aac3269922c7e0680f72082ab4d21eadf9dedeaed3aa843"
