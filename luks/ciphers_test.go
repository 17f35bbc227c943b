package luks

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fastxts/xts/camellia"
	"github.com/fastxts/xts/internal/hash/ripemd160"
	"github.com/fastxts/xts/internal/hash/whirlpool"
	ipbkdf2 "github.com/fastxts/xts/internal/pbkdf2"
	"github.com/fastxts/xts/serpent"
	"github.com/fastxts/xts/twofish"
	xxts "golang.org/x/crypto/xts"
)

// The ciphers other than AES (serpent, twofish, camellia) and the LUKS1
// hashes of old cryptsetup (ripemd160, whirlpool). Every check of the
// data and keyslots here is made with code apart from the package's:
// golang.org/x/crypto/xts and crypto/cipher's CBC over the block
// ciphers, the IVs computed here, internal/pbkdf2 (the package derives
// with crypto/pbkdf2) and an anti-forensic merge written from the LUKS
// specification. The block ciphers themselves are checked against
// libgcrypt with -tags gcrypt (gcrypt_test.go here, and their packages').

// blockOf is the block cipher constructor of a spec's cipher name.
func blockOf(t testing.TB, spec string) func([]byte) (cipher.Block, error) {
	t.Helper()
	name, _, _ := strings.Cut(spec, "-")
	f := map[string]func([]byte) (cipher.Block, error){
		"aes": aes.NewCipher, "serpent": serpent.NewCipher, "twofish": twofish.NewCipher, "camellia": camellia.NewCipher,
	}[name]
	if f == nil {
		t.Fatalf("no block cipher for %s", spec)
	}
	return f
}

// refSectors decrypts (or encrypts) whole sectors of ss bytes, the first
// at IV iv0 (512-byte units), one at a time as dm-crypt does: XTS with
// the little-endian IV as its tweak, CBC with the plain, plain64 or
// essiv:sha256 IV.
func refSectors(t testing.TB, spec string, key, src []byte, ss int, iv0 uint64, encrypt bool) []byte {
	t.Helper()
	newBlock := blockOf(t, spec)
	out := make([]byte, len(src))
	for s := 0; s*ss < len(src); s++ {
		iv := iv0 + uint64(s*ss/512)
		if strings.HasSuffix(spec, "-plain") {
			iv = uint64(uint32(iv))
		}
		in, dst := src[s*ss:(s+1)*ss], out[s*ss:(s+1)*ss]
		if strings.Contains(spec, "-xts-") {
			c, err := xxts.NewCipher(newBlock, key)
			if err != nil {
				t.Fatal(err)
			}
			if encrypt {
				c.Encrypt(dst, in, iv)
			} else {
				c.Decrypt(dst, in, iv)
			}
			continue
		}
		b, err := newBlock(key)
		if err != nil {
			t.Fatal(err)
		}
		var ivb [16]byte
		binary.LittleEndian.PutUint64(ivb[:], iv)
		if strings.HasSuffix(spec, "-essiv:sha256") {
			salt := sha256.Sum256(key)
			e, _ := newBlock(salt[:])
			e.Encrypt(ivb[:], ivb[:])
		}
		if encrypt {
			cipher.NewCBCEncrypter(b, ivb[:]).CryptBlocks(dst, in)
		} else {
			cipher.NewCBCDecrypter(b, ivb[:]).CryptBlocks(dst, in)
		}
	}
	return out
}

// refHash is the hash of a LUKS hash name, for the checks here.
func refHash(t testing.TB, name string) func() hash.Hash {
	t.Helper()
	switch name {
	case "sha256":
		return sha256.New
	case "ripemd160":
		return ripemd160.New
	case "whirlpool":
		return whirlpool.New
	}
	t.Fatalf("no reference hash %q", name)
	return nil
}

