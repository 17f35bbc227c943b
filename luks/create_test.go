package luks

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fastxts/xts"
)

var fastKDF = map[string]KDFOptions{
	"pbkdf2":   {Type: "pbkdf2", Iterations: 1000},
	"argon2id": {Type: "argon2id", Iterations: 4, Memory: 32, Parallel: 1},
	"argon2i":  {Type: "argon2i", Iterations: 4, Memory: 64, Parallel: 2},
}

// refDecrypt decrypts the sectors of ct independently of the package's
// sector code: one sector at a time, the IV computed here.
func refDecrypt(t *testing.T, spec string, key, ct []byte, ss int) []byte {
	return refDecryptFrom(t, spec, key, ct, ss, 0)
}

// refDecryptFrom is refDecrypt with the first sector's IV at ivTweak.
func refDecryptFrom(t *testing.T, spec string, key, ct []byte, ss int, ivTweak uint64) []byte {
	t.Helper()
	out := make([]byte, len(ct))
	for s := 0; s*ss < len(ct); s++ {
		iv := ivTweak + uint64(s*ss/512)
		src, dst := ct[s*ss:(s+1)*ss], out[s*ss:(s+1)*ss]
		switch {
		case strings.HasPrefix(spec, "aes-xts-"):
			c, err := xts.NewCipher(aes.NewCipher, key)
			if err != nil {
				t.Fatal(err)
			}
			if spec == "aes-xts-plain" {
				iv = uint64(uint32(iv))
			}
			c.Decrypt(dst, src, iv)
		case strings.HasPrefix(spec, "aes-cbc-"):
			b, _ := aes.NewCipher(key)
			var ivb [16]byte
			switch spec {
			case "aes-cbc-plain":
				binary.LittleEndian.PutUint32(ivb[:], uint32(iv))
			case "aes-cbc-plain64":
				binary.LittleEndian.PutUint64(ivb[:], iv)
			case "aes-cbc-essiv:sha256":
				salt := sha256.Sum256(key)
				e, _ := aes.NewCipher(salt[:])
				binary.LittleEndian.PutUint64(ivb[:], iv)
				e.Encrypt(ivb[:], ivb[:])
			}
			cipher.NewCBCDecrypter(b, ivb[:]).CryptBlocks(dst, src)
		default:
			t.Fatalf("refDecrypt: %s", spec)
		}
	}
	return out
}

