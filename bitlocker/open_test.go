package bitlocker

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// secretsOf lists the secrets images.conf gives for an image, by name.
func secretsOf(t testing.TB, c imageConf) map[string]Secret {
	s := map[string]Secret{}
	if pw := c.get("PW"); pw != "" {
		s["PW"] = Password(pw)
	}
	for _, k := range []string{"RP", "RP2"} {
		if rp := c.get(k); rp != "" {
			s[k] = RecoveryPassword(rp)
		}
	}
	if g := c.get("SK_VMK_GUID"); g != "" {
		b, err := os.ReadFile(filepath.Join(images(t), strings.ToUpper(g)+".BEK"))
		if err != nil {
			t.Fatal(err)
		}
		s["SK"] = StartupKey(b)
	}
	if c.get("CLEARKEY_VMK_GUID") != "" {
		s["CLEARKEY"] = ClearKey()
	}
	return s
}

// refused lists the images Open must refuse, with a word its error holds.
var refused = map[string]string{
	"bitlk-aes-xts-128-eow":                 "encrypt-on-write",
	"bitlk-partially-encrypted-aes-cbc-128": "partially encrypted",
}

// TestImages opens every image with every secret images.conf lists: each
// gives the same volume key, and the whole volume's SHA-256 is SHA256SUM.
func TestImages(t *testing.T) {
	for _, c := range readConf(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if testing.Short() && !shortSubset[c.name] {
				t.Skip("-short: only a subset of the images")
			}
			f := openImage(t, c.name, false)
			m, err := ReadMetadata(f)
			if err != nil {
				t.Fatal(err)
			}
			checkConfMetadata(t, c, m)
			secrets := secretsOf(t, c)
			if word, ok := refused[c.name]; ok {
				for name, s := range secrets {
					_, err := Open(f, s, nil)
					if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), word) {
						t.Errorf("%s: Open: %v, want ErrUnsupported saying %q", name, err, word)
					}
				}
				return
			}
			if len(secrets) == 0 {
				t.Fatal("no secrets in images.conf")
			}
			var fvek []byte
			for name, s := range secrets {
				v, err := Open(f, s, &Options{Metadata: m, ReadOnly: true})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if fvek == nil {
					fvek = v.FVEK()
					if got, want := volumeSHA256(t, v), c.get("SHA256SUM"); got != want {
						t.Errorf("%s: volume SHA-256 %s, want %s", name, got, want)
					}
				} else if !bytes.Equal(v.FVEK(), fvek) {
					t.Errorf("%s: a different FVEK than the other secrets", name)
				}
				if p := v.Protector(); p == nil || !protectorMatches(c, name, p) {
					t.Errorf("%s: unlocked by protector %+v", name, p)
				}
				v.Close()
			}
			// The volume key alone opens it too.
			v, err := Open(f, VolumeKey(fvek), &Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			if v.Size() != m.VolumeSize || v.SectorSize() != m.SectorSize {
				t.Errorf("size %d, sector %d; metadata %d, %d", v.Size(), v.SectorSize(), m.VolumeSize, m.SectorSize)
			}
		})
	}
}

// shortSubset are the images TestImages opens under -short: one of each
// cipher, 4K sectors, To Go, a startup key and the clear key.
var shortSubset = map[string]bool{
	"bitlk-aes-xts-128":                   true,
	"bitlk-aes-cbc-elephant-128":          true,
	"bitlk-aes-cbc-128-4k":                true,
	"bitlk-togo-aes-xts-128":              true,
	"bitlk-aes-xts-128-startup-key-win11": true,
	"bitlk-aes-xts-128-clearkey-only":     true,
	"bitlk-aes-xts-128-eow":               true,
}

func protectorMatches(c imageConf, secret string, p *Protector) bool {
	key := map[string]string{"PW": "PW_VMK_GUID", "RP": "RP_VMK_GUID", "RP2": "RP2_VMK_GUID",
		"SK": "SK_VMK_GUID", "CLEARKEY": "CLEARKEY_VMK_GUID"}[secret]
	return strings.EqualFold(p.GUID.String(), c.get(key))
}

// checkConfMetadata compares the metadata with images.conf: the volume
// GUID, the cipher and every protector GUID it lists.
func checkConfMetadata(t *testing.T, c imageConf, m *Metadata) {
	t.Helper()
	if got := m.GUID.String(); got != c.get("GUID") {
		t.Errorf("GUID %s, want %s", got, c.get("GUID"))
	}
	if got := "aes-" + m.Method.CipherMode(); got != c.get("CIPHER") {
		t.Errorf("cipher %s, want %s", got, c.get("CIPHER"))
	}
	types := map[string]ProtectionType{"PW_VMK_GUID": ProtectPassword, "RP_VMK_GUID": ProtectRecoveryPassword,
		"RP2_VMK_GUID": ProtectRecoveryPassword, "SK_VMK_GUID": ProtectStartupKey,
		"SC_VMK_GUID": ProtectSmartCard, "CLEARKEY_VMK_GUID": ProtectClearKey}
	for k, typ := range types {
		g := c.get(k)
		if g == "" {
			continue
		}
		found := false
		for _, p := range m.Protectors {
			if p.GUID.String() == g {
				found = true
				if p.Type != typ {
					t.Errorf("protector %s is %v, want %v", g, p.Type, typ)
				}
			}
		}
		if !found {
			t.Errorf("no protector %s (%s)", g, k)
		}
	}
}