// refAFMerge is the LUKS anti-forensic merge, written from the LUKS1
// specification: d = 0; for each stripe but the last, d = H(d ^ stripe),
// where H hashes every digest-sized block i of d (the last one partial)
// as hash(be32(i) || block) cut to the block's length; the key is
// d ^ the last stripe.
func refAFMerge(newHash func() hash.Hash, split []byte, keySize, stripes int) []byte {
	d := make([]byte, keySize)
	for s := 0; s < stripes; s++ {
		for i := range d {
			d[i] ^= split[s*keySize+i]
		}
		if s == stripes-1 {
			break
		}
		ds := newHash().Size()
		var next []byte
		for i := 0; i*ds < keySize; i++ {
			h := newHash()
			h.Write(binary.BigEndian.AppendUint32(nil, uint32(i)))
			h.Write(d[i*ds : min((i+1)*ds, keySize)])
			next = append(next, h.Sum(nil)[:min(ds, keySize-i*ds)]...)
		}
		d = next
	}
	return d
}

// refUnlock recovers the volume key of keyslot k of the image img with
// pass, by the checks' own means: the keyslot's PBKDF2 by
// internal/pbkdf2, its area decrypted by refSectors (512-byte sectors
// from IV 0, as cryptsetup encrypts keyslot areas with the area's cipher),
// the anti-forensic merge by refAFMerge; and checks the key against the
// digest (PBKDF2 of the key with the digest's hash, salt and iterations).
func refUnlock(t testing.TB, img io.ReaderAt, h *Header, k int, pass []byte) []byte {
	t.Helper()
	ks := &h.Keyslots[k]
	if ks.KDF.Type != "pbkdf2" {
		t.Fatalf("refUnlock: keyslot %d KDF %s", k, ks.KDF.Type)
	}
	areaKey := ipbkdf2.Key(refHash(t, ks.KDF.Hash), pass, ks.KDF.Salt, ks.KDF.Iterations, ks.Area.KeySize)
	n := int(luks1Sectors(ks.KeySize, ks.AF.Stripes)) * 512
	area := refSectors(t, ks.Area.Encryption, areaKey, readAt(t, img, ks.Area.Offset, n), 512, 0, false)
	key := refAFMerge(refHash(t, ks.AF.Hash), area, ks.KeySize, ks.AF.Stripes)
	d := &h.Digests[0]
	if got := ipbkdf2.Key(refHash(t, d.Hash), key, d.Salt, d.Iterations, len(d.Value)); !bytes.Equal(got, d.Value) {
		t.Fatalf("keyslot %d: the key it holds does not match the digest (recomputed independently)", k)
	}
	return key
}

// readAt reads n bytes at off of r.
func readAt(t testing.TB, r io.ReaderAt, off uint64, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := r.ReadAt(b, int64(off)); err != nil {
		t.Fatal(err)
	}
	return b
}

// writeSome writes the whole of v (random bytes), then a few random
// pieces (partial and whole sectors), keeping model as v's plaintext, and
// reads the whole back: checkRandomWrites, lighter, for the many images
// here.
func writeSome(t *testing.T, v *Volume, model []byte) {
	t.Helper()
	r := rand.New(rand.NewPCG(uint64(len(model)), uint64(v.SectorSize())))
	for i := range model {
		model[i] = byte(r.Uint32())
	}
	if _, err := v.WriteAt(model, 0); err != nil {
		t.Fatal(err)
	}
	for range 24 {
		off := r.IntN(len(model))
		p := make([]byte, r.IntN(min(len(model)-off, 2*v.SectorSize())+1))
		for i := range p {
			p[i] = byte(r.Uint32())
		}
		if n, err := v.WriteAt(p, int64(off)); err != nil || n != len(p) {
			t.Fatalf("WriteAt(%d bytes at %d): %d, %v", len(p), off, n, err)
		}
		copy(model[off:], p)
	}
	got := make([]byte, len(model))
	if _, err := v.ReadAt(got, 0); err != nil || !bytes.Equal(got, model) {
		t.Fatalf("ReadAt after writes: %v, equal %v", err, bytes.Equal(got, model))
	}
}