// TestCreateCheckedByCryptsetup creates images with the package, writes
// data through a Volume (random WriteAt calls against a plaintext model),
// and has cryptsetup check the passphrase, the volume key and the data
// (reencrypt --decrypt for detached LUKS2 headers; else decrypted here
// with the key cryptsetup dumps).
func TestCreateCheckedByCryptsetup(t *testing.T) {
	needCryptsetup(t)
	cases := []struct {
		name string
		o    CreateOptions
	}{
		{"luks2-default-layout", CreateOptions{KDF: fastKDF["argon2id"], Label: "test label", Subsystem: "sub"}},
		{"luks2-xts256-512", CreateOptions{KeyBits: 256, SectorSize: 512, KDF: fastKDF["pbkdf2"]}},
		{"luks2-argon2i-sha512", CreateOptions{KDF: KDFOptions{Type: "argon2i", Hash: "sha512", Iterations: 4, Memory: 64, Parallel: 2}}},
		{"luks2-xts-plain-1k", CreateOptions{Cipher: "aes-xts-plain", SectorSize: 1024, KDF: fastKDF["pbkdf2"]}},
		{"luks2-cbc-essiv", CreateOptions{Cipher: "aes-cbc-essiv:sha256", KDF: fastKDF["pbkdf2"]}},
		{"luks2-detached", CreateOptions{Detached: true, KDF: fastKDF["argon2id"], UUID: "01234567-89ab-4def-8123-456789abcdef"}},
		{"luks2-detached-cbc-plain64-512", CreateOptions{Detached: true, Cipher: "aes-cbc-plain64", KeyBits: 128, SectorSize: 512, KDF: fastKDF["pbkdf2"]}},
		{"luks1-default", CreateOptions{Version: 1, KDF: fastKDF["pbkdf2"]}},
		{"luks1-xts256-sha1", CreateOptions{Version: 1, KeyBits: 256, KDF: KDFOptions{Type: "pbkdf2", Hash: "sha1", Iterations: 1000}}},
		{"luks1-cbc-essiv", CreateOptions{Version: 1, Cipher: "aes-cbc-essiv:sha256", KDF: fastKDF["pbkdf2"]}},
		{"luks1-detached", CreateOptions{Version: 1, Detached: true, KDF: fastKDF["pbkdf2"]}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			pass := []byte("created passphrase")
			kf := filepath.Join(dir, "pass")
			writeFile(t, kf, pass)
			img, hdr := filepath.Join(dir, "img"), ""
			const dataSize = 192 << 10
			hf, err := os.Create(img)
			if err != nil {
				t.Fatal(err)
			}
			defer hf.Close()
			df := hf
			if tc.o.Detached {
				hdr = img
				img = filepath.Join(dir, "data")
				if df, err = os.Create(img); err != nil {
					t.Fatal(err)
				}
				defer df.Close()
			}
			h, key, err := Create(hf, pass, &tc.o)
			if err != nil {
				t.Fatal(err)
			}
			seg := h.Segments[0]
			if err := df.Truncate(int64(seg.Offset) + dataSize); err != nil {
				t.Fatal(err)
			}
			v, err := NewVolume(h, key, df, int64(seg.Offset)+dataSize)
			if err != nil {
				t.Fatal(err)
			}
			model := make([]byte, dataSize)
			checkRandomWrites(t, v, model)
			v.Close()

			dump := cs(t, append([]string{"luksDump"}, hdrOr(hdr, img)...)...)
			for _, want := range []string{strings.TrimPrefix(seg.Encryption, "aes-"), h.UUID} {
				if !strings.Contains(dump, want) {
					t.Fatalf("luksDump lacks %q:\n%s", want, dump)
				}
			}
			if tc.o.Version != 1 && (!strings.Contains(dump, "sector: "+strconv.Itoa(seg.SectorSize)) || (tc.o.Label != "" && !strings.Contains(dump, tc.o.Label))) {
				t.Fatalf("luksDump: sector size or label missing:\n%s", dump)
			}
			if !testPassphrase(t, img, hdr, pass, 0) || testPassphrase(t, img, hdr, []byte("wrong"), -1) {
				t.Fatal("cryptsetup open --test-passphrase: right passphrase refused or wrong one accepted")
			}
			im := &csImage{img: img, hdr: hdr, keyFile: kf}
			if vk := im.volumeKey(t); !bytes.Equal(vk, key) {
				t.Fatal("cryptsetup dumps a different volume key")
			}
			var plain []byte
			if hdr != "" && tc.o.Version != 1 {
				cs(t, "reencrypt", "--decrypt", "--force-offline-reencrypt", "--batch-mode", "--key-file", kf, "--header", hdr, img)
				if plain, err = os.ReadFile(img); err != nil {
					t.Fatal(err)
				}
			} else {
				ct := make([]byte, dataSize)
				if _, err := df.ReadAt(ct, int64(seg.Offset)); err != nil {
					t.Fatal(err)
				}
				plain = refDecrypt(t, seg.Encryption, key, ct, seg.SectorSize)
			}
			if !bytes.Equal(plain[:dataSize], model) {
				t.Fatal("the data cryptsetup's key decrypts differs from what was written")
			}
		})
	}
}

func hdrOr(hdr, img string) []string {
	if hdr != "" {
		return []string{hdr}
	}
	return []string{img}
}

// checkRandomWrites writes random data at random offsets and lengths
// (partial and whole sectors) through v and into model, then reads the
// whole volume back and compares it with model.
func checkRandomWrites(t *testing.T, v *Volume, model []byte) {
	t.Helper()
	r := rand.New(rand.NewPCG(3, 4))
	fill := make([]byte, len(model))
	for i := range fill {
		fill[i] = byte(r.Uint32())
	}
	if _, err := v.WriteAt(fill, 0); err != nil {
		t.Fatal(err)
	}
	copy(model, fill)
	for range 300 {
		off := r.IntN(len(model))
		n := r.IntN(min(len(model)-off, 3*v.SectorSize()) + 1)
		p := make([]byte, n)
		for i := range p {
			p[i] = byte(r.Uint32())
		}
		if m, err := v.WriteAt(p, int64(off)); err != nil || m != n {
			t.Fatalf("WriteAt(%d bytes at %d): %d, %v", n, off, m, err)
		}
		copy(model[off:], p)
		if r.IntN(10) == 0 {
			off := r.IntN(len(model))
			got := make([]byte, r.IntN(len(model)-off)+1)
			if _, err := v.ReadAt(got, int64(off)); err != nil || !bytes.Equal(got, model[off:off+len(got)]) {
				t.Fatalf("ReadAt(%d at %d) after writes: %v", len(got), off, err)
			}
		}
	}
	got := make([]byte, len(model))
	if _, err := v.ReadAt(got, 0); err != nil || !bytes.Equal(got, model) {
		t.Fatalf("full ReadAt after writes: %v, equal %v", err, bytes.Equal(got, model))
	}
	if _, err := v.WriteAt([]byte{1}, int64(len(model))); err == nil {
		t.Fatal("WriteAt past the end succeeded")
	}
}