// cipherCase is one image of the tests here.
type cipherCase struct {
	version int
	spec    string
	keyBits int
	hash    string // pbkdf2, AF and digest hash; "" for sha256
	ss      int    // 0: the default (LUKS2 4096, LUKS1 512)
}

func (c cipherCase) String() string {
	s := fmt.Sprintf("luks%d/%s/%d", c.version, c.spec, c.keyBits)
	if c.hash != "" {
		s += "/" + c.hash
	}
	if c.ss != 0 {
		s += fmt.Sprintf("/ss%d", c.ss)
	}
	return s
}

// cipherCases: each cipher in XTS with plain64, LUKS1 and LUKS2, 256- and
// 512-bit keys; the other IVs and CBC once per cipher; sector sizes other
// than the defaults; LUKS1 keyslots hashed with ripemd160 and whirlpool.
func cipherCases() []cipherCase {
	var cs []cipherCase
	for _, c := range []string{"serpent", "twofish", "camellia"} {
		for _, v := range []int{1, 2} {
			for _, bits := range []int{256, 512} {
				cs = append(cs, cipherCase{version: v, spec: c + "-xts-plain64", keyBits: bits})
			}
		}
	}
	cs = append(cs,
		cipherCase{version: 2, spec: "serpent-xts-plain", keyBits: 512, ss: 512},
		cipherCase{version: 1, spec: "twofish-xts-plain", keyBits: 384},
		cipherCase{version: 2, spec: "camellia-xts-plain", keyBits: 256, ss: 1024},
		cipherCase{version: 1, spec: "serpent-cbc-essiv:sha256", keyBits: 256},
		cipherCase{version: 2, spec: "twofish-cbc-essiv:sha256", keyBits: 128, ss: 512},
		cipherCase{version: 2, spec: "camellia-cbc-plain64", keyBits: 256},
		cipherCase{version: 1, spec: "camellia-cbc-plain", keyBits: 192},
		cipherCase{version: 1, spec: "serpent-xts-plain64", keyBits: 512, hash: "whirlpool"},
		cipherCase{version: 1, spec: "twofish-xts-plain64", keyBits: 256, hash: "ripemd160"},
		cipherCase{version: 1, spec: "aes-xts-plain64", keyBits: 512, hash: "whirlpool"},
		cipherCase{version: 1, spec: "aes-cbc-essiv:sha256", keyBits: 256, hash: "ripemd160"},
		cipherCase{version: 2, spec: "camellia-xts-plain64", keyBits: 512, hash: "whirlpool"},
	)
	return cs
}