// normalizeDump drops from a luksDump what differs between any two
// images (UUID, salts, digests, the epoch) and keeps the layout.
func normalizeDump(s string) string {
	var out []string
	skipHex := false
	for _, l := range strings.Split(s, "\n") {
		f := strings.TrimSpace(l)
		if skipHex && (f == "" || strings.Contains(l, ":") == false) && f != "" {
			continue
		}
		skipHex = false
		switch {
		case strings.HasPrefix(f, "UUID:"), strings.HasPrefix(f, "Epoch:"), strings.HasPrefix(l, "LUKS header information for"):
			continue
		case strings.HasPrefix(f, "Salt:"), strings.HasPrefix(f, "Digest:"), strings.HasPrefix(f, "MK digest:"), strings.HasPrefix(f, "MK salt:"):
			skipHex = true
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// TestCreateLayoutMatchesLuksFormat: with the same cipher and forced KDF
// cost, Create lays out the header exactly as cryptsetup luksFormat does
// on an image file: luksDump of both is the same but for UUID, salts,
// digests and the epoch.
func TestCreateLayoutMatchesLuksFormat(t *testing.T) {
	needCryptsetup(t)
	for _, tc := range []struct {
		name string
		args []string
		o    CreateOptions
	}{
		{"luks2", []string{"--type", "luks2", "--pbkdf", "pbkdf2", "--pbkdf-force-iterations", "1000"}, CreateOptions{KDF: fastKDF["pbkdf2"]}},
		{"luks2-argon2id", []string{"--type", "luks2", "--pbkdf", "argon2id", "--pbkdf-force-iterations", "4", "--pbkdf-memory", "32", "--pbkdf-parallel", "1"}, CreateOptions{KDF: fastKDF["argon2id"]}},
		{"luks2-aes128-512", []string{"--type", "luks2", "--pbkdf", "pbkdf2", "--pbkdf-force-iterations", "1000", "--key-size", "256", "--sector-size", "512"}, CreateOptions{KeyBits: 256, SectorSize: 512, KDF: fastKDF["pbkdf2"]}},
		{"luks1", []string{"--type", "luks1", "--pbkdf-force-iterations", "1000"}, CreateOptions{Version: 1, KDF: fastKDF["pbkdf2"]}},
		{"luks1-aes128", []string{"--type", "luks1", "--pbkdf-force-iterations", "1000", "--key-size", "256"}, CreateOptions{Version: 1, KeyBits: 256, KDF: fastKDF["pbkdf2"]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			kf := filepath.Join(dir, "pass")
			writeFile(t, kf, []byte("p"))
			theirs := filepath.Join(dir, "theirs")
			writeFile(t, theirs, make([]byte, 20<<20))
			cs(t, append(append([]string{"luksFormat", "--batch-mode", "--key-file", kf}, tc.args...), theirs)...)
			ours := filepath.Join(dir, "ours")
			f, err := os.Create(ours)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, _, err := Create(f, []byte("p"), &tc.o); err != nil {
				t.Fatal(err)
			}
			f.Truncate(20 << 20)
			a, b := normalizeDump(cs(t, "luksDump", theirs)), normalizeDump(cs(t, "luksDump", ours))
			if a != b {
				t.Fatalf("luksDump differs:\n--- luksFormat:\n%s\n--- Create:\n%s", a, b)
			}
		})
	}
}

// TestDataSectorSize: the sector size Create will use, as the tool checks
// a plaintext's length against it before creating anything.
func TestDataSectorSize(t *testing.T) {
	for _, tc := range []struct {
		o    CreateOptions
		want int
	}{
		{CreateOptions{}, 4096}, {CreateOptions{Version: 2}, 4096}, {CreateOptions{Version: 1}, 512},
		{CreateOptions{Version: 2, SectorSize: 1024}, 1024}, {CreateOptions{SectorSize: 512}, 512},
	} {
		if got := tc.o.DataSectorSize(); got != tc.want {
			t.Errorf("%+v: DataSectorSize %d, want %d", tc.o, got, tc.want)
		}
	}
}