// createCase makes the image of c in a file of dir with dataSize bytes
// of data and returns the file, its header and volume key.
func createCase(t *testing.T, dir string, c cipherCase, pass []byte, dataSize int) (*os.File, *Header, []byte) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "img"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	h, key, err := Create(f, pass, &CreateOptions{Version: c.version, Cipher: c.spec, KeyBits: c.keyBits, SectorSize: c.ss,
		KDF: KDFOptions{Type: "pbkdf2", Hash: c.hash, Iterations: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(int64(h.Segments[0].Offset) + int64(dataSize)); err != nil {
		t.Fatal(err)
	}
	return f, h, key
}

// TestCiphersRoundTrip: Create makes each case's image; its header names
// the cipher for the data and the keyslot (LUKS1: cipher name and mode)
// and the hash everywhere; data written through Open's Volume reads back
// after a reopen; the keyslot, the digest and the data area check out by
// the independent means above; a wrong passphrase opens nothing; and
// cryptsetup luksDump (where installed) reads the header.
func TestCiphersRoundTrip(t *testing.T) {
	_, csErr := exec.LookPath("cryptsetup")
	for _, c := range cipherCases() {
		t.Run(c.String(), func(t *testing.T) {
			const dataSize = 48 << 10
			pass := []byte("cipher passphrase")
			f, h, key := createCase(t, t.TempDir(), c, pass, dataSize)
			hashName := cmpOr(c.hash, "sha256")
			keyLen := c.keyBits / 8
			seg := h.Segments[0]
			ks := h.Keyslots[0]
			if seg.Encryption != c.spec || ks.Area.Encryption != c.spec || ks.Area.KeySize != keyLen || ks.KeySize != keyLen || len(key) != keyLen {
				t.Fatalf("header: segment %s, keyslot area %s with a %d-byte key, keyslot key %d bytes, volume key %d bytes",
					seg.Encryption, ks.Area.Encryption, ks.Area.KeySize, ks.KeySize, len(key))
			}
			if ks.KDF.Hash != hashName || ks.AF.Hash != hashName || h.Digests[0].Hash != hashName {
				t.Fatalf("hashes: KDF %s, AF %s, digest %s; want %s", ks.KDF.Hash, ks.AF.Hash, h.Digests[0].Hash, hashName)
			}
			if c.version == 1 {
				if name, mode, _ := strings.Cut(c.spec, "-"); h.CipherName != name || h.CipherMode != mode || h.HashSpec != hashName {
					t.Fatalf("LUKS1 cipher name %q, mode %q, hash %q", h.CipherName, h.CipherMode, h.HashSpec)
				}
			}
			wantSS := cmpOr(c.ss, map[int]int{1: 512, 2: 4096}[c.version])
			if seg.SectorSize != wantSS {
				t.Fatalf("sector size %d, want %d", seg.SectorSize, wantSS)
			}

			v, err := Open(f, pass, nil)
			if err != nil {
				t.Fatal(err)
			}
			model := make([]byte, dataSize)
			writeSome(t, v, model)
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			v, err = Open(f, pass, nil)
			if err != nil {
				t.Fatalf("reopen: %v", err)
			}
			got := make([]byte, dataSize)
			if _, err := v.ReadAt(got, 0); err != nil || !bytes.Equal(got, model) {
				t.Fatalf("reopened volume: %v, data equal %v", err, bytes.Equal(got, model))
			}
			v.Close()
			if _, err := Open(f, []byte("wrong"), nil); !errors.Is(err, ErrNoKey) {
				t.Fatalf("wrong passphrase: %v, want ErrNoKey", err)
			}

			if k := refUnlock(t, f, h, 0, pass); !bytes.Equal(k, key) {
				t.Fatal("keyslot 0, opened independently, holds another key than Create returned")
			}
			ct := readAt(t, f, seg.Offset, dataSize)
			if bytes.Contains(ct, model[:64]) {
				t.Fatal("the data area holds plaintext")
			}
			if plain := refSectors(t, c.spec, key, ct, seg.SectorSize, 0, false); !bytes.Equal(plain, model) {
				t.Fatal("the data area, decrypted sector by sector independently, differs from what was written")
			}

			if csErr != nil {
				t.Skip("cryptsetup is not installed (Debian package cryptsetup-bin): luksDump not checked: ", csErr)
			}
			dump := cs(t, "luksDump", f.Name())
			name, mode, _ := strings.Cut(c.spec, "-")
			want := []string{h.UUID, fmt.Sprintf("Cipher name:   \t%s", name), fmt.Sprintf("Cipher mode:   \t%s", mode),
				fmt.Sprintf("Hash spec:     \t%s", hashName), fmt.Sprintf("MK bits:       \t%d", c.keyBits)}
			if c.version == 2 {
				want = []string{h.UUID, fmt.Sprintf("cipher: %s", c.spec), fmt.Sprintf("sector: %d [bytes]", wantSS),
					fmt.Sprintf("Cipher:     %s", c.spec), fmt.Sprintf("Cipher key: %d bits", c.keyBits),
					fmt.Sprintf("AF hash:    %s", hashName), fmt.Sprintf("Hash:       %s", hashName)}
			}
			for _, w := range want {
				if !strings.Contains(dump, w) {
					t.Errorf("luksDump lacks %q:\n%s", w, dump)
				}
			}
		})
	}
}

func cmpOr[T comparable](a, b T) T {
	var zero T
	if a != zero {
		return a
	}
	return b
}
